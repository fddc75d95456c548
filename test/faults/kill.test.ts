/**
 * `kill -9` of a serving process (docs/reliability.md, Faults and what is
 * promised), on SQLite, PostgreSQL with Redis and PostgreSQL without it.
 * Monthly usage is durable (decisions §5): a real `mds serve` process answers a
 * burst, is killed with SIGKILL, and the restarted server (and the store
 * itself) count exactly the units that were answered with 200 or 404: none
 * lost, none extra. Requests refused with 400 or 401 count nothing.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthPeriod } from '../../src/domain/dates.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import type { Store } from '../../src/storage/store.js';
import { type Backend, backends, type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { SAMPLE_END } from '../support/harness.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';

/** A mix of answers: 200s, 404s (both consume), 400s and 401s (neither does). */
const MIX = [
  { path: '/v1/assets', withKey: true },
  { path: '/v1/rates/latest?currency=EUR,USD', withKey: true },
  { path: '/v1/rates/history?currency=ZZZ', withKey: true }, // 404 not_found
  { path: '/v1/gold/latest', withKey: true },
  { path: '/v1/assets?type=bogus', withKey: true }, // 400
  { path: '/v1/assets', withKey: false }, // 401
  { path: '/v1/rates/history?currency=EUR&limit=5', withKey: true },
];

interface Tally {
  counted: number;
  statuses: Record<number, number>;
  failed: number;
}

async function send(base: string, key: string, i: number, tally: Tally): Promise<void> {
  const m = MIX[i % MIX.length]!;
  try {
    const res = await fetch(`${base}${m.path}`, {
      headers: m.withKey ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
    if (res.status === 200 || res.status === 404) tally.counted++;
  } catch {
    tally.failed++;
  }
}

/** Every topology the service accepts for one process: SQLite, PostgreSQL with Redis, PostgreSQL without it. */
const topologies = [
  ...backends().map((b) => ({ ...b, label: b.redisUrl ? `${b.name} + Redis` : b.name })),
  ...(POSTGRES_URL ? [{ name: 'postgres' as const, label: 'postgres, store limiter' }] : []),
] as Array<Backend & { label: string }>;

describe.each(topologies)('durable monthly usage across SIGKILL on $label', (backend) => {
  let db: Database;
  let store: Store;
  let server: ServerProcess | undefined;
  const start = (): Promise<ServerProcess> =>
    spawnServer({ db: db.url, redisUrl: backend.redisUrl, redisPrefix: backend.redisPrefix });

  const newKey = async () => {
    const account = await createAccount(store, { name: 'Durability' });
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'test',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 100_000,
    });
    const k = await createKey(store, { grantId: grant.id });
    return { key: k.key, grantId: grant.id };
  };
  const usage = (grantId: string) => store.usage.getUsage(grantId, monthPeriod(Date.now()).key);

  const clearRedis = async () => {
    if (!backend.redisUrl) return;
    const r = new Redis(backend.redisUrl);
    const keys = await r.keys(`${backend.redisPrefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  };

  beforeAll(async () => {
    db = await freshDatabase(backend.name);
    store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: SAMPLE_END, days: 40 }));
  });
  afterAll(async () => {
    await server?.kill();
    await store?.close();
    await db?.drop();
    await clearRedis();
  });

  it('counts exactly the 200 and 404 answers of a finished burst after a SIGKILL and restart', {
    timeout: 60_000,
  }, async () => {
    const { key, grantId } = await newKey();
    server = await start();
    const tally: Tally = { counted: 0, statuses: {}, failed: 0 };
    // 200 requests: 80 one after another, then 120 in waves of 40 concurrent.
    for (let i = 0; i < 80; i++) await send(server.url, key, i, tally);
    for (let w = 0; w < 3; w++)
      await Promise.all(Array.from({ length: 40 }, (_, j) => send(server!.url, key, 80 + w * 40 + j, tally)));
    expect(tally.failed).toBe(0);
    expect(tally.statuses[200]).toBeGreaterThan(100);
    expect(tally.statuses[404]).toBeGreaterThan(20);
    expect(tally.statuses[400]).toBeGreaterThan(20);
    expect(tally.statuses[401]).toBeGreaterThan(20);
    expect(Object.keys(tally.statuses).sort()).toEqual(['200', '400', '401', '404']);

    await server.kill();
    expect(server.proc.signalCode).toBe('SIGKILL');
    // What the store holds, without any server: exactly what was answered.
    expect(await usage(grantId)).toBe(tally.counted);

    server = await start();
    const me = await getJson(`${server.url}/v1/me`, key);
    expect(me.status).toBe(200);
    expect(me.body.data.usage.requestsUsed - 1).toBe(tally.counted);
    expect(me.body.data.usage.requestsRemaining).toBe(1_000_000 - tally.counted - 1);

    if (backend.redisUrl) {
      // Redis forgets its counters too: the count comes back from the store alone.
      await clearRedis();
      const again = await getJson(`${server.url}/v1/me`, key);
      expect(again.body.data.usage.requestsUsed - 2).toBe(tally.counted);
    }
    await server.kill();
    server = undefined;
  });

  it('loses no answered unit when killed in the middle of a burst', { timeout: 60_000 }, async () => {
    const { key, grantId } = await newKey();
    server = await start();
    const tally: Tally = { counted: 0, statuses: {}, failed: 0 };
    const base = server.url;
    let sent = 0;
    let killed = false;
    // Ten concurrent senders, each sending until the server is gone; kill after ~120 answers.
    const workers = Array.from({ length: 10 }, async () => {
      while (!killed && sent < 2_000) {
        const i = sent++;
        await send(base, key, i, tally);
        if (!killed && tally.counted >= 120) {
          killed = true;
          await server!.kill();
        }
      }
    });
    await Promise.all(workers);
    const lostInFlight = tally.failed;
    expect(killed, JSON.stringify(tally)).toBe(true);
    expect(tally.counted).toBeGreaterThanOrEqual(120);
    expect(lostInFlight).toBeLessThanOrEqual(10);

    const stored = await usage(grantId);
    // Every answered unit is durable; at most the requests cut off in flight add to it.
    expect(stored).toBeGreaterThanOrEqual(tally.counted);
    expect(stored).toBeLessThanOrEqual(tally.counted + lostInFlight);

    server = await start();
    const me = await getJson(`${server.url}/v1/me`, key);
    expect(me.status).toBe(200);
    const used = me.body.data.usage.requestsUsed - 1;
    if (backend.redisUrl) {
      // Redis counts a unit before the store commits it, so a unit cut off in
      // flight may be counted there; an answered one is never missing.
      expect(used).toBeGreaterThanOrEqual(tally.counted);
      expect(used).toBeLessThanOrEqual(tally.counted + lostInFlight);
    } else {
      expect(used).toBe(stored);
    }
    await server.kill();
    server = undefined;
  });
});
