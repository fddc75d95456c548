/**
 * A revocation is never lost to a key lookup in flight (decisions §3: every
 * instance refuses a revoked key within 2 seconds). The instance reads the key
 * as active, the key is revoked and the instance's watcher drops its caches,
 * and only then does the read return: the record it brings is stale and must
 * not be kept. Made deterministic here by a store that holds the key's read
 * until the test releases it; test/scale/revocation-race.test.ts does the same
 * over a slow link to PostgreSQL, without a hook in the store.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { injectThroughServer } from '../support/dispatch.js';
import { createAccount, createGrant, createKey, revokeKey, updateGrant } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { waitFor } from '../support/wait.js';

/** Polls `check` until it holds; fails with `what()` once `ms` have passed. */
const until = (check: () => Promise<boolean>, ms: number, what: () => string) =>
  waitFor(check, { timeout: ms, interval: 20, what });

/** A gate on one read (of a key or a grant): the read happens, then waits until released. */
interface Gate {
  method: 'getKey' | 'getGrant';
  id: string;
  reached: Promise<void>;
  release(): void;
}

describe('a revocation while the key is being loaded (SQLite, the read held by the test)', () => {
  let db: Database;
  let admin: Store;
  let runtime: Runtime;
  let app: FastifyInstance;
  let gate: (Gate & { arrive(): void; released: Promise<void> }) | null = null;

  const hold = (method: Gate['method'], id: string): Gate => {
    let arrive!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((r) => {
      arrive = r;
    });
    const released = new Promise<void>((r) => {
      release = r;
    });
    gate = { method, id, reached, arrive, released, release };
    return gate;
  };

  const newKey = async () => {
    const account = await createAccount(admin, {});
    const grant = await createGrant(admin, {
      accountId: account.id,
      plan: 'test',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 100_000,
    });
    return { grantId: grant.id, ...(await createKey(admin, { grantId: grant.id })) };
  };
  const me = (key: string) =>
    app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${key}` } });
  /** Waits until the instance's watcher has dropped its caches for the latest access change. */
  const seenByInstance = async () => {
    const invalidate = vi.spyOn(runtime.services.authenticator, 'invalidate');
    try {
      await until(
        async () => invalidate.mock.calls.length > 0,
        5_000,
        () => 'the watcher saw the change',
      );
    } finally {
      invalidate.mockRestore();
    }
  };
  /** Within 5 s the key answers with `code` and keeps doing so. */
  const refusedFromNowOn = async (key: string, status: number, code: string) => {
    let last: LightMyRequestResponse | undefined;
    await until(
      async () => {
        last = await me(key);
        return last.statusCode === status;
      },
      5_000,
      () => `${status} ${code} (last answer ${last?.statusCode} ${last?.body})`,
    );
    expect(last!.json().error.code).toBe(code);
    const end = Date.now() + 1_000;
    while (Date.now() < end) {
      const res = await me(key);
      expect(res.statusCode, res.body).toBe(status);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    admin = db.open();
    await admin.migrate();
    const served = db.open();
    const access: Store['access'] = new Proxy(served.access, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'getKey' || prop === 'getGrant') {
          return async (id: string) => {
            const record = await target[prop](id);
            const g = gate;
            if (g && g.method === prop && g.id === id) {
              gate = null;
              g.arrive();
              await g.released;
            }
            return record;
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const held: Store = Object.assign(Object.create(served) as Store, { access });
    runtime = await assemble({ store: held, pollMs: 20 });
    app = await buildApp(runtime.services, { logger: false });
    await app.ready();
    injectThroughServer(app);
    await validateResponses(app);
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await admin?.close();
    await db?.drop();
  });

  it('a key revoked during its first load is refused within 5 s, for good', async () => {
    const k = await newKey();
    await seenByInstance();
    const g = hold('getKey', k.publicId);
    const first = me(k.key);
    await g.reached; // read as active, not yet returned
    const second = me(k.key); // joins the load in flight
    await revokeKey(admin, k.publicId);
    await seenByInstance();
    g.release();
    // Concurrent with the revocation, these two may go either way.
    for (const res of await Promise.all([first, second])) expect([200, 401]).toContain(res.statusCode);
    await refusedFromNowOn(k.key, 401, 'revoked_api_key');
  });

  it('a grant suspended during a key’s first load is refused within 5 s, for good', async () => {
    const k = await newKey();
    await seenByInstance();
    const g = hold('getGrant', k.grantId);
    const first = me(k.key);
    await g.reached;
    await updateGrant(admin, k.grantId, { status: 'suspended' });
    await seenByInstance();
    g.release();
    expect([200, 403]).toContain((await first).statusCode);
    await refusedFromNowOn(k.key, 403, 'grant_inactive');
  });
});
