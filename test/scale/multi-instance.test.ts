/**
 * Several stateless instances on one PostgreSQL and one Redis: limits
 * are exact across them, usage is their sum, and a revocation made through one
 * path reaches every instance within 2 seconds.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';
import { withinOneMinute } from '../support/wait.js';

const SCALE_OUT = Boolean(POSTGRES_URL && REDIS_URL);

describe.runIf(SCALE_OUT)('three instances on PostgreSQL and Redis', () => {
  let db: Database;
  let store: Store;
  const servers: ServerProcess[] = [];
  const prefix = `mdstest:${randomBytes(4).toString('hex')}:`;

  const newKey = async (rpm: number) => {
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'test',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: rpm,
    });
    return { grantId: grant.id, ...(await createKey(store, { grantId: grant.id })) };
  };

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 40 }));
    for (let i = 0; i < 3; i++)
      servers.push(await spawnServer({ db: db.url, redisUrl: REDIS_URL, redisPrefix: prefix }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await store?.close();
    await db?.drop();
    const r = new Redis(REDIS_URL!);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it('lets exactly L requests through across all instances, and /v1/me sums them', async () => {
    await withinOneMinute(); // the window must not roll over mid-burst
    const L = 25;
    const { key } = await newKey(L);
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        getJson(`${servers[i % 3]!.url}/v1/rates/latest?currency=EUR`, key),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toBe(L);
    expect(limited).toHaveLength(90 - L);
    expect(limited.every((r) => r.body.error.code === 'rate_limited')).toBe(true);

    // Usage is the sum over instances, whichever instance is asked (after the minute window, /me needs a slot).
    const other = await newKey(100);
    for (let i = 0; i < 6; i++)
      expect((await getJson(`${servers[i % 3]!.url}/v1/assets`, other.key)).status).toBe(200);
    for (const s of servers) {
      const me = await getJson(`${s.url}/v1/me`, other.key);
      expect(me.status).toBe(200);
      expect(me.body.data.usage.requestsUsed).toBeGreaterThanOrEqual(7);
    }
    const last = await getJson(`${servers[0]!.url}/v1/me`, other.key);
    expect(last.body.data.usage.requestsUsed).toBe(6 + 3 + 1);
    expect(await store.usage.getUsage(other.grantId, new Date().toISOString().slice(0, 7))).toBe(10);
  }, 90_000);

  it('refuses a key revoked through one path on every instance within 2 seconds', async () => {
    const { key, publicId } = await newKey(1000);
    for (const s of servers) expect((await getJson(`${s.url}/v1/assets`, key)).status).toBe(200);
    await store.access.revokeKey(publicId, Date.now());
    const started = Date.now();
    const refusedBy = new Set<number>();
    while (refusedBy.size < servers.length && Date.now() - started < 2_000) {
      for (const [i, s] of servers.entries()) {
        const res = await getJson(`${s.url}/v1/assets`, key);
        if (res.status === 401 && res.body.error.code === 'revoked_api_key') refusedBy.add(i);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(refusedBy.size).toBe(servers.length);
  });

  it('serves data imported through the store on every instance within 2 seconds', async () => {
    const { key } = await newKey(1000);
    await store.imports.import({
      kind: 'rates',
      records: [
        {
          currency: 'CHF',
          source: 'transfer',
          buy: 199_990_000,
          sell: 201_010_000,
          updatedAt: Date.now() - 1000,
        },
      ],
    });
    const started = Date.now();
    const seen = new Set<number>();
    while (seen.size < servers.length && Date.now() - started < 2_000) {
      for (const [i, s] of servers.entries()) {
        const res = await getJson(`${s.url}/v1/rates/latest?currency=CHF&source=transfer`, key);
        if (res.body.data?.[0]?.buy === 199.99) seen.add(i);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.size).toBe(servers.length);
  });
});
