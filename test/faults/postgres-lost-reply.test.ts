/**
 * A usage commit whose reply is lost (docs/decisions.md, 59). Two instances on
 * PostgreSQL through a TCP relay, with Redis, clients on /v1/rates/latest. The
 * relay lets a usage commit through to PostgreSQL, which applies it, and from
 * that moment drops every reply: the instances cannot tell whether their
 * commits were applied until the link heals. Afterwards the stored usage is
 * exactly the number of 200 answers, its days add up to it, and the Redis
 * month counter agrees with it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, redisMonth, seed, storedUsage } from './support.js';

describe.runIf(POSTGRES_URL && REDIS_URL)('a lost COMMIT reply (PostgreSQL + Redis, two instances)', () => {
  let db: Database;
  let proxy: TcpProxy;
  const instances: Instance[] = [];
  const prefix = `mdsfault:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const target = new URL(POSTGRES_URL!);
    proxy = await startProxy(target.hostname, Number(target.port || 5432), { delayMs: { up: 0, down: 0 } });
  });

  afterAll(async () => {
    for (const i of instances) await i.close().catch(() => {});
    await proxy?.close();
    await db?.drop();
  });

  it('bills exactly the requests answered 200, and Redis agrees with the store', async () => {
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const redis = { url: REDIS_URL!, prefix };
    instances.push(await instance(viaProxy.toString(), redis));
    const { key, grantId } = await seed(instances[0]!.runtime.services.store);
    instances.push(await instance(viaProxy.toString(), redis));
    const load = new Load(() => instances.map((i) => i.app), key, 8);
    try {
      await load.moreOk(300);
      // A usage commit reaches PostgreSQL (its named statement's Bind names it) and is
      // applied; its reply, and every reply after it, is dropped.
      // Round 1: the link heals 6 s later, after the commits in flight timed out
      // (query_timeout, 5 s) and while their requests still wait for the answer.
      await proxy.dropRepliesAfter((chunk) => chunk.includes('mds_add_usage'));
      await new Promise((r) => setTimeout(r, 6_000));
      proxy.heal();
      await load.moreOk(300);
      // Round 2: the link heals only once requests were answered 503: their
      // commits' outcome is learnt later, and acted on then.
      await proxy.dropRepliesAfter((chunk) => chunk.includes('mds_add_usage'));
      await waitFor(() => load.unavailable > 0, { timeout: 15_000, what: 'a 503 while replies are lost' });
      proxy.heal();
      await load.moreOk(300);
      console.log(`lost replies: ${load.ok} answers 200, ${load.unavailable} 503`);
    } finally {
      await load.stop();
    }
    for (const i of instances) await i.runtime.recorder.flush();
    expect(load.wrong).toEqual([]);
    const stored = await storedUsage(db.url, grantId);
    expect(stored.used).toBe(load.ok);
    expect(stored.daily).toBe(stored.used);
    // Redis is set back to the store once both answer (a sweep after the failure).
    await waitFor(async () => (await redisMonth(REDIS_URL!, prefix, grantId)) === stored.used, {
      timeout: 10_000,
      what: `Redis month counter = ${stored.used}`,
    });
    for (const i of instances) await i.close();
  }, 60_000);
});
