/**
 * The usage repository's contract, on every backend: monthly counts added
 * durably, and the store limiter's check-and-consume exact across
 * connections. (Days, statements and commit outcomes:
 * usage-records.contract.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/store.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const DAY = 86_400_000;

describe.each(backends())('usage repository on $name', ({ name }) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
    await store.migrate();
    await store.access.createAccount({ id: 'acc_1', name: 'A', email: 'a@example.com', createdAt: T0 });
    await store.access.createGrant({
      id: 'grt_1',
      accountId: 'acc_1',
      provider: 'manual',
      plan: 'pro',
      status: 'active',
      scopes: ['read', 'assets:read'],
      validFrom: T0,
      validUntil: T0 + 365 * DAY,
      monthlyRequestLimit: 1000,
      requestsPerMinute: 10,
      createdAt: T0,
      updatedAt: T0,
    });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('adds usage durably per grant and period', async () => {
    expect(await store.usage.getUsage('grt_1', '2026-11')).toBe(0);
    await store.usage.addUsage(
      [
        { grantId: 'grt_1', period: '2026-11', count: 3 },
        { grantId: 'grt_1', period: '2026-12', count: 1 },
      ],
      T0,
    );
    await store.usage.addUsage([{ grantId: 'grt_1', period: '2026-11', count: 2 }], T0);
    expect(await store.usage.getUsage('grt_1', '2026-11')).toBe(5);
    expect(await store.usage.getUsage('grt_1', '2026-12')).toBe(1);
  });

  it('checks and consumes exactly across connections (the store limiter of several instances)', async () => {
    const other = db.open();
    try {
      const W = Date.UTC(2026, 10, 20, 8, 0);
      const req = (count: number, window = W) => ({
        grantId: 'grt_1',
        period: '2026-10',
        window,
        requestsPerMinute: 10,
        monthlyRequestLimit: 25,
        count,
      });
      // Two connections (two instances) race batches for one grant: exactly 10 pass the minute.
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? store : other).usage.consumeUsage([req(3)], W + i)),
      );
      expect(outcomes.flat().reduce((n, o) => n + o.allowed, 0)).toBe(10);
      expect(await store.usage.getMinuteUsage('grt_1', W)).toBe(10);
      expect(await store.usage.getUsage('grt_1', '2026-10')).toBe(10);
      // The next window starts afresh; the month goes on counting, up to its limit.
      const [next] = await other.usage.consumeUsage([req(20, W + 60_000)], W + 60_000);
      expect(next).toEqual({ window: W + 60_000, minuteUsed: 0, monthUsed: 10, allowed: 10 });
      const [late] = await store.usage.consumeUsage([req(9, W)], W + 1);
      // A caller still in the old window counts in the newer one the store holds.
      expect(late).toEqual({ window: W + 60_000, minuteUsed: 10, monthUsed: 20, allowed: 0 });
      await store.usage.releaseMinute('grt_1', W + 60_000, 4);
      const [last] = await store.usage.consumeUsage([req(9, W + 60_000)], W + 60_001);
      expect(last).toEqual({ window: W + 60_000, minuteUsed: 6, monthUsed: 20, allowed: 4 });
      expect(await store.usage.getUsage('grt_1', '2026-10')).toBe(24);
    } finally {
      await other.close();
    }
  });
});
