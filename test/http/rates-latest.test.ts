import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Source } from '../../src/domain/types.js';
import { generateSample } from '../../src/sample/generate.js';
import { backends } from '../support/backends.js';
import { type Harness, SAMPLE_END } from '../support/harness.js';
import { type Call, expectErrorBody, keyedHarness, problemParameters } from '../support/openapi.js';
import { expectedChange, IMPORTED } from '../support/sample-records.js';

const sample = generateSample({ endDate: SAMPLE_END });
const assetsByCode = new Map(sample.assets.map((a) => [a.code, a]));

/** What /v1/rates/latest should return for a source: the newest observation per code, in code order. */
function latestFor(source: Source) {
  const newest = new Map<string, (typeof sample.rates)[number]>();
  for (const r of sample.rates) {
    if (r.source !== source) continue;
    const prev = newest.get(r.currency);
    if (!prev || prev.updatedAt < r.updatedAt) newest.set(r.currency, r);
  }
  return [...newest.values()]
    .sort((a, b) => (a.currency < b.currency ? -1 : 1))
    .map((r) => ({
      currency: r.currency,
      names: assetsByCode.get(r.currency)!.names,
      type: assetsByCode.get(r.currency)!.type,
      source,
      quote: 'DZD',
      buy: r.buy / 1e6,
      sell: r.sell / 1e6,
      updatedAt: new Date(r.updatedAt).toISOString(),
      quality: IMPORTED,
      change: expectedChange(
        sample.rates.filter((o) => o.currency === r.currency && o.source === source),
        r,
      ),
    }));
}

const ALL_CODES = sample.assets.map((a) => a.code).sort();
const TRANSFER_CODES = ['CAD', 'CHF', 'EUR', 'GBP', 'USD'];
const HOURS: Record<Source, string> = { parallel: '09', official: '10', transfer: '11' };

describe.each(backends())('/v1/rates/latest on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  it('defaults to the parallel source and returns every asset of it, in code order', async () => {
    const res = await call('/v1/rates/latest', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual(latestFor('parallel'));
    expect(body.data.map((r: { currency: string }) => r.currency)).toEqual(ALL_CODES);
    for (const r of body.data) {
      expect(Object.keys(r).sort()).toEqual(
        [
          'buy',
          'change',
          'currency',
          'names',
          'quality',
          'quote',
          'sell',
          'source',
          'type',
          'updatedAt',
        ].sort(),
      );
      expect(r.updatedAt).toBe(`${SAMPLE_END}T09:00:00.000Z`);
    }
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: ALL_CODES.length,
      source: 'parallel',
      quote: 'DZD',
      currencies: ALL_CODES,
    });
  });

  it.each(['parallel', 'official', 'transfer'] as const)(
    'source=%s without currency: every asset with an observation',
    async (source) => {
      const res = await call(`/v1/rates/latest?source=${source}`, key);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      const want = latestFor(source);
      expect(body.data).toEqual(want);
      const codes = source === 'transfer' ? TRANSFER_CODES : ALL_CODES;
      expect(body.meta).toEqual({
        requestId: res.headers['x-request-id'],
        count: codes.length,
        source,
        quote: 'DZD',
        currencies: codes,
      });
      for (const r of body.data) expect(r.updatedAt).toBe(`${SAMPLE_END}T${HOURS[source]}:00:00.000Z`);
    },
  );

  it('meta.currencies is the request after de-duplication, in request order; data in code order', async () => {
    const res = await call('/v1/rates/latest?currency=USD,EUR,USD,ZZZ,CAD,EUR', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const all = latestFor('parallel');
    expect(body.data).toEqual(['CAD', 'EUR', 'USD'].map((c) => all.find((r) => r.currency === c)));
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 3,
      source: 'parallel',
      quote: 'DZD',
      currencies: ['USD', 'EUR', 'ZZZ', 'CAD'],
    });
  });

  it('an unknown but well-formed code yields no record and no error', async () => {
    const res = await call('/v1/rates/latest?currency=ZZZ', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
    expect(res.json().meta).toMatchObject({ count: 0, currencies: ['ZZZ'] });
  });

  it('transfer has data only for the main currencies', async () => {
    const res = await call('/v1/rates/latest?source=transfer&currency=JPY,EUR,TND,USD', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((r: { currency: string }) => r.currency)).toEqual(['EUR', 'USD']);
    expect(body.data.every((r: { source: string }) => r.source === 'transfer')).toBe(true);
    expect(body.meta).toMatchObject({
      count: 2,
      source: 'transfer',
      currencies: ['JPY', 'EUR', 'TND', 'USD'],
    });
  });

  it('official rates differ from parallel ones', async () => {
    const p = (await call('/v1/rates/latest?currency=EUR', key)).json().data[0];
    const o = (await call('/v1/rates/latest?currency=EUR&source=official', key)).json().data[0];
    expect(o.source).toBe('official');
    expect(o).toEqual(latestFor('official').find((r) => r.currency === 'EUR'));
    expect(p.buy).toBeGreaterThan(o.buy);
  });

  it('30 copies of one code are one code', async () => {
    const res = await call(`/v1/rates/latest?currency=${Array(30).fill('EUR').join(',')}`, key);
    expect(res.statusCode).toBe(200);
    expect(res.json().meta).toMatchObject({ count: 1, currencies: ['EUR'] });
  });

  it('25 distinct codes of 10 characters (274 characters) are accepted', async () => {
    const codes = Array.from({ length: 25 }, (_, i) => `C${String(i).padStart(9, '0')}`);
    const list = codes.join(',');
    expect(list.length).toBe(274);
    const res = await call(`/v1/rates/latest?currency=${list}`, key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
    expect(res.json().meta.currencies).toEqual(codes);
  });

  it('a well-formed list of 275 characters is a 400', async () => {
    const list = Array(69).fill('EUR').join(',');
    expect(list.length).toBe(275);
    const res = await call(`/v1/rates/latest?currency=${list}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
  });

  it('26 distinct codes are a 400', async () => {
    const list = Array.from({ length: 26 }, (_, i) => `A${String(i).padStart(2, '0')}`).join(',');
    const res = await call(`/v1/rates/latest?currency=${list}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
  });

  it.each([
    ['currency=eur', 'currency'],
    ['currency=Eur', 'currency'],
    ['currency=EUR,,USD', 'currency'],
    ['currency=EUR,', 'currency'],
    ['currency=,EUR', 'currency'],
    ['currency=E', 'currency'],
    ['currency=ABCDEFGHIJK', 'currency'],
    ['currency=EU-R', 'currency'],
    ['currency=EUR%20', 'currency'],
    ['currency=', 'currency'],
    ['currency=EUR&currency=USD', 'currency'],
    ['source=black', 'source'],
    ['source=Parallel', 'source'],
    ['source=', 'source'],
    ['source=parallel&source=parallel', 'source'],
    ['limit=10', 'limit'],
    ['currencies=EUR', 'currencies'],
  ])('%s is a 400 on `%s`', async (query, parameter) => {
    const res = await call(`/v1/rates/latest?${query}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter, message: expect.any(String) }]);
  });

  it('reports every problem of one request together', async () => {
    const res = await call('/v1/rates/latest?currency=eur&source=x&foo=1&bar=', key);
    const body = expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(res)).toEqual(['bar', 'currency', 'foo', 'source']);
    expect(body.error.details).toHaveLength(4);
    for (const d of body.error.details as Array<Record<string, unknown>>) {
      expect(Object.keys(d).sort()).toEqual(['message', 'parameter']);
      expect(typeof d.message).toBe('string');
    }
  });
});
