/**
 * Series by interval (docs/decisions.md 128–133): `interval=day|week|month` on
 * /v1/rates/history (and its alias), /v1/gold/history and
 * /v1/market/premium/history, through HTTP on every backend, on observations
 * made here and values computed by hand. 2025-03-31 is a Monday: its week
 * runs into April.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoldObservation, Purity, RateObservation, Source } from '../../src/domain/types.js';
import { backends } from '../support/backends.js';
import { CSV_CONTENT_TYPE, csvRows } from '../support/csv.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, problemParameters } from '../support/openapi.js';

const micros = (dzd: number) => Math.round(dzd * 1e6);
const at = (iso: string) => Date.parse(iso);
const rate = (source: Source, iso: string, buy: number, sell: number): RateObservation => ({
  currency: 'XIV',
  source,
  buy: micros(buy),
  sell: micros(sell),
  updatedAt: at(iso),
});
const gold = (purity: Purity, iso: string, buy: number, sell: number): GoldObservation => ({
  purity,
  buy: micros(buy),
  sell: micros(sell),
  updatedAt: at(iso),
});

const PARALLEL = [
  rate('parallel', '2025-03-28T09:00:00Z', 250, 253), // Friday, the week of 03-24
  rate('parallel', '2025-03-31T09:00:00Z', 251, 254), // Monday
  rate('parallel', '2025-03-31T15:00:00Z', 252.5, 255.5),
  rate('parallel', '2025-04-01T09:00:00Z', 249, 252),
  rate('parallel', '2025-04-03T09:00:00Z', 253, 256.25),
  rate('parallel', '2025-04-07T12:00:00Z', 254, 257), // alone in its week
];
const OFFICIAL = [
  rate('official', '2025-03-28T10:00:00Z', 150, 150),
  rate('official', '2025-03-31T10:00:00Z', 150, 150),
  rate('official', '2025-04-01T10:00:00Z', 150, 150),
  rate('official', '2025-04-03T10:00:00Z', 160, 160),
  rate('official', '2025-04-07T10:00:00Z', 160, 160),
];
const GOLD = [
  gold('21K', '2025-03-30T09:00:00Z', 33000, 34000), // Sunday, the week of 03-24
  gold('18K', '2025-03-31T09:00:00Z', 29000, 30000),
  gold('18K', '2025-04-01T09:00:00Z', 29100, 30100),
  gold('24K', '2025-04-01T09:00:00Z', 38000, 39000),
];

const ohlc = (open: number, high: number, low: number, close: number) => ({ open, high, low, close });
const flat = (v: number) => ohlc(v, v, v, v);
const rateItem = (
  interval: string,
  start: string,
  buy: ReturnType<typeof ohlc>,
  sell: ReturnType<typeof ohlc>,
  first: string,
  last: string,
  observations: number,
) => ({
  currency: 'XIV',
  quote: 'DZD',
  source: 'parallel',
  interval,
  start,
  buy,
  sell,
  firstUpdatedAt: first,
  lastUpdatedAt: last,
  observations,
});

/** The weeks of March and April 2025, by hand. */
const WEEKS = [
  rateItem(
    'week',
    '2025-04-07',
    flat(254),
    flat(257),
    '2025-04-07T12:00:00.000Z',
    '2025-04-07T12:00:00.000Z',
    1,
  ),
  rateItem(
    'week',
    '2025-03-31',
    ohlc(251, 253, 249, 253),
    ohlc(254, 256.25, 252, 256.25),
    '2025-03-31T09:00:00.000Z',
    '2025-04-03T09:00:00.000Z',
    4,
  ),
  rateItem(
    'week',
    '2025-03-24',
    flat(250),
    flat(253),
    '2025-03-28T09:00:00.000Z',
    '2025-03-28T09:00:00.000Z',
    1,
  ),
];
const MONTHS = [
  rateItem(
    'month',
    '2025-04-01',
    ohlc(249, 254, 249, 254),
    ohlc(252, 257, 252, 257),
    '2025-04-01T09:00:00.000Z',
    '2025-04-07T12:00:00.000Z',
    3,
  ),
  rateItem(
    'month',
    '2025-03-01',
    ohlc(250, 252.5, 250, 252.5),
    ohlc(253, 255.5, 253, 255.5),
    '2025-03-28T09:00:00.000Z',
    '2025-03-31T15:00:00.000Z',
    3,
  ),
];

const RATES = '/v1/rates/history?currency=XIV&from=2025-03-01&to=2025-04-30';

describe.each(backends())('series by interval on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    const asset = {
      code: 'XIV',
      symbol: 'XIV',
      names: { en: 'XIV', fr: 'XIV', ar: 'XIV' },
      type: 'currency' as const,
    };
    await h.store.imports.import({ kind: 'assets', records: [asset] });
    await h.store.imports.import({ kind: 'rates', records: [...PARALLEL, ...OFFICIAL] });
    await h.store.imports.import({ kind: 'gold', records: GOLD });
    await h.refresh();
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('weeks start on Monday: one spans March and April; an interval of one observation has open = close', async () => {
    const res = await call(`${RATES}&interval=week`, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(WEEKS);
    expect(res.json().meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 3,
      currency: 'XIV',
      source: 'parallel',
      quote: 'DZD',
      from: '2025-03-01T00:00:00.000Z',
      to: '2025-04-30T23:59:59.999Z',
      limit: 250,
      nextCursor: null,
    });
  });

  it('months and days', async () => {
    expect((await call(`${RATES}&interval=month`, key)).json().data).toEqual(MONTHS);
    const days = await call('/v1/rates/history?currency=XIV&from=2025-03-31&to=2025-04-01&interval=day', key);
    expect(days.json().data).toEqual([
      rateItem(
        'day',
        '2025-04-01',
        flat(249),
        flat(252),
        '2025-04-01T09:00:00.000Z',
        '2025-04-01T09:00:00.000Z',
        1,
      ),
      rateItem(
        'day',
        '2025-03-31',
        ohlc(251, 252.5, 251, 252.5),
        ohlc(254, 255.5, 254, 255.5),
        '2025-03-31T09:00:00.000Z',
        '2025-03-31T15:00:00.000Z',
        2,
      ),
    ]);
  });

  it('only observations inside [from, to] count; `start` is still the Monday', async () => {
    const res = await call('/v1/rates/history?currency=XIV&from=2025-04-01&to=2025-04-03&interval=week', key);
    expect(res.json().data).toEqual([
      rateItem(
        'week',
        '2025-03-31',
        ohlc(249, 253, 249, 253),
        ohlc(252, 256.25, 252, 256.25),
        '2025-04-01T09:00:00.000Z',
        '2025-04-03T09:00:00.000Z',
        2,
      ),
    ]);
    // The deprecated alias answers the same records.
    const alias = await call(
      '/v1/rates/historical?currency=XIV&from=2025-04-01&to=2025-04-03&interval=week',
      key,
    );
    expect(alias.json().data).toEqual(res.json().data);
  });

  it('pages of intervals follow the cursor and Link without loss or repetition', async () => {
    const seen: unknown[] = [];
    let url: string | undefined = `${RATES}&interval=week&limit=1`;
    for (let n = 0; url !== undefined; n++) {
      expect(n).toBeLessThan(5);
      const res = await call(url, key);
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().data);
      const cursor: string | null = res.json().meta.nextCursor;
      if (cursor === null) {
        expect(res.headers.link).toBeUndefined();
        url = undefined;
      } else {
        const next = `${RATES}&interval=week&limit=1&cursor=${encodeURIComponent(cursor)}`;
        expect(res.headers.link).toBe(`<${next}>; rel="next"`);
        url = next;
      }
    }
    expect(seen).toEqual(WEEKS);
  });

  it('a cursor is bound to its interval: another one, or none, is a 400', async () => {
    const first = (await call(`${RATES}&interval=week&limit=1`, key)).json();
    const cursor = encodeURIComponent(first.meta.nextCursor);
    for (const other of ['&interval=month', '&interval=day', '']) {
      const res = await call(`${RATES}${other}&limit=1&cursor=${cursor}`, key);
      expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
    }
    const plain = (await call(`${RATES}&limit=1`, key)).json();
    const res = await call(
      `${RATES}&interval=week&limit=1&cursor=${encodeURIComponent(plain.meta.nextCursor)}`,
      key,
    );
    expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
  });

  it('CSV: columns in JSON order, nested ones joined with `_`', async () => {
    const res = await call(`${RATES}&interval=week`, key, { accept: 'text/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(csvRows(res.body)).toEqual([
      [
        'currency',
        'quote',
        'source',
        'interval',
        'start',
        'buy_open',
        'buy_high',
        'buy_low',
        'buy_close',
        'sell_open',
        'sell_high',
        'sell_low',
        'sell_close',
        'firstUpdatedAt',
        'lastUpdatedAt',
        'observations',
      ],
      // biome-ignore format: one row a line
      ['XIV', 'DZD', 'parallel', 'week', '2025-04-07', '254', '254', '254', '254', '257', '257', '257', '257', '2025-04-07T12:00:00.000Z', '2025-04-07T12:00:00.000Z', '1'],
      // biome-ignore format: one row a line
      ['XIV', 'DZD', 'parallel', 'week', '2025-03-31', '251', '253', '249', '253', '254', '256.25', '252', '256.25', '2025-03-31T09:00:00.000Z', '2025-04-03T09:00:00.000Z', '4'],
      // biome-ignore format: one row a line
      ['XIV', 'DZD', 'parallel', 'week', '2025-03-24', '250', '250', '250', '250', '253', '253', '253', '253', '2025-03-28T09:00:00.000Z', '2025-03-28T09:00:00.000Z', '1'],
    ]);
  });

  it('with `interval` the window may span 3,660 days; without, 366 as before', async () => {
    const long = '/v1/rates/history?currency=XIV&from=2015-04-24&to=2025-04-30';
    const ok = await call(`${long}&interval=month`, key);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toEqual(MONTHS);
    const plain = await call(long, key);
    expectErrorBody(plain, 400, 'invalid_parameter', [
      { parameter: 'from', message: expect.stringContaining('366') },
    ]);
    const tooLong = await call(
      '/v1/rates/history?currency=XIV&from=2015-04-23&to=2025-04-30&interval=month',
      key,
    );
    expectErrorBody(tooLong, 400, 'invalid_parameter', [
      { parameter: 'from', message: expect.stringContaining('3660') },
    ]);
    const bad = await call(`${RATES}&interval=year`, key);
    expectErrorBody(bad, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(bad)).toEqual(['interval']);
  });

  it('the entitlements of the plain history: a key without them is refused', async () => {
    const { key: narrow } = await h.newKey({ scopes: ['rates:parallel:history:read'] });
    expect((await call(`${RATES}&interval=week`, narrow)).statusCode).toBe(200);
    const official = await call(`${RATES}&interval=week&source=official`, narrow);
    expectErrorBody(official, 403, 'insufficient_scope', [{ entitlement: 'rates:official:history:read' }]);
    const gold = await call('/v1/gold/history?interval=month', narrow);
    expectErrorBody(gold, 403, 'insufficient_scope', [{ entitlement: 'gold:history:read' }]);
    const premium = await call('/v1/market/premium/history?currency=XIV&interval=month', narrow);
    expectErrorBody(premium, 403, 'insufficient_scope', [{ entitlement: 'market:premium:history:read' }]);
  });

  it('gold: each purity its intervals, newest first, ties in purity order, paged one by one', async () => {
    const base = '/v1/gold/history?from=2025-03-01&to=2025-04-30&interval=week';
    const item = (
      purity: string,
      start: string,
      buy: object,
      sell: object,
      f: string,
      l: string,
      n: number,
    ) => ({
      purity,
      quote: 'DZD',
      unit: 'gram',
      interval: 'week',
      start,
      buy,
      sell,
      firstUpdatedAt: f,
      lastUpdatedAt: l,
      observations: n,
    });
    const expected = [
      item(
        '18K',
        '2025-03-31',
        ohlc(29000, 29100, 29000, 29100),
        ohlc(30000, 30100, 30000, 30100),
        '2025-03-31T09:00:00.000Z',
        '2025-04-01T09:00:00.000Z',
        2,
      ),
      item(
        '24K',
        '2025-03-31',
        flat(38000),
        flat(39000),
        '2025-04-01T09:00:00.000Z',
        '2025-04-01T09:00:00.000Z',
        1,
      ),
      item(
        '21K',
        '2025-03-24',
        flat(33000),
        flat(34000),
        '2025-03-30T09:00:00.000Z',
        '2025-03-30T09:00:00.000Z',
        1,
      ),
    ];
    expect((await call(base, key)).json().data).toEqual(expected);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let n = 0; n === 0 || cursor !== null; n++) {
      expect(n).toBeLessThan(5);
      const res = await call(`${base}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().data);
      cursor = res.json().meta.nextCursor;
    }
    expect(seen).toEqual(expected);
  });

  it('premium: open, high, low and close of the daily percents', async () => {
    const base = '/v1/market/premium/history?currency=XIV&from=2025-03-01&to=2025-04-30&interval=week';
    // `firstUpdatedAt`, `lastUpdatedAt`: the parallel observation of the first and last daily premium;
    // `observations`: the daily premiums (decisions 132). 03-31's premium is its 15:00 observation's.
    const item = (start: string, buy: object, sell: object, first: string, last: string, days: number) => ({
      currency: 'XIV',
      quote: 'DZD',
      interval: 'week',
      start,
      buy,
      sell,
      firstDate: first.slice(0, 10),
      lastDate: last.slice(0, 10),
      days,
      firstUpdatedAt: first,
      lastUpdatedAt: last,
      observations: days,
    });
    // Daily percents: 03-28 66.6667/68.6667, 03-31 68.3333/70.3333, 04-01 66/68,
    // 04-03 58.125/60.1563 (60.15625 rounded away from zero), 04-07 58.75/60.625.
    const expected = [
      item(
        '2025-04-07',
        flat(58.75),
        flat(60.625),
        '2025-04-07T12:00:00.000Z',
        '2025-04-07T12:00:00.000Z',
        1,
      ),
      item(
        '2025-03-31',
        ohlc(68.3333, 68.3333, 58.125, 58.125),
        ohlc(70.3333, 70.3333, 60.1563, 60.1563),
        '2025-03-31T15:00:00.000Z',
        '2025-04-03T09:00:00.000Z',
        3,
      ),
      item(
        '2025-03-24',
        flat(66.6667),
        flat(68.6667),
        '2025-03-28T09:00:00.000Z',
        '2025-03-28T09:00:00.000Z',
        1,
      ),
    ];
    const res = await call(base, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(expected);
    expect(res.json().meta.summary.days).toBe(5);
    const p1 = (await call(`${base}&limit=2`, key)).json();
    const p2 = (await call(`${base}&limit=2&cursor=${encodeURIComponent(p1.meta.nextCursor)}`, key)).json();
    expect([...p1.data, ...p2.data]).toEqual(expected);
    expect(p2.meta.nextCursor).toBeNull();
    const csv = await call(base, key, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    expect(csvRows(csv.body).slice(0, 3)).toEqual([
      // biome-ignore format: one row a line
      ['currency', 'quote', 'interval', 'start', 'buy_open', 'buy_high', 'buy_low', 'buy_close', 'sell_open', 'sell_high', 'sell_low', 'sell_close', 'firstDate', 'lastDate', 'days', 'firstUpdatedAt', 'lastUpdatedAt', 'observations'],
      // biome-ignore format: one row a line
      ['XIV', 'DZD', 'week', '2025-04-07', '58.75', '58.75', '58.75', '58.75', '60.625', '60.625', '60.625', '60.625', '2025-04-07', '2025-04-07', '1', '2025-04-07T12:00:00.000Z', '2025-04-07T12:00:00.000Z', '1'],
      // biome-ignore format: one row a line
      ['XIV', 'DZD', 'week', '2025-03-31', '68.3333', '68.3333', '58.125', '58.125', '70.3333', '70.3333', '60.1563', '60.1563', '2025-03-31', '2025-04-03', '3', '2025-03-31T15:00:00.000Z', '2025-04-03T09:00:00.000Z', '3'],
    ]);
  });
});
