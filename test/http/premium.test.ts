import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Asset, RateObservation, Source } from '../../src/domain/types.js';
import { generateSample, sampleAssets } from '../../src/sample/generate.js';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, problemParameters } from '../support/openapi.js';

const DEFAULT = ['EUR', 'USD', 'GBP', 'CAD'];

describe.each(sqliteOnly())('/v1/market/premium with the sample data on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  const sample = generateSample({ endDate: SAMPLE_END });
  const latest = (code: string, source: Source) =>
    sample.rates
      .filter((r) => r.currency === code && r.source === source)
      .reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));

  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('defaults to EUR, USD, GBP, CAD in that order', async () => {
    const res = await call('/v1/market/premium', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((i: { currency: string }) => i.currency)).toEqual(DEFAULT);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 4,
      quote: 'DZD',
      currencies: DEFAULT,
      missingCurrencies: [],
    });
    for (const item of body.data) {
      const p = latest(item.currency, 'parallel');
      const o = latest(item.currency, 'official');
      expect(Object.keys(item).sort()).toEqual([
        'change',
        'currency',
        'official',
        'parallel',
        'premium',
        'quote',
      ]);
      expect(item.quote).toBe('DZD');
      expect(item.parallel).toEqual({
        buy: p.buy / 1e6,
        sell: p.sell / 1e6,
        updatedAt: new Date(p.updatedAt).toISOString(),
      });
      expect(item.official).toEqual({
        buy: o.buy / 1e6,
        sell: o.sell / 1e6,
        updatedAt: new Date(o.updatedAt).toISOString(),
      });
      expect(item.premium.buy.amount).toBe((p.buy - o.buy) / 1e6);
      expect(item.premium.sell.amount).toBe((p.sell - o.sell) / 1e6);
      // 4 decimals at most, and within half a unit of the exact ratio.
      for (const side of ['buy', 'sell'] as const) {
        const percent = item.premium[side].percent;
        expect(Math.round(percent * 1e4) / 1e4).toBe(percent);
        expect(Math.abs(percent - ((p[side] - o[side]) / o[side]) * 100)).toBeLessThanOrEqual(0.00005 + 1e-9);
        expect(percent).toBeGreaterThan(0);
      }
    }
  });

  it('follows the request order after de-duplication; unknown codes are missing', async () => {
    const res = await call('/v1/market/premium?currency=USD,ZZZ,EUR,USD,JPY,ZZZ', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((i: { currency: string }) => i.currency)).toEqual(['USD', 'EUR', 'JPY']);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 3,
      quote: 'DZD',
      currencies: ['USD', 'ZZZ', 'EUR', 'JPY'],
      missingCurrencies: ['ZZZ'],
    });
  });

  it('only unknown codes: an empty list, all missing', async () => {
    const res = await call('/v1/market/premium?currency=AAA,BBB', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
    expect(res.json().meta).toMatchObject({
      count: 0,
      currencies: ['AAA', 'BBB'],
      missingCurrencies: ['AAA', 'BBB'],
    });
  });

  it('accepts 25 distinct codes and 30 duplicates, rejects 26 distinct codes', async () => {
    const codes25 = Array.from({ length: 25 }, (_, i) => `Q${String(i).padStart(9, '0')}`);
    const ok = await call(`/v1/market/premium?currency=${codes25.join(',')}`, key);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().meta.missingCurrencies).toEqual(codes25);
    const dup = await call(`/v1/market/premium?currency=${Array(30).fill('GBP').join(',')}`, key);
    expect(dup.statusCode).toBe(200);
    expect(dup.json().meta.currencies).toEqual(['GBP']);
    const codes26 = Array.from({ length: 26 }, (_, i) => `Q${String(i).padStart(2, '0')}`);
    const bad = await call(`/v1/market/premium?currency=${codes26.join(',')}`, key);
    expectErrorBody(bad, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
    const long = await call(`/v1/market/premium?currency=${Array(69).fill('EUR').join(',')}`, key);
    expectErrorBody(long, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
  });

  it.each([
    ['currency=eur', 'currency'],
    ['currency=EUR,,USD', 'currency'],
    ['currency=EUR,', 'currency'],
    ['currency=', 'currency'],
    ['currency=EUR&currency=USD', 'currency'],
    ['source=parallel', 'source'],
  ])('%s is a 400 on `%s`', async (query, parameter) => {
    const res = await call(`/v1/market/premium?${query}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter, message: expect.any(String) }]);
  });

  it('reports every problem together', async () => {
    const res = await call('/v1/market/premium?currency=usd&x=1&y=', key);
    expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(res)).toEqual(['currency', 'x', 'y']);
  });
});

describe.each(sqliteOnly())('/v1/market/premium arithmetic on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  const at = (iso: string) => Date.parse(iso);
  const asset = (code: string): Asset => {
    const known = sampleAssets().find((a) => a.code === code);
    return known ?? { code, symbol: code, names: { en: code, fr: code, ar: code }, type: 'currency' };
  };
  const rate = (
    currency: string,
    source: Source,
    buy: number,
    sell: number,
    when: string,
  ): RateObservation => ({
    currency,
    source,
    buy,
    sell,
    updatedAt: at(when),
  });
  const T1 = '2026-03-01T09:00:00.000Z';
  const T2 = '2026-03-02T09:00:00.000Z';
  const T3 = '2026-03-02T10:00:00.000Z';

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    key = (await h.newKey()).key;
    call = await conformingGet(h);
    await h.store.imports.import({
      kind: 'assets',
      records: ['EUR', 'USD', 'GBP', 'CAD', 'CHF', 'AUD'].map(asset),
    });
    await h.store.imports.import({
      kind: 'rates',
      records: [
        // Older observations that the latest ones supersede.
        rate('EUR', 'parallel', 250_000_000, 252_000_000, T1),
        rate('EUR', 'official', 150_000_000, 150_500_000, T1),
        // EUR: +112.8 on 151.2 (74.6032 %); sell 264.19 − 151.2 = 112.99 without binary noise.
        rate('EUR', 'parallel', 264_000_000, 264_190_000, T2),
        rate('EUR', 'official', 151_200_000, 151_200_000, T3),
        // USD: exact ties at the 5th decimal, rounded away from zero.
        rate('USD', 'parallel', 100_001_250, 80_036_040, T2),
        rate('USD', 'official', 100_000_000, 80_000_000, T3),
        // GBP: negative premiums, one of them a tie.
        rate('GBP', 'parallel', 140_000_000, 79_963_960, T2),
        rate('GBP', 'official', 151_200_000, 80_000_000, T3),
        // AUD: a negative tie on buy.
        rate('AUD', 'parallel', 99_998_750, 145_500_000, T2),
        rate('AUD', 'official', 100_000_000, 152_300_000, T3),
        // CAD: parallel only; CHF: official only (and transfer, which does not count).
        rate('CAD', 'parallel', 160_000_000, 162_000_000, T2),
        rate('CHF', 'official', 166_000_000, 166_500_000, T3),
        rate('CHF', 'transfer', 266_000_000, 266_500_000, T3),
      ],
    });
    await h.refresh();
  });
  afterAll(async () => h?.close());

  const side = (buy: number, sell: number, updatedAt: string) => ({ buy, sell, updatedAt });

  it('computes exact amounts and percent rounded half away from zero', async () => {
    const res = await call('/v1/market/premium?currency=EUR,USD,GBP,AUD', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      {
        currency: 'EUR',
        quote: 'DZD',
        parallel: side(264, 264.19, T2),
        official: side(151.2, 151.2, T3),
        premium: { buy: { amount: 112.8, percent: 74.6032 }, sell: { amount: 112.99, percent: 74.7288 } },
        // T1's premium: (250 − 150) / 150 = 66.6667 %, (252 − 150.5) / 150.5 = 67.4419 %.
        change: { since: T1, buy: { percentPoints: 7.9365 }, sell: { percentPoints: 7.2869 } },
      },
      {
        currency: 'USD',
        quote: 'DZD',
        parallel: side(100.00125, 80.03604, T2),
        official: side(100, 80, T3),
        premium: { buy: { amount: 0.00125, percent: 0.0013 }, sell: { amount: 0.03604, percent: 0.0451 } },
        change: null,
      },
      {
        currency: 'GBP',
        quote: 'DZD',
        parallel: side(140, 79.96396, T2),
        official: side(151.2, 80, T3),
        premium: { buy: { amount: -11.2, percent: -7.4074 }, sell: { amount: -0.03604, percent: -0.0451 } },
        change: null,
      },
      {
        currency: 'AUD',
        quote: 'DZD',
        parallel: side(99.99875, 145.5, T2),
        official: side(100, 152.3, T3),
        premium: { buy: { amount: -0.00125, percent: -0.0013 }, sell: { amount: -6.8, percent: -4.4649 } },
        change: null,
      },
    ]);
    // The JSON text itself carries the short decimals.
    expect(res.body).toContain('"amount":112.8,"percent":74.6032');
    expect(res.body).toContain('"amount":112.99,"percent":74.7288');
    expect(res.body).not.toMatch(/\d\.\d*0000000\d/);
    expect(res.body).not.toMatch(/\d\.\d*9999999\d/);
  });

  it('the default list reports a currency with only a parallel observation as missing, never as zero', async () => {
    const res = await call('/v1/market/premium', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((i: { currency: string }) => i.currency)).toEqual(['EUR', 'USD', 'GBP']);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 3,
      quote: 'DZD',
      currencies: DEFAULT,
      missingCurrencies: ['CAD'],
    });
    expect(res.body).not.toContain('"CAD"}');
  });

  it('a currency with only an official (and transfer) observation is missing too', async () => {
    const res = await call('/v1/market/premium?currency=CHF,EUR,CAD,ZZZ', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((i: { currency: string }) => i.currency)).toEqual(['EUR']);
    expect(body.meta).toMatchObject({
      count: 1,
      currencies: ['CHF', 'EUR', 'CAD', 'ZZZ'],
      missingCurrencies: ['CHF', 'CAD', 'ZZZ'],
    });
  });

  it('picks up a newly imported official observation', async () => {
    await h.store.imports.import({
      kind: 'rates',
      records: [rate('CAD', 'official', 100_000_000, 100_000_000, T3)],
    });
    await h.refresh();
    const res = await call('/v1/market/premium?currency=CAD', key);
    expect(res.json().data).toEqual([
      {
        currency: 'CAD',
        quote: 'DZD',
        parallel: side(160, 162, T2),
        official: side(100, 100, T3),
        premium: { buy: { amount: 60, percent: 60 }, sell: { amount: 62, percent: 62 } },
        change: null,
      },
    ]);
    expect(res.json().meta.missingCurrencies).toEqual([]);
  });
});
