/**
 * Admin changes reach a running server within 2 seconds (decisions §3, §11):
 * a real `mds serve` process, changed from outside by the `mds` CLI, as an
 * operator would. Each key is used first, so the server has it cached.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import type { Store } from '../../src/storage/store.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { conformingFetch } from '../support/openapi.js';
import { CLI, getJson, type ServerProcess, spawnServer } from '../support/server-process.js';

const run = promisify(execFile);
const WITHIN_MS = 2_000;

/** The parts of the CLI's --json documents these tests read. */
interface CliDoc {
  key?: string;
  publicId?: string;
  prefix?: string;
  status?: string;
  grant?: { status: string };
}

describe.each(backends())('admin changes reach a running server on $name', (backend) => {
  let db: Database;
  let store: Store;
  let server: ServerProcess;

  /** Runs `mds <args> --db <url> --json` and returns its JSON document. */
  const mds = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [CLI, ...args, '--db', db.url, '--json'], {
      env: { ...process.env, MDS_LOG_LEVEL: 'warn' },
    });
    return JSON.parse(stdout) as CliDoc;
  };

  const newKey = async () => {
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'test',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 100_000,
    });
    const k = await createKey(store, { grantId: grant.id });
    return { key: k.key, publicId: k.publicId, grantId: grant.id };
  };

  /**
   * Polls until `done` holds; returns the milliseconds it took. Every answer
   * before that must be `before` (the old behaviour), never something else.
   */
  const until = async (
    url: string,
    key: string,
    done: (r: Awaited<ReturnType<typeof getJson>>) => boolean,
    before: number,
  ) => {
    const start = performance.now();
    for (;;) {
      const r = await getJson(`${server.url}${url}`, key);
      const elapsed = performance.now() - start;
      if (done(r)) return { elapsed, r };
      expect(r.status, JSON.stringify(r.body)).toBe(before);
      if (elapsed > WITHIN_MS + 3_000) return { elapsed, r };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    db = await freshDatabase(backend.name);
    store = db.open();
    await store.migrate();
    server = await spawnServer({ db: db.url, redisUrl: backend.redisUrl, redisPrefix: backend.redisPrefix });
  });
  afterAll(async () => {
    await server?.stop();
    await store?.close();
    await db?.drop();
    if (backend.redisUrl) {
      const r = new Redis(backend.redisUrl);
      const keys = await r.keys(`${backend.redisPrefix}*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
  });

  it('refuses a key revoked with `mds keys revoke` within 2 s: 401 revoked_api_key', async () => {
    const k = await newKey();
    expect((await getJson(`${server.url}/v1/assets`, k.key)).status).toBe(200);
    const out = await mds('keys', 'revoke', k.publicId);
    expect(out).toMatchObject({ publicId: k.publicId, status: 'revoked' });
    const { elapsed, r } = await until('/v1/assets', k.key, (x) => x.status === 401, 200);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('revoked_api_key');
    expect(elapsed).toBeLessThan(WITHIN_MS);
  });

  it('refuses a grant suspended with `mds grants update --status suspended` within 2 s, and reopens it', async () => {
    const k = await newKey();
    expect((await getJson(`${server.url}/v1/me`, k.key)).status).toBe(200);
    const out = await mds('grants', 'update', k.grantId, '--status', 'suspended');
    expect(out.grant?.status).toBe('suspended');
    const suspended = await until('/v1/me', k.key, (x) => x.status === 403, 200);
    expect(suspended.r.body.error.code).toBe('grant_inactive');
    expect(suspended.elapsed).toBeLessThan(WITHIN_MS);

    await mds('grants', 'update', k.grantId, '--status', 'active');
    const active = await until('/v1/me', k.key, (x) => x.status === 200, 403);
    expect(active.r.body.data.grant.status).toBe('active');
    expect(active.elapsed).toBeLessThan(WITHIN_MS);
  });

  it('accepts a key created with `mds keys create` while the server runs within 2 s', async () => {
    const k = await newKey();
    expect((await getJson(`${server.url}/v1/assets`, k.key)).status).toBe(200);
    const out = await mds(
      'keys',
      'create',
      '--grant',
      k.grantId,
      '--label',
      'fresh',
      '--scopes',
      'usage:read',
    );
    expect(out.key).toMatch(new RegExp(`^mds_live_${out.publicId}_[0-9A-Za-z]{49}$`));
    expect(out.prefix).toBe(`mds_live_${out.publicId}`);
    const { elapsed, r } = await until('/v1/me', out.key!, (x) => x.status === 200, 401);
    expect(r.status).toBe(200);
    expect(r.body.data.key).toMatchObject({ publicId: out.publicId, label: 'fresh', scopes: ['usage:read'] });
    expect(elapsed).toBeLessThan(WITHIN_MS);
  });

  it('applies new grant scopes and limits from `mds grants update` within 2 s', async () => {
    const k = await newKey();
    expect((await getJson(`${server.url}/v1/assets`, k.key)).status).toBe(200);
    await mds('grants', 'update', k.grantId, '--scopes', 'usage:read,rates:read', '--rpm', '42');
    const narrowed = await until('/v1/assets', k.key, (x) => x.status === 403, 200);
    expect(narrowed.r.body.error.code).toBe('insufficient_scope');
    expect(narrowed.r.body.error.details).toEqual([{ entitlement: 'assets:read' }]);
    expect(narrowed.elapsed).toBeLessThan(WITHIN_MS);
    const { res } = await conformingFetch(`${server.url}/v1/rates/latest`, {
      headers: { authorization: `Bearer ${k.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('42');
    expect(res.headers.get('ratelimit-policy')).toBe('42;w=60');
  });
});
