/**
 * A revocation is not lost to a key lookup in flight (decisions §3), on
 * PostgreSQL over a slow link: a relay delays every byte 250 ms each way, so
 * the instance's first load of a key (the key, then its grant: two round
 * trips) spans a whole poll of the watcher. The key is revoked as soon as its
 * row has left PostgreSQL, active; the watcher then sees the change while the
 * load is still in flight. The stale record that load brings back must not be
 * kept: within 5 s the key answers 401 revoked_api_key, and keeps doing so.
 *
 * Several rounds, because on the code this guards against the watcher's poll
 * must also land inside the load's window (most of the time, not always).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { injectThroughServer } from '../support/dispatch.js';
import { createAccount, createGrant, createKey, revokeKey } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { waitFor } from '../support/wait.js';

const DELAY_MS = 250;
const ROUNDS = 4;

/** Polls `check` until it holds; fails with `what()` once `ms` have passed. */
const until = (check: () => Promise<boolean>, ms: number, what: () => string) =>
  waitFor(check, { timeout: ms, interval: 50, what });

describe.runIf(POSTGRES_URL)('a revocation while the key is loaded over a slow link to PostgreSQL', () => {
  let db: Database;
  /** The operator's connection, direct: revocations commit at once. */
  let admin: Store;
  let relay: TcpProxy;
  let runtime: Runtime;
  let app: FastifyInstance;

  const me = (key: string) =>
    app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    admin = db.open();
    await admin.migrate();
    const target = new URL(POSTGRES_URL!);
    // No delay while the instance starts (migration check, snapshot): only the test's part is slow.
    relay = await startProxy(target.hostname, Number(target.port || 5432), { delayMs: {} });
    const relayed = new URL(db.url);
    relayed.host = `127.0.0.1:${relay.port}`;
    // A short poll interval: the watcher polls back to back, one round trip each.
    runtime = await assemble({ databaseUrl: relayed.toString(), pollMs: 20 });
    app = await buildApp(runtime.services, { logger: false });
    await app.ready();
    injectThroughServer(app);
    await validateResponses(app);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await relay?.close();
    await admin?.close();
    await db?.drop();
  });

  it('the key answers 401 revoked_api_key within 5 s, and keeps doing so', async () => {
    relay.setDelay({ up: DELAY_MS, down: DELAY_MS });
    for (let round = 0; round < ROUNDS; round++) {
      const account = await createAccount(admin, {});
      const grant = await createGrant(admin, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 100_000,
      });
      const k = await createKey(admin, { grantId: grant.id });
      // Let the instance take in the new key's access change first, so that the
      // only change landing during the load is the revocation.
      const invalidate = vi.spyOn(runtime.services.authenticator, 'invalidate');
      await until(
        async () => invalidate.mock.calls.length > 0,
        5_000,
        () => 'the watcher saw the new key',
      );
      invalidate.mockRestore();

      const read = relay.waitFor('down', (chunk) => chunk.includes(k.publicId));
      const first = me(k.key);
      await read; // the key's row, active, is on its way back to the instance
      await revokeKey(admin, k.publicId);
      const revokedAt = Date.now();

      // Concurrent with the revocation: either answer is right for this one.
      expect([200, 401], `round ${round}`).toContain((await first).statusCode);
      let last: LightMyRequestResponse | undefined;
      await until(
        async () => {
          last = await me(k.key);
          return last.statusCode === 401;
        },
        5_000 - (Date.now() - revokedAt),
        () => `round ${round}: 401 revoked_api_key (last answer ${last?.statusCode})`,
      );
      expect(last!.json().error.code).toBe('revoked_api_key');
      // And it stays refused: a stale record cached late would bring it back.
      const end = Date.now() + 1_500;
      while (Date.now() < end) {
        const res = await me(k.key);
        expect(res.statusCode, `round ${round}: ${res.body}`).toBe(401);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }, 120_000);
});
