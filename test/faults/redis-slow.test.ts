/**
 * A slow Redis under load, PostgreSQL with Redis (docs/reliability.md, Faults
 * and what is promised): every byte to and from Redis delayed through a TCP
 * relay, first well inside the limiter's 2 s command timeout (answers slower,
 * all 200), then past it (503 with Retry-After while the scripts still reach
 * Redis and run there late). Service resumes within 10 s of the link's
 * return; the stored usage equals the answers 200, and the Redis month
 * counter ends equal to the store (docs/decisions.md, 59).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, PrivateRedis, redisMonth, seed, storedUsage } from './support.js';

const RESUME_WITHIN_MS = 10_000;

describe.runIf(POSTGRES_URL)('a slow Redis (PostgreSQL + Redis)', () => {
  let db: Database;
  let redis: PrivateRedis;
  let relay: TcpProxy;
  let server: Instance;
  let key: string;
  let grantId: string;
  let answered = 0;
  const prefix = `mdsfault:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    redis = await PrivateRedis.start();
    relay = await startProxy('127.0.0.1', redis.port, { delayMs: { up: 0, down: 0 } });
    server = await instance(db.url, { url: `redis://127.0.0.1:${relay.port}`, prefix });
    ({ key, grantId } = await seed(server.runtime.services.store));
  }, 30_000);

  afterAll(async () => {
    await server?.close().catch(() => {});
    await relay?.close();
    await redis?.kill();
    await db?.drop();
  });

  async function settled(load: Load): Promise<void> {
    await server.runtime.recorder.flush();
    answered += load.ok;
    expect(load.wrong).toEqual([]);
    const stored = await storedUsage(db.url, grantId);
    expect(stored.used).toBe(answered);
    expect(stored.daily).toBe(answered);
    await waitFor(async () => (await redisMonth(redis.url, prefix, grantId)) === answered, {
      timeout: 10_000,
      what: `the Redis month counter equal to the store's ${answered}`,
    });
  }

  it('slowed inside the command timeout: slower answers, every one a 200', async () => {
    const load = new Load(() => [server.app], key, 8);
    try {
      await load.moreOk(100);
      relay.setDelay({ up: 150, down: 150 });
      const before = load.ok;
      await load.moreOk(40, 20_000);
      relay.setDelay({ up: 0, down: 0 });
      await load.moreOk(100);
      console.log(`${load.ok - before} answers 200 through the slow link`);
    } finally {
      relay.setDelay({ up: 0, down: 0 });
      await load.stop();
    }
    expect(load.unavailable).toBe(0);
    await settled(load);
  }, 60_000);

  it('slowed past the command timeout: 503s, then service and the month counter back', async () => {
    const load = new Load(() => [server.app], key, 8);
    try {
      await load.moreOk(100);
      relay.setDelay({ up: 1_500, down: 1_500 });
      await waitFor(() => load.unavailable > 0, { timeout: 15_000, what: 'a 503 while Redis answers late' });
      relay.setDelay({ up: 0, down: 0 });
      const ended = performance.now();
      await load.moreOk(100, RESUME_WITHIN_MS + 3_000); // bytes already queued still take their 3 s
      console.log(`resumed ${Math.round(performance.now() - ended)} ms after the link was fast again`);
    } finally {
      relay.setDelay({ up: 0, down: 0 });
      await load.stop();
    }
    expect(load.unavailable).toBeGreaterThan(0);
    await settled(load);
  }, 60_000);
});
