/**
 * The PostgreSQL link under load (docs/reliability.md, Faults and what is
 * promised): cut, slowed, and losing replies, on both PostgreSQL topologies,
 * two instances each: without Redis (the store limiter counts in PostgreSQL)
 * and with Redis. Every answer is a 200 or a 503 with Retry-After; service
 * resumes within 10 s of the fault's end; the stored usage equals the answers
 * 200, its days add up to it, and with Redis the month counter agrees.
 * (The lost reply with Redis is test/faults/postgres-lost-reply.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, redisMonth, seed, storedUsage } from './support.js';

const RESUME_WITHIN_MS = 10_000;
const topologies = [
  { name: 'store limiter', redis: false },
  ...(REDIS_URL ? [{ name: 'Redis', redis: true }] : []),
];

describe.runIf(POSTGRES_URL).each(topologies)('the PostgreSQL link, $name', ({ redis }) => {
  let db: Database;
  let proxy: TcpProxy;
  let instances: Instance[] = [];
  const prefix = `mdsfault:${randomBytes(4).toString('hex')}:`;

  afterEach(async () => {
    for (const i of instances) await i.close().catch(() => {});
    instances = [];
    await proxy?.close();
    await db?.drop();
  });
  afterAll(async () => {
    for (const i of instances) await i.close().catch(() => {});
  });

  async function underLoad(fault: (load: Load) => Promise<void>): Promise<void> {
    db = await freshDatabase('postgres');
    const target = new URL(POSTGRES_URL!);
    proxy = await startProxy(target.hostname, Number(target.port || 5432), { delayMs: { up: 0, down: 0 } });
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const r = redis ? { url: REDIS_URL!, prefix } : undefined;
    instances.push(await instance(viaProxy.toString(), r));
    const { key, grantId } = await seed(instances[0]!.runtime.services.store);
    instances.push(await instance(viaProxy.toString(), r));
    const load = new Load(() => instances.map((i) => i.app), key, 8);
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
    for (const i of instances) await i.runtime.recorder.flush();
    expect(load.wrong).toEqual([]);
    const stored = await storedUsage(db.url, grantId);
    expect(stored.used).toBe(load.ok);
    expect(stored.daily).toBe(load.ok);
    if (redis) {
      await waitFor(async () => (await redisMonth(REDIS_URL!, prefix, grantId)) === load.ok, {
        timeout: 10_000,
        what: `the Redis month counter = the store's ${load.ok}`,
      });
    }
  }

  it('cut for 3 s: 503s, then service resumes and the usage is exact', async () => {
    await underLoad(async (load) => {
      await proxy.cut();
      await waitFor(() => load.unavailable > 0, { timeout: 10_000, what: 'a 503 while the link is cut' });
      await new Promise((r) => setTimeout(r, 3_000)); // the fault's duration
      await proxy.restore();
    });
  }, 60_000);

  it('slowed (300 ms each way for 3 s): the usage is exact', async () => {
    await underLoad(async () => {
      proxy.setDelay({ up: 300, down: 300 });
      await new Promise((r) => setTimeout(r, 3_000)); // the fault's duration
      proxy.setDelay({ up: 0, down: 0 });
    });
  }, 60_000);

  it.runIf(!redis)(
    'a COMMIT applied and its reply lost: the requests are answered as decided',
    async () => {
      await underLoad(async (load) => {
        // The store limiter's check-and-consume is one call of mds_consume_usage in
        // autocommit (docs/decisions.md 74): from the chunk that names it, every reply is
        // lost. Bounded: a relay that never sees it fails the test, it does not hang it.
        let dropping = false;
        void proxy
          .dropRepliesAfter((chunk) => chunk.includes('mds_consume_usage'))
          .then(() => {
            dropping = true;
          });
        await waitFor(() => dropping, {
          timeout: 15_000,
          what: "the store limiter's call through the relay",
        });
        await waitFor(() => load.unavailable > 0, { timeout: 15_000, what: 'a 503 while replies are lost' });
        proxy.heal();
      });
    },
    60_000,
  );
});
