/**
 * Redis faults under load, PostgreSQL with Redis (docs/reliability.md, Faults
 * and what is promised): Redis paused past the limiter's command timeout
 * (SIGSTOP), killed, and restarted empty. Every answer is a 200 or a 503 with
 * Retry-After; service resumes within 10 s of the fault's end; the stored
 * usage equals the answers 200; and the Redis month counter ends equal to the
 * store (a stalled script runs when Redis resumes: its units were answered
 * 503, so it is set back to the store's count: docs/decisions.md, 59).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, PrivateRedis, redisMonth, seed, storedUsage } from './support.js';

/** The limiter's command timeout is 2 s (redis-scripts.ts): a pause must outlast it. */
const PAUSE_MS = 3_500;
const RESUME_WITHIN_MS = 10_000;

describe.runIf(POSTGRES_URL)('Redis faults (PostgreSQL + Redis)', () => {
  let db: Database;
  let redis: PrivateRedis;
  let server: Instance;
  let key: string;
  let grantId: string;
  let answered = 0;
  const prefix = `mdsfault:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    redis = await PrivateRedis.start();
    server = await instance(db.url, { url: redis.url, prefix });
    ({ key, grantId } = await seed(server.runtime.services.store));
  }, 30_000);

  afterAll(async () => {
    await server?.close().catch(() => {});
    await redis?.kill();
    await db?.drop();
  });

  /** Runs a load through `fault`, then checks answers, resumption, the store and Redis. */
  async function underLoad(fault: (load: Load) => Promise<void>): Promise<void> {
    const load = new Load(() => [server.app], key, 8);
    try {
      await load.moreOk(200);
      await fault(load);
      const ended = performance.now();
      await load.moreOk(200, RESUME_WITHIN_MS);
      console.log(`resumed ${Math.round(performance.now() - ended)} ms after the fault ended`);
    } finally {
      await load.stop();
    }
    await server.runtime.recorder.flush();
    answered += load.ok;
    expect(load.wrong).toEqual([]);
    expect(load.unavailable).toBeGreaterThan(0);
    const stored = await storedUsage(db.url, grantId);
    expect(stored.used).toBe(answered);
    expect(stored.daily).toBe(answered);
    await waitFor(async () => (await redisMonth(redis.url, prefix, grantId)) === answered, {
      timeout: 10_000,
      what: `the Redis month counter back to the store's ${answered}`,
    });
  }

  it('paused past the command timeout: 503s, then the month counter is set back to the store', async () => {
    await underLoad(async (load) => {
      redis.pause();
      try {
        await waitFor(() => load.unavailable > 0, { timeout: 10_000, what: 'a 503 while Redis is paused' });
        await new Promise((r) => setTimeout(r, PAUSE_MS)); // the fault's duration
      } finally {
        redis.resume();
      }
    });
  }, 60_000);

  it('killed, then restarted empty: 503s, then counts seeded from the store', async () => {
    await underLoad(async (load) => {
      await redis.kill();
      await waitFor(() => load.unavailable > 0, { timeout: 10_000, what: 'a 503 while Redis is down' });
      await redis.start();
    });
  }, 60_000);
});
