/**
 * The market repository's contract, on every backend: the asset directory,
 * rates and gold as the public API reads them, written through imports.
 */
import { describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const DAY = 86_400_000;
const asset = (code: string) => ({
  code,
  symbol: code,
  names: { en: `${code} en`, fr: `${code} fr`, ar: `${code} ar` },
  type: 'currency' as const,
});

describe.each(backends())('market repository on $name', ({ name }) => {
  const store = migratedStore(name);

  it('imports assets idempotently and bumps the data version only on change', async () => {
    const v0 = (await store.versions()).data;
    expect(
      await store.imports.import({ kind: 'assets', records: [asset('EUR'), asset('USD')] }),
    ).toMatchObject({
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    const v1 = (await store.versions()).data;
    expect(v1).toBeGreaterThan(v0);
    expect(
      await store.imports.import({
        kind: 'assets',
        records: [asset('EUR'), { ...asset('USD'), symbol: '$' }],
      }),
    ).toMatchObject({
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    expect(await store.imports.import({ kind: 'assets', records: [asset('EUR')] })).toMatchObject({
      unchanged: 1,
    });
    expect((await store.versions()).data).toBe(v1 + 1);
    expect((await store.market.listAssets()).map((a) => a.code)).toEqual(['EUR', 'USD']);
    expect(await store.imports.unknownAssets(['EUR', 'XXX', 'XXX', 'AAA'])).toEqual(['AAA', 'XXX']);
  });

  it('imports rates with exact counts and round-trips integers exactly', async () => {
    const records = [0, 1, 2, 3, 4].map((d) => ({
      currency: 'EUR',
      source: 'parallel' as const,
      buy: 264_000_000 + d,
      sell: 266_123_456,
      updatedAt: T0 + d * DAY + 123,
    }));
    expect(await store.imports.import({ kind: 'rates', records })).toMatchObject({
      received: 5,
      inserted: 5,
    });
    const again = await store.imports.import({
      kind: 'rates',
      records: [...records.slice(0, 4), { ...records[4]!, sell: 1 }],
    });
    expect(again).toMatchObject({ inserted: 0, updated: 1, unchanged: 4 });
    await store.imports.import({
      kind: 'rates',
      records: [{ currency: 'EUR', source: 'official', buy: 151_200_000, sell: 151_500_000, updatedAt: T0 }],
    });
    const latest = await store.market.latestRates();
    expect(latest).toEqual([
      { currency: 'EUR', source: 'official', buy: 151_200_000, sell: 151_500_000, updatedAt: T0 },
      { currency: 'EUR', source: 'parallel', buy: 264_000_004, sell: 1, updatedAt: T0 + 4 * DAY + 123 },
    ]);
  });

  it('pages rate history newest first by keyset', async () => {
    const q = { currency: 'EUR', source: 'parallel' as const, from: T0 - DAY, to: T0 + 10 * DAY, limit: 2 };
    const first = await store.market.rateHistory(q);
    expect(first.map((r) => r.updatedAt)).toEqual([T0 + 4 * DAY + 123, T0 + 3 * DAY + 123]);
    const second = await store.market.rateHistory({ ...q, before: first[1]!.updatedAt });
    expect(second.map((r) => r.updatedAt)).toEqual([T0 + 2 * DAY + 123, T0 + DAY + 123]);
    const windowed = await store.market.rateHistory({
      ...q,
      from: T0 + DAY,
      to: T0 + 2 * DAY + 123,
      limit: 10,
    });
    expect(windowed).toHaveLength(2);
  });

  it("gives a series' latest observation of each UTC day in a window, newest first", async () => {
    // Several a day on some days, none on others; T0 is 09:00 UTC.
    const at = [T0 - 9 * 3_600_000, T0, T0 + 3_600_000, T0 + 2 * DAY, T0 + 3 * DAY - 9 * 3_600_000 - 1];
    await store.imports.import({
      kind: 'rates',
      records: at.map((updatedAt, i) => ({
        currency: 'USD',
        source: 'official' as const,
        buy: 130_000_000 + i,
        sell: 131_000_000,
        updatedAt,
      })),
    });
    const q = { currency: 'USD', source: 'official' as const, from: T0 - DAY, to: T0 + 10 * DAY };
    const days = await store.market.dailyRates(q);
    // The last instant is 23:59:59.999 of day T0+2 (the day before T0+3 at midnight).
    expect(days.map((r) => [r.updatedAt, r.buy])).toEqual([
      [T0 + 3 * DAY - 9 * 3_600_000 - 1, 130_000_004],
      [T0 + 3_600_000, 130_000_002],
    ]);
    expect(days[0]).toMatchObject({ currency: 'USD', source: 'official', sell: 131_000_000 });
    // The window's ends cut the instants, not the days.
    const cut = await store.market.dailyRates({ ...q, from: T0 - 9 * 3_600_000, to: T0 });
    expect(cut.map((r) => r.updatedAt)).toEqual([T0]);
    expect(await store.market.dailyRates({ ...q, source: 'transfer' })).toEqual([]);
  });

  it('keeps gold in purity order and pages ties by purity', async () => {
    const gold = (['24K', '18K', '21K'] as const).flatMap((purity, i) =>
      [0, 1].map((d) => ({ purity, buy: 30_000_000_000 + i, sell: 31_000_000_000, updatedAt: T0 + d * DAY })),
    );
    expect(await store.imports.import({ kind: 'gold', records: gold })).toMatchObject({ inserted: 6 });
    expect((await store.market.latestGold()).map((g) => g.purity)).toEqual(['18K', '21K', '24K']);
    const q = { from: T0 - DAY, to: T0 + 2 * DAY, limit: 2 };
    const p1 = await store.market.goldHistory(q);
    expect(p1.map((g) => [g.updatedAt, g.purity])).toEqual([
      [T0 + DAY, '18K'],
      [T0 + DAY, '21K'],
    ]);
    const p2 = await store.market.goldHistory({ ...q, after: { updatedAt: T0 + DAY, purity: '21K' } });
    expect(p2.map((g) => [g.updatedAt, g.purity])).toEqual([
      [T0 + DAY, '24K'],
      [T0, '18K'],
    ]);
  });

  it('groups a series by day, week (from Monday) and month in the window, newest first, by keyset', async () => {
    await store.imports.import({ kind: 'assets', records: [asset('IVL')] });
    const at = (iso: string) => Date.parse(iso);
    const r = (iso: string, buy: number, sell: number) => ({
      currency: 'IVL',
      source: 'parallel' as const,
      buy,
      sell,
      updatedAt: at(iso),
    });
    await store.imports.import({
      kind: 'rates',
      records: [
        r('2026-10-30T09:00:00Z', 100, 101), // a Friday: the week of 2026-10-26, October
        r('2026-11-02T09:00:00Z', 103, 104), // a Monday
        r('2026-11-02T18:00:00Z', 99, 100),
        r('2026-11-04T09:00:00Z', 101, 102),
      ],
    });
    const window = {
      currency: 'IVL',
      source: 'parallel' as const,
      from: at('2026-10-01'),
      to: at('2026-11-30'),
    };
    const newer = {
      firstUpdatedAt: at('2026-11-02T09:00:00Z'),
      lastUpdatedAt: at('2026-11-04T09:00:00Z'),
      observations: 3,
      buy: { open: 103, high: 103, low: 99, close: 101 },
      sell: { open: 104, high: 104, low: 100, close: 102 },
    };
    const older = {
      firstUpdatedAt: at('2026-10-30T09:00:00Z'),
      lastUpdatedAt: at('2026-10-30T09:00:00Z'),
      observations: 1,
      buy: { open: 100, high: 100, low: 100, close: 100 },
      sell: { open: 101, high: 101, low: 101, close: 101 },
    };
    // Week keys count Mondays from 1969-12-29 (domain/intervals.ts): 2026-11-02 is day 20 759.
    const week = (20_759 + 3) / 7;
    expect(await store.market.rateIntervals({ ...window, interval: 'week', limit: 10 })).toEqual([
      { key: week, ...newer },
      { key: week - 1, ...older },
    ]);
    expect(await store.market.rateIntervals({ ...window, interval: 'month', limit: 10 })).toEqual([
      { key: 2026 * 12 + 10, ...newer },
      { key: 2026 * 12 + 9, ...older },
    ]);
    const days = await store.market.rateIntervals({ ...window, interval: 'day', limit: 2 });
    expect(days.map((d) => [d.key, d.observations])).toEqual([
      [20_761, 1],
      [20_759, 2],
    ]);
    // The keyset: intervals starting before the previous page's last start.
    const before = at('2026-11-02');
    expect(await store.market.rateIntervals({ ...window, interval: 'week', before, limit: 10 })).toEqual([
      { key: week - 1, ...older },
    ]);
    // Only observations inside the window count.
    const clipped = await store.market.rateIntervals({
      ...window,
      from: at('2026-11-03'),
      interval: 'week',
      limit: 10,
    });
    expect(clipped).toEqual([
      {
        key: week,
        ...newer,
        firstUpdatedAt: at('2026-11-04T09:00:00Z'),
        observations: 1,
        buy: { open: 101, high: 101, low: 101, close: 101 },
        sell: { open: 102, high: 102, low: 102, close: 102 },
      },
    ]);
  });

  it('groups gold by purity and interval, newest first then purity order, by keyset', async () => {
    const at = (iso: string) => Date.parse(iso);
    const g = (purity: '18K' | '21K' | '24K', iso: string, buy: number) => ({
      purity,
      buy,
      sell: buy + 1,
      updatedAt: at(iso),
    });
    await store.imports.import({
      kind: 'gold',
      records: [
        g('18K', '2030-01-31T09:00:00Z', 10),
        g('18K', '2030-02-01T09:00:00Z', 12),
        g('24K', '2030-02-02T09:00:00Z', 20),
      ],
    });
    const window = { from: at('2030-01-01'), to: at('2030-02-28'), interval: 'month' as const };
    const page = await store.market.goldIntervals({ ...window, limit: 10 });
    expect(page.map((i) => [i.purity, i.key, i.observations, i.buy.open, i.sell.close])).toEqual([
      ['18K', 2030 * 12 + 1, 1, 12, 13],
      ['24K', 2030 * 12 + 1, 1, 20, 21],
      ['18K', 2030 * 12, 1, 10, 11],
    ]);
    const after = { start: at('2030-02-01'), purity: '18K' as const };
    const rest = await store.market.goldIntervals({ ...window, after, limit: 10 });
    expect(rest.map((i) => [i.purity, i.key])).toEqual([
      ['24K', 2030 * 12 + 1],
      ['18K', 2030 * 12],
    ]);
  });
});
