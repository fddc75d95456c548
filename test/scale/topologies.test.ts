/**
 * Every topology the service accepts keeps the limits exact, and the one it
 * cannot keep exact is refused: real `mds serve` processes, as an
 * operator runs them, on PostgreSQL without Redis, on a Redis Cluster the test
 * starts itself, and on one SQLite file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { keyOnNewGrant } from '../support/keys.js';
import { conformingFetch } from '../support/openapi.js';
import { clusterToolsAvailable, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { withinOneMinute } from '../support/wait.js';

const newKey = async (store: Store, rpm: number, monthly: number) =>
  (await keyOnNewGrant(store, { rpm, monthly })).key;

/** `count` concurrent requests spread over the instances; the statuses, sorted. */
async function burst(servers: ServerProcess[], key: string, count: number): Promise<number[]> {
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { res } = await conformingFetch(`${servers[i % servers.length]!.url}/v1/assets`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return res.status;
    }),
  );
  return statuses.sort();
}

const tally = (statuses: number[]) => ({
  ok: statuses.filter((s) => s === 200).length,
  refused: statuses.filter((s) => s === 429).length,
});

describe.runIf(POSTGRES_URL)('two instances on PostgreSQL without Redis', () => {
  let db: Database;
  let store: Store;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 5 }));
    for (let i = 0; i < 2; i++) servers.push(await spawnServer({ db: db.url }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await store?.close();
    await db?.drop();
  });

  it('lets exactly the per-minute limit through across both', async () => {
    await withinOneMinute();
    const key = await newKey(store, 10, 1_000_000);
    expect(tally(await burst(servers, key, 40))).toEqual({ ok: 10, refused: 30 });
  });

  it('lets exactly the monthly quota through across both', async () => {
    await withinOneMinute();
    const key = await newKey(store, 1_000, 15);
    expect(tally(await burst(servers, key, 40))).toEqual({ ok: 15, refused: 25 });
    const { res, text } = await conformingFetch(`${servers[0]!.url}/v1/assets`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(429);
    expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('quota_exceeded');
  });
});

describe.runIf(POSTGRES_URL)('two instances on a Redis Cluster', async () => {
  const tools = await clusterToolsAvailable();
  let cluster: RedisCluster;
  let db: Database;
  let store: Store;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    if (!tools) throw new Error('redis-server and redis-cli are needed to start a Redis Cluster');
    cluster = await startRedisCluster(3);
    db = await freshDatabase('postgres');
    store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 5 }));
    const redisPrefix = `mdstest:${randomBytes(4).toString('hex')}:`;
    for (let i = 0; i < 2; i++)
      servers.push(
        await spawnServer({
          db: db.url,
          redisUrl: cluster.url,
          redisPrefix,
          env: { MDS_REDIS_CLUSTER: '1' },
        }),
      );
  }, 90_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await cluster?.stop();
    await store?.close();
    await db?.drop();
  });

  it('lets exactly the per-minute limit of each grant through, grants spread over the slots', async () => {
    await withinOneMinute();
    // Several grants: their hash tags land on different nodes of the cluster.
    const keys = await Promise.all(Array.from({ length: 4 }, () => newKey(store, 10, 1_000_000)));
    const results = await Promise.all(keys.map((key) => burst(servers, key, 30)));
    for (const statuses of results) expect(tally(statuses)).toEqual({ ok: 10, refused: 20 });
  });

  it('reports ready only while every master answers', async () => {
    expect((await fetch(`${servers[0]!.url}/readyz`)).status).toBe(200);
    // A master down: its slots' grants cannot be counted, so the instance is not ready.
    await cluster.killNode(2);
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await fetch(`${servers[0]!.url}/readyz`)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(503);
  });
});

describe('two serve processes on one SQLite file', () => {
  let dir: string;
  let file: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-topology-'));
    file = join(dir, 'mds.sqlite');
    const store = openStore(file);
    await store.migrate();
    await store.close();
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the second process, saying why and what to set', async () => {
    servers.push(await spawnServer({ db: file }));
    const second = spawnServer({ db: file });
    await expect(second).rejects.toThrow(/exited with 2/);
    await expect(second).rejects.toThrow(/another mds serve \(pid \d+/);
    await expect(second).rejects.toThrow(/MDS_REDIS_URL/);
    // The first one still serves.
    expect((await fetch(`${servers[0]!.url}/healthz`)).status).toBe(200);
  });

  it('lets a restart take over after the holder was killed', async () => {
    await servers.pop()!.kill();
    servers.push(await spawnServer({ db: file }));
    expect((await fetch(`${servers[0]!.url}/healthz`)).status).toBe(200);
  });

  it.runIf(REDIS_URL)('accepts several processes when Redis counts the limits', async () => {
    const prefix = `mdstest:${randomBytes(4).toString('hex')}:`;
    await servers.pop()!.stop();
    servers.push(await spawnServer({ db: file, redisUrl: REDIS_URL, redisPrefix: prefix }));
    servers.push(await spawnServer({ db: file, redisUrl: REDIS_URL, redisPrefix: prefix }));
    const store = openStore(file);
    try {
      await withinOneMinute();
      const key = await newKey(store, 10, 1_000_000);
      expect(tally(await burst(servers, key, 30))).toEqual({ ok: 10, refused: 20 });
    } finally {
      await store.close();
    }
  });
});
