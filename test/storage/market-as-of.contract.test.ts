/**
 * The market repository's reads behind `change` and `at=` (decisions 122,
 * 123), on every backend: each series as of an instant with the newest
 * observation before the start of that one's UTC day, at most 7 days before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const at = (day: number, h: number, m = 0, s = 0, ms = 0) => Date.UTC(2026, 10, day, h, m, s, ms);
const M = 1_000_000;
const asset = (code: string) => ({
  code,
  symbol: code,
  names: { en: `${code} en`, fr: `${code} fr`, ar: `${code} ar` },
  type: 'currency' as const,
});
const rate = (currency: string, source: 'parallel' | 'official', updatedAt: number, buy: number) => ({
  currency,
  source,
  buy: buy * M,
  sell: (buy + 2) * M,
  updatedAt,
});

describe.each(backends())('market as-of reads on $name', ({ name }) => {
  const store = migratedStore(name);

  beforeAll(async () => {
    await store.imports.import({ kind: 'assets', records: ['EUR', 'GBP', 'USD'].map(asset) });
    await store.imports.import({
      kind: 'rates',
      records: [
        // Thursday 19, Friday 20 (twice), Monday 23 November 2026 (twice): a weekend gap.
        rate('EUR', 'parallel', at(19, 10), 250),
        rate('EUR', 'parallel', at(20, 9), 251),
        rate('EUR', 'parallel', at(20, 15), 252),
        rate('EUR', 'parallel', at(23, 8), 255),
        rate('EUR', 'parallel', at(23, 12), 256),
        rate('EUR', 'official', at(20, 11), 150),
        // 7 days before the start of the 20th is 13 Nov 00:00:00.000: included; 1 ms before it: not.
        rate('USD', 'parallel', at(12, 23, 59, 59, 999), 230),
        rate('USD', 'parallel', at(20, 9), 231),
        rate('GBP', 'parallel', at(13, 0), 280),
        rate('GBP', 'parallel', at(20, 9), 281),
      ],
    });
    await store.imports.import({
      kind: 'gold',
      records: [
        { purity: '18K', buy: 20_000 * M, sell: 20_500 * M, updatedAt: at(20, 10) },
        { purity: '18K', buy: 20_100 * M, sell: 20_600 * M, updatedAt: at(23, 10) },
      ],
    });
  });

  it('pairs each latest observation with the previous day’s, across a weekend, null past 7 days', async () => {
    const all = await store.market.ratesAsOf();
    const brief = all.map((r) => [
      r.current.currency,
      r.current.source,
      r.current.updatedAt,
      r.previous?.updatedAt,
    ]);
    expect(brief).toEqual([
      ['EUR', 'official', at(20, 11), undefined],
      ['EUR', 'parallel', at(23, 12), at(20, 15)],
      ['GBP', 'parallel', at(20, 9), at(13, 0)],
      ['USD', 'parallel', at(20, 9), undefined],
    ]);
    expect(all[1]).toEqual({
      current: { currency: 'EUR', source: 'parallel', buy: 256 * M, sell: 258 * M, updatedAt: at(23, 12) },
      previous: { currency: 'EUR', source: 'parallel', buy: 252 * M, sell: 254 * M, updatedAt: at(20, 15) },
    });
    expect(all[0]!.previous).toBeNull();
  });

  it('reads one source as of an instant, the instant itself included', async () => {
    const monday = await store.market.ratesAsOf({ source: 'parallel', at: at(23, 8) });
    expect(monday.map((r) => [r.current.currency, r.current.updatedAt, r.previous?.updatedAt])).toEqual([
      ['EUR', at(23, 8), at(20, 15)],
      ['GBP', at(20, 9), at(13, 0)],
      ['USD', at(20, 9), undefined],
    ]);
    const friday = await store.market.ratesAsOf({ source: 'parallel', at: at(20, 14, 59, 59, 999) });
    expect(friday[0]).toMatchObject({
      current: { updatedAt: at(20, 9) },
      previous: { updatedAt: at(19, 10) },
    });
    expect(await store.market.ratesAsOf({ source: 'official', at: at(20, 10) })).toEqual([]);
  });

  it('pairs gold the same way', async () => {
    expect(await store.market.goldAsOf()).toEqual([
      {
        current: { purity: '18K', buy: 20_100 * M, sell: 20_600 * M, updatedAt: at(23, 10) },
        previous: { purity: '18K', buy: 20_000 * M, sell: 20_500 * M, updatedAt: at(20, 10) },
      },
    ]);
    expect(await store.market.goldAsOf(at(22, 0))).toEqual([
      {
        current: { purity: '18K', buy: 20_000 * M, sell: 20_500 * M, updatedAt: at(20, 10) },
        previous: null,
      },
    ]);
    expect(await store.market.goldAsOf(at(20, 9))).toEqual([]);
  });

  it('reads the newest observation of given series at or before each one’s instant', async () => {
    const points = [
      { currency: 'EUR', source: 'parallel' as const, at: at(20, 23, 59, 59, 999) },
      { currency: 'EUR', source: 'official' as const, at: at(20, 11) },
      { currency: 'USD', source: 'parallel' as const, at: at(1, 0) },
    ];
    expect(
      (await store.market.ratesAt(points)).map((r) => [r.currency, r.source, r.updatedAt, r.buy]),
    ).toEqual([
      ['EUR', 'official', at(20, 11), 150 * M],
      ['EUR', 'parallel', at(20, 15), 252 * M],
    ]);
    expect(await store.market.ratesAt([])).toEqual([]);
  });
});
