/**
 * Faults of a Redis Cluster under load, PostgreSQL with the cluster counting
 * the limits (docs/reliability.md, Faults and what is promised): the master
 * serving the grant's slot paused past the limiter's command timeout and
 * resumed, then killed and restarted empty. Every answer is a 200 or a 503
 * with Retry-After; service resumes within 10 s of the fault's end (the
 * cluster itself needs its node timeout to agree it is whole again); the
 * stored usage equals the answers 200, and the month counter in the cluster
 * ends equal to the store (docs/decisions.md, 59).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { clusterToolsAvailable, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, redisMonth, seed, storedUsage } from './support.js';

/** The limiter's command timeout is 2 s (redis-scripts.ts): a pause must outlast it. */
const PAUSE_MS = 3_500;
const RESUME_WITHIN_MS = 10_000;

describe.runIf(POSTGRES_URL)('Redis Cluster faults (PostgreSQL + Redis Cluster)', async () => {
  const tools = await clusterToolsAvailable();
  let db: Database;
  let cluster: RedisCluster;
  let servers: Instance[] = [];
  let key: string;
  let grantId: string;
  /** The node serving the grant's slot. */
  let node: number;
  let answered = 0;
  const prefix = `mdsfault:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    if (!tools) throw new Error('redis-server and redis-cli are needed to start a Redis Cluster');
    db = await freshDatabase('postgres');
    cluster = await startRedisCluster(3);
    const redis = { url: cluster.url, prefix, cluster: true };
    servers.push(await instance(db.url, redis));
    ({ key, grantId } = await seed(servers[0]!.runtime.services.store));
    servers.push(await instance(db.url, redis));
    node = await cluster.nodeFor(`${prefix}{${grantId}}:q`);
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => {});
    servers = [];
    await cluster?.stop();
    await db?.drop();
  });

  async function underLoad(fault: (load: Load) => Promise<void>): Promise<void> {
    const load = new Load(() => servers.map((s) => s.app), key, 8);
    try {
      await load.moreOk(200);
      await fault(load);
      const ended = performance.now();
      await load.moreOk(200, RESUME_WITHIN_MS);
      console.log(
        `resumed ${Math.round(performance.now() - ended)} ms after the fault ended; ${load.ok} × 200, ${load.unavailable} × 503`,
      );
    } finally {
      await load.stop();
    }
    for (const s of servers) await s.runtime.recorder.flush();
    answered += load.ok;
    expect(load.wrong).toEqual([]);
    expect(load.unavailable).toBeGreaterThan(0);
    const stored = await storedUsage(db.url, grantId);
    expect(stored.used).toBe(answered);
    expect(stored.daily).toBe(answered);
    // Read on the master itself (no replicas, so the slot never moves).
    const master = `redis://127.0.0.1:${cluster.ports[node]}`;
    await waitFor(async () => (await redisMonth(master, prefix, grantId)) === answered, {
      timeout: 10_000,
      what: `the cluster's month counter back to the store's ${answered}`,
    });
  }

  it('the grant’s master paused past the command timeout: 503s, then the month counter set back to the store', async () => {
    await underLoad(async (load) => {
      cluster.pauseNode(node);
      try {
        await waitFor(() => load.unavailable > 0, {
          timeout: 10_000,
          what: 'a 503 while the master is paused',
        });
        await new Promise((r) => setTimeout(r, PAUSE_MS)); // the fault's duration
      } finally {
        cluster.resumeNode(node);
      }
    });
  }, 60_000);

  it('the grant’s master killed, then restarted empty: 503s, then counts seeded from the store', async () => {
    await underLoad(async (load) => {
      await cluster.killNode(node);
      await waitFor(() => load.unavailable > 0, { timeout: 10_000, what: 'a 503 while the master is down' });
      await cluster.restartNode(node);
    });
  }, 60_000);
});
