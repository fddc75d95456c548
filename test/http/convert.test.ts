/**
 * GET /v1/convert (docs/decisions.md 134-137), through HTTP on every backend.
 * EUR and USD get parallel and official observations newer than the sample's,
 * with the figures below; every expected result is worked out by hand from
 * them (exact decimals, one rounding to the cent, half away from zero).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateObservation, Source } from '../../src/domain/types.js';
import { backends } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, problemParameters } from '../support/openapi.js';

const micros = (dzd: number) => Math.round(dzd * 1e6);
/** A second ago: newer than every sample observation (the sample ends yesterday). */
const AT = Math.floor((Date.now() - 1000) / 1000) * 1000;
const AT_ISO = new Date(AT).toISOString();
const OFFICIAL_AT = AT - 60_000;

function rate(currency: string, source: Source, buy: number, sell: number, at = AT): RateObservation {
  return { currency, source, buy: micros(buy), sell: micros(sell), updatedAt: at };
}

const RECORDS: RateObservation[] = [
  rate('EUR', 'parallel', 258.45, 261.79),
  rate('USD', 'parallel', 239.5, 242.2),
  rate('EUR', 'official', 153.32, 153.55, OFFICIAL_AT),
  // XCO: a currency of the directory with an official rate only.
  rate('XCO', 'official', 10, 10.5),
];

const eurBuy = { currency: 'EUR', quote: 'DZD', side: 'buy', rate: 258.45, updatedAt: AT_ISO };
const usdSell = { currency: 'USD', quote: 'DZD', side: 'sell', rate: 242.2, updatedAt: AT_ISO };

describe.each(backends())('/v1/convert on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  const convert = (query: string, k = key, headers?: Record<string, string>) =>
    call(`/v1/convert?${query}`, k, headers);

  beforeAll(async () => {
    h = await startHarness(backend);
    await h.store.imports.import({
      kind: 'assets',
      records: [{ code: 'XCO', symbol: 'XCO', names: { en: 'XCO', fr: 'XCO', ar: 'XCO' }, type: 'currency' }],
    });
    await h.store.imports.import({ kind: 'rates', records: RECORDS });
    await h.refresh();
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('a currency into dinars at its buy rate, from the parallel source by default', async () => {
    const res = await convert('from=EUR&to=DZD&amount=100');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: {
        from: 'EUR',
        to: 'DZD',
        source: 'parallel',
        amount: '100',
        result: 25845,
        resultDecimal: '25845.00',
        rates: [eurBuy],
      },
      meta: { requestId: res.headers['x-request-id'] },
    });
    expect(Object.keys(res.json().data)).toEqual([
      'from',
      'to',
      'source',
      'amount',
      'result',
      'resultDecimal',
      'rates',
    ]);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    expect(res.headers.etag).toMatch(/^W\/"/);
  });

  it('dinars into a currency at its sell rate', async () => {
    // 1000000000 / 242.2 = 4128819.1577… → 4128819.16
    const res = await convert('from=DZD&to=USD&amount=1000000000');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      from: 'DZD',
      to: 'USD',
      source: 'parallel',
      amount: '1000000000',
      result: 4128819.16,
      resultDecimal: '4128819.16',
      rates: [usdSell],
    });
  });

  it('EUR into USD through the dinar: EUR at buy, USD at sell, one rounding at the end', async () => {
    // 100 × 258.45 / 242.2 = 106.70933… → 106.71
    const res = await convert('from=EUR&to=USD&amount=100');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      from: 'EUR',
      to: 'USD',
      source: 'parallel',
      amount: '100',
      result: 106.71,
      resultDecimal: '106.71',
      rates: [eurBuy, usdSell],
    });
    // 8.57 × 258.45 / 242.2 = 9.14498…: 9.14. Rounding the dinars first (2214.92)
    // would give 2214.92 / 242.2 = 9.14500… → 9.15.
    const cross = await convert('from=EUR&to=USD&amount=8.57');
    expect(cross.json().data.resultDecimal).toBe('9.14');
    expect(cross.json().data.result).toBe(9.14);
  });

  it('exact to the cent at 0.01 and at 10^9, halves away from zero', async () => {
    const cases: Array<[string, string, number]> = [
      // 0.01 × 258.45 = 2.5845
      ['from=EUR&to=DZD&amount=0.01', '2.58', 2.58],
      // 0.1 × 258.45 = 25.845 exactly, a half: up (in binary 0.1 × 258.45 is 25.844999…)
      ['from=EUR&to=DZD&amount=0.1', '25.85', 25.85],
      ['from=EUR&to=DZD&amount=1000000000', '258450000000.00', 258450000000],
      // 999999999.99999999 × 258.45 = 258449999999.99999741…
      ['from=EUR&to=DZD&amount=999999999.99999999', '258450000000.00', 258450000000],
      // 10^9 × 258.45 / 242.2 = 1067093311.31296…
      ['from=EUR&to=USD&amount=1000000000', '1067093311.31', 1067093311.31],
      // 0.01 / 242.2 = 0.0000412…
      ['from=DZD&to=USD&amount=0.01', '0.00', 0],
      ['from=DZD&to=USD&amount=0.01000000', '0.00', 0],
    ];
    for (const [query, text, value] of cases) {
      const res = await convert(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
      expect(res.json().data.resultDecimal, query).toBe(text);
      expect(res.json().data.result, query).toBe(value);
    }
    expect((await convert('from=EUR&to=DZD&amount=100.50')).json().data.amount).toBe('100.5');
  });

  it('another source: its own rates, and its own entitlement', async () => {
    // 100 × 153.32
    const res = await convert('from=EUR&to=DZD&amount=100&source=official');
    expect(res.json().data).toMatchObject({
      source: 'official',
      result: 15332,
      resultDecimal: '15332.00',
      rates: [{ currency: 'EUR', side: 'buy', rate: 153.32, updatedAt: new Date(OFFICIAL_AT).toISOString() }],
    });
    const { key: narrow } = await h.newKey({ scopes: ['rates:parallel:latest:read'] });
    expect((await convert('from=EUR&to=DZD&amount=1', narrow)).statusCode).toBe(200);
    expectErrorBody(
      await convert('from=EUR&to=DZD&amount=1&source=official', narrow),
      403,
      'insufficient_scope',
      [{ entitlement: 'rates:official:latest:read' }],
    );
  });

  it('a missing rate or an unknown code is a 404', async () => {
    // XCO has an official rate, no parallel one; ZZZ is in no directory.
    for (const query of [
      'from=XCO&to=DZD&amount=1',
      'from=DZD&to=XCO&amount=1',
      'from=EUR&to=XCO&amount=1',
      'from=ZZZ&to=EUR&amount=1',
    ]) {
      const res = await convert(query);
      const body = expectErrorBody(res, 404, 'not_found');
      expect(body.error.message, query).toMatch(/^No parallel rate for (XCO|ZZZ)\.$/);
    }
    expect((await convert('from=XCO&to=DZD&amount=2&source=official')).json().data.result).toBe(20);
  });

  it('refuses bad amounts, from = to and missing parameters, naming each parameter, consuming nothing', async () => {
    const bad = [
      '0',
      '0.00',
      '-1',
      '+1',
      '1e3',
      '01',
      '.5',
      '5.',
      '1,5',
      'abc',
      '0.000000001',
      '1000000000.00000001',
      '10000000000',
      'Infinity',
    ];
    for (const amount of bad) {
      const res = await convert(`from=EUR&to=DZD&amount=${encodeURIComponent(amount)}`);
      expectErrorBody(res, 400, 'invalid_parameter', [{ parameter: 'amount', message: expect.any(String) }]);
    }
    const zero = await convert('from=EUR&to=DZD&amount=0');
    expect(zero.json().error.details[0].message).toBe('must be more than 0, such as 0.01 or 100');
    const over = await convert('from=EUR&to=DZD&amount=1000000000.01');
    expect(over.json().error.details[0].message).toBe('must be at most 1000000000: convert a smaller amount');

    expectErrorBody(await convert('from=EUR&to=EUR&amount=1'), 400, 'invalid_parameter', [
      { parameter: 'to', message: 'must differ from `from`: give two different codes' },
    ]);
    expect(problemParameters(await convert('from=DZD&to=DZD&amount=1'))).toEqual(['to']);
    expect(problemParameters(await convert(''))).toEqual(['amount', 'from', 'to']);
    expect(problemParameters(await convert('from=eur&to=DZD&amount=1&source=street&x=1'))).toEqual([
      'from',
      'source',
      'x',
    ]);
    const before = await convert('from=EUR&to=DZD&amount=1');
    await convert('from=EUR&to=EUR&amount=1');
    const after = await convert('from=EUR&to=DZD&amount=1');
    expect(Number(after.headers['x-monthly-quota-remaining'])).toBe(
      Number(before.headers['x-monthly-quota-remaining']) - 1,
    );
  });

  it('caching, HEAD and Accept: a 304 for its ETag, no body for HEAD, JSON whatever Accept asks', async () => {
    const first = await convert('from=EUR&to=USD&amount=100');
    const again = await convert('from=EUR&to=USD&amount=100', key, { 'if-none-match': first.headers.etag! });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await convert('from=EUR&to=USD&amount=101', key, { 'if-none-match': first.headers.etag! });
    expect(other.statusCode).toBe(200);
    const head = await h.app.inject({
      method: 'HEAD',
      url: '/v1/convert?from=EUR&to=USD&amount=100',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBe(first.headers.etag);
    const csv = await convert('from=EUR&to=USD&amount=100', key, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(csv.json().data.resultDecimal).toBe('106.71');
  });
});
