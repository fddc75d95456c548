/**
 * The limiter contract, from one file for both implementations: the in-process
 * limiter (embedded default) and the Redis limiter (scale-out).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Limiter, LimiterUnavailableError } from '../../src/limits/limiter.js';
import { MemoryLimiter } from '../../src/limits/memory.js';
import { RedisLimiter } from '../../src/limits/redis.js';
import { StoreLimiter } from '../../src/limits/store-limiter.js';
import { UsageRecorder } from '../../src/limits/usage-recorder.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { waitFor, withinOneMinute } from '../support/wait.js';

interface Variant {
  name: string;
  backend: 'sqlite' | 'postgres';
  redis: boolean;
  /** The store decides (several instances on one store, no Redis). */
  store?: boolean;
}
const variants: Variant[] = [
  { name: 'memory on sqlite', backend: 'sqlite', redis: false },
  // The store limiter runs on PostgreSQL in production; on SQLite it holds the same contract.
  { name: 'store on sqlite', backend: 'sqlite', redis: false, store: true },
];
if (POSTGRES_URL)
  variants.push({ name: 'store on postgres', backend: 'postgres', redis: false, store: true });
if (POSTGRES_URL && REDIS_URL) variants.push({ name: 'redis on postgres', backend: 'postgres', redis: true });
/** Whether limiter instances share their counts (all but the in-process one). */
const shared = (v: Variant) => v.redis || v.store === true;

const NOW = Date.UTC(2026, 10, 22, 10, 15, 30, 250); // 29.75 s before the next minute

describe.each(variants)('limiter contract: $name', (variant) => {
  let db: Database;
  let store: Store;
  const prefix = `mdstest:${Math.random().toString(36).slice(2)}:`;
  const limiters: Limiter[] = [];
  const make = (over: Store = store) => {
    const recorder = new UsageRecorder(over);
    const limiter = variant.redis
      ? RedisLimiter.connect(REDIS_URL!, over.usage, recorder, { prefix, clock: 'caller' })
      : variant.store
        ? new StoreLimiter(over, recorder)
        : new MemoryLimiter(over.usage, recorder);
    limiters.push(limiter);
    return limiter;
  };
  let n = 0;
  const grant = async (rpm: number, monthly: number) => {
    const id = `grt_${variant.backend}_${++n}`;
    if (n === 1) await store.access.createAccount({ id: 'acc', name: null, email: null, createdAt: NOW });
    await store.access.createGrant({
      id,
      accountId: 'acc',
      provider: 'manual',
      plan: 'p',
      status: 'active',
      scopes: ['read'],
      validFrom: 0,
      validUntil: NOW * 2,
      monthlyRequestLimit: monthly,
      requestsPerMinute: rpm,
      createdAt: NOW,
      updatedAt: NOW,
    });
    return { id, requestsPerMinute: rpm, monthlyRequestLimit: monthly };
  };

  beforeAll(async () => {
    db = await freshDatabase(variant.backend);
    store = db.open();
    await store.migrate();
  });
  afterAll(async () => {
    for (const l of limiters) await l.close();
    if (variant.redis) {
      const r = new Redis(REDIS_URL!);
      const keys = await r.keys(`${prefix}*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
    await store?.close();
    await db?.drop();
  });

  it('reports exact remaining counts and reset instants', async () => {
    const limiter = make();
    const g = await grant(3, 10);
    const d = await limiter.consume(g, NOW);
    expect(d).toMatchObject({
      allowed: true,
      minuteLimit: 3,
      minuteRemaining: 2,
      minuteResetAt: Date.UTC(2026, 10, 22, 10, 16),
      monthLimit: 10,
      monthRemaining: 9,
      monthUsed: 1,
      monthStart: Date.UTC(2026, 10, 1),
      monthResetAt: Date.UTC(2026, 11, 1),
    });
    expect(await limiter.peek(g, NOW)).toMatchObject({ minuteRemaining: 2, monthRemaining: 9 });
  });

  it('lets exactly L of many concurrent requests through, across limiter instances', async () => {
    const a = make();
    const b = make();
    const g = await grant(7, 1000);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).consume(g, NOW)));
    expect(results.filter((r) => r.allowed)).toHaveLength(shared(variant) ? 7 : 7 * 2);
  });

  it('answers concurrent requests of several grants as if taken one at a time', async () => {
    // One tick's requests are checked together (one Redis script per tick); each
    // must still see the counts of its own turn.
    const limiter = make();
    const minute = await grant(5, 100);
    const month = await grant(100, 3);
    const both = await grant(4, 4);
    await limiter.consume(both, NOW); // 3 left of each
    const calls = [
      ...Array.from({ length: 12 }, () => ({ g: minute, p: limiter.consume(minute, NOW) })),
      ...Array.from({ length: 6 }, () => ({ g: month, p: limiter.consume(month, NOW) })),
      ...Array.from({ length: 5 }, () => ({ g: both, p: limiter.consume(both, NOW) })),
    ];
    const settled = await Promise.all(calls.map(async (c) => ({ g: c.g, d: await c.p })));
    const of = (g: { id: string }) => settled.filter((s) => s.g === g).map((s) => s.d);
    // Concurrent requests have no order among themselves, but each must get its own turn.
    const desc = (a: number, b: number) => b - a;

    const m = of(minute);
    expect(
      m
        .filter((d) => d.allowed)
        .map((d) => d.minuteRemaining)
        .sort(desc),
    ).toEqual([4, 3, 2, 1, 0]);
    expect(m.filter((d) => !d.allowed)).toHaveLength(7);
    for (const d of m.filter((d) => !d.allowed)) {
      expect(d).toMatchObject({ reason: 'rate_limited', minuteRemaining: 0, monthRemaining: 95 });
    }

    const q = of(month);
    expect(
      q
        .filter((d) => d.allowed)
        .map((d) => d.monthRemaining)
        .sort(desc),
    ).toEqual([2, 1, 0]);
    for (const d of q.filter((d) => !d.allowed)) {
      expect(d).toMatchObject({ reason: 'quota_exceeded', monthRemaining: 0, minuteRemaining: 97 });
    }

    // Both limits end together: the month binds (decisions §1, step 6), as for a lone request.
    const b = of(both);
    expect(
      b
        .filter((d) => d.allowed)
        .map((d) => [d.minuteRemaining, d.monthRemaining])
        .sort((x, y) => y[0]! - x[0]!),
    ).toEqual([
      [2, 2],
      [1, 1],
      [0, 0],
    ]);
    expect(b.filter((d) => !d.allowed).map((d) => [d.reason, d.retryAt])).toEqual([
      ['quota_exceeded', Date.UTC(2026, 11, 1)],
      ['quota_exceeded', Date.UTC(2026, 11, 1)],
    ]);

    expect(await store.usage.getUsage(minute.id, '2026-11')).toBe(5);
    expect(await store.usage.getUsage(month.id, '2026-11')).toBe(3);
    expect(await store.usage.getUsage(both.id, '2026-11')).toBe(4);
  });

  it('refuses the minute window with its reset, then opens the next minute', async () => {
    const limiter = make();
    const g = await grant(2, 1000);
    await limiter.consume(g, NOW);
    await limiter.consume(g, NOW);
    const refused = await limiter.consume(g, NOW);
    expect(refused).toMatchObject({ allowed: false, reason: 'rate_limited', minuteRemaining: 0 });
    expect(refused.retryAt).toBe(Date.UTC(2026, 10, 22, 10, 16));
    expect((await limiter.consume(g, NOW + 30_000)).allowed).toBe(true);
    // Refusals consume nothing.
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(3);
  });

  it('consume resolves an allowed unit once it is durable, and a refusal having counted nothing', async () => {
    const limiter: Limiter = make();
    const g = await grant(1, 1000);
    expect(await limiter.consume(g, NOW, 'key')).toMatchObject({ allowed: true, minuteRemaining: 0 });
    // Counted in the store by the time the allowed unit is resolved.
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(1);
    expect(await limiter.consume(g, NOW, 'key')).toMatchObject({ allowed: false, reason: 'rate_limited' });
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(1);
  });

  it('refuses the monthly quota until the month resets, durably counted', async () => {
    const limiter = make();
    const g = await grant(100, 3);
    for (let i = 0; i < 3; i++) expect((await limiter.consume(g, NOW)).allowed).toBe(true);
    const refused = await limiter.consume(g, NOW);
    expect(refused).toMatchObject({ allowed: false, reason: 'quota_exceeded', monthRemaining: 0 });
    expect(refused.retryAt).toBe(Date.UTC(2026, 11, 1));
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(3);
    // A fresh limiter (restart) starts from the durable count.
    expect((await make().consume(g, NOW)).allowed).toBe(false);
    expect((await make().consume(g, Date.UTC(2026, 11, 1, 0, 0, 1))).allowed).toBe(true);
  });

  it('refuses with the monthly quota, to the month reset, when the minute is exhausted too', async () => {
    // The binding limit wins (docs/decisions.md, §1): the minute's reset would send
    // the client back in seconds, for a month that stays exhausted.
    const limiter = make();
    const g = await grant(3, 3);
    for (let i = 0; i < 3; i++) expect((await limiter.consume(g, NOW)).allowed).toBe(true);
    const refused = await limiter.consume(g, NOW);
    expect(refused).toMatchObject({
      allowed: false,
      reason: 'quota_exceeded',
      minuteRemaining: 0,
      monthRemaining: 0,
      retryAt: Date.UTC(2026, 11, 1),
    });
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(3);
  });

  it('counts nothing of a batch whose usage commit fails, and answers its requests unavailable', async () => {
    const failing = { on: false };
    // The store, but for usage commits that fail while `failing.on` (a full disk, a lost server).
    const usage = new Proxy(store.usage, {
      get(target, name) {
        if ((name === 'addUsage' || name === 'consumeUsage') && failing.on)
          return () => Promise.reject(new Error('no space left on device'));
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const flaky = Object.assign(Object.create(store) as Store, { usage });
    const limiter = make(flaky);
    const g = await grant(5, 100);
    expect(await limiter.consume(g, NOW)).toMatchObject({
      allowed: true,
      minuteRemaining: 4,
      monthRemaining: 99,
    });
    failing.on = true;
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => limiter.consume(g, NOW)));
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(LimiterUnavailableError);
    }
    failing.on = false;
    expect(await limiter.peek(g, NOW)).toMatchObject({ minuteRemaining: 4, monthRemaining: 99 });
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(1);
    expect(await limiter.consume(g, NOW)).toMatchObject({ allowed: true, minuteRemaining: 3, monthUsed: 2 });
  });

  it('gives a refunded unit back', async () => {
    const limiter = make();
    const g = await grant(5, 100);
    await limiter.refund(g, await limiter.consume(g, NOW));
    expect(await limiter.peek(g, NOW)).toMatchObject({ minuteRemaining: 5, monthRemaining: 100 });
    await waitFor(async () => (await store.usage.getUsage(g.id, '2026-11')) === 0, {
      what: 'the give-back stored',
    });
  });

  it('gives a refund back durably: a give-back whose commit fails is retried until it lands', async () => {
    const failing = { on: false };
    const usage = new Proxy(store.usage, {
      get(target, name) {
        if (name === 'addUsage' && failing.on)
          return () => Promise.reject(new Error('connection terminated'));
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const flaky = Object.assign(Object.create(store) as Store, { usage });
    const limiter = make(flaky);
    const g = await grant(5, 100);
    const d = await limiter.consume(g, NOW);
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(1);
    failing.on = true;
    // The answer (a 5xx) may not wait forever, so the first failure is reported …
    await expect(limiter.refund(g, d)).rejects.toThrow();
    failing.on = false;
    // … but the unit still comes off the durable count, without any further request.
    const deadline = Date.now() + 5_000;
    while ((await store.usage.getUsage(g.id, '2026-11')) !== 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(0);
  });

  it('gives a refund back to the window and month it was taken from', async () => {
    const limiter = make();
    const g = await grant(5, 100);
    const d = await limiter.consume(g, Date.UTC(2026, 10, 30, 23, 59, 59, 900));
    // The month turned before the request failed: November gets its unit back, not December.
    await limiter.consume(g, Date.UTC(2026, 11, 1, 0, 0, 0, 100));
    await limiter.refund(g, d);
    expect(await store.usage.getUsage(g.id, '2026-11')).toBe(0);
    expect(await store.usage.getUsage(g.id, '2026-12')).toBe(1);
    expect(await limiter.peek(g, Date.UTC(2026, 11, 1, 0, 0, 0, 200))).toMatchObject({ minuteRemaining: 4 });
  });

  it.runIf(variant.store === true)(
    'never moves a window backwards for an instance whose clock is behind',
    async () => {
      const ahead = make();
      const behind = make();
      const g = await grant(3, 100);
      // NOW is 29.75 s before the next minute; one instance is already in it.
      expect(await ahead.consume(g, NOW + 30_000)).toMatchObject({ allowed: true, minuteRemaining: 2 });
      const d = await behind.consume(g, NOW);
      expect(d).toMatchObject({
        allowed: true,
        minuteRemaining: 1,
        minuteResetAt: Date.UTC(2026, 10, 22, 10, 17),
      });
    },
  );

  it.runIf(variant.redis)("takes its windows from Redis, whatever the instances' clocks say", async () => {
    const recorder = new UsageRecorder(store);
    const a = RedisLimiter.connect(REDIS_URL!, store.usage, recorder, { prefix });
    const b = RedisLimiter.connect(REDIS_URL!, store.usage, recorder, { prefix });
    limiters.push(a, b);
    const g = await grant(4, 1000);
    await withinOneMinute(5_000); // the assertion is about one window
    // One instance's clock is 40 s fast, the other's 40 s slow: both would name
    // different windows from their own clocks, and each would let 4 through.
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).consume(g, Date.now() + (i % 2 ? 40_000 : -40_000)),
      ),
    );
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(4);
    const resets = new Set(outcomes.map((o) => o.minuteResetAt));
    expect(resets.size).toBe(1);
    const redisNow = outcomes[0]!.at;
    expect(Math.abs(redisNow - Date.now())).toBeLessThan(5_000);
    expect([...resets][0]).toBe(redisNow - (redisNow % 60_000) + 60_000);
    expect((await a.peek(g, Date.now() + 40_000)).minuteRemaining).toBe(0);
  });

  it.runIf(variant.redis)('recovers the true monthly count after Redis loses its memory', async () => {
    const limiter = make();
    const g = await grant(100, 10);
    for (let i = 0; i < 4; i++) await limiter.consume(g, NOW);
    const r = new Redis(REDIS_URL!);
    const keys = await r.keys(`${prefix}*${g.id}*`);
    await r.del(...keys);
    r.disconnect();
    const d = await limiter.consume(g, NOW);
    expect(d).toMatchObject({ allowed: true, monthUsed: 5, monthRemaining: 5 });
  });

  it.runIf(variant.redis)(
    'a refund after Redis lost the counters leaves them to be seeded again',
    async () => {
      const limiter = make();
      const g = await grant(100, 10);
      let last = await limiter.consume(g, NOW);
      for (let i = 0; i < 2; i++) last = await limiter.consume(g, NOW);
      const r = new Redis(REDIS_URL!);
      try {
        await r.del(...(await r.keys(`${prefix}*${g.id}*`)));
        await limiter.refund(g, last);
        // No counter at -1 (and without an expiry) is left behind by the give-back …
        expect(await r.keys(`${prefix}*${g.id}*`)).toEqual([]);
      } finally {
        r.disconnect();
      }
      // … so the month is seeded from the store: 3 consumed, 1 refunded, then this one.
      await waitFor(async () => (await store.usage.getUsage(g.id, '2026-11')) === 2, {
        what: 'the give-back stored',
      });
      expect(await limiter.consume(g, NOW)).toMatchObject({ allowed: true, monthUsed: 3, monthRemaining: 7 });
    },
  );
});
