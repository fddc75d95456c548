import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoldObservation, PURITIES } from '../../src/domain/types.js';
import { generateSample } from '../../src/sample/generate.js';
import { backends } from '../support/backends.js';
import { DAY, type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, problemParameters } from '../support/openapi.js';

const sample = generateSample({ endDate: SAMPLE_END });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (date: string, n: number) => day(Date.parse(`${date}T00:00:00Z`) + n * DAY);
const record = (g: GoldObservation) => ({
  purity: g.purity,
  quote: 'DZD',
  unit: 'gram',
  buy: g.buy / 1e6,
  sell: g.sell / 1e6,
  updatedAt: new Date(g.updatedAt).toISOString(),
});
/** Newest first, ties in purity order. */
function expected(from: string, to: string) {
  const lo = Date.parse(`${from}T00:00:00.000Z`);
  const hi = Date.parse(`${to}T23:59:59.999Z`);
  return sample.gold
    .filter((g) => g.updatedAt >= lo && g.updatedAt <= hi)
    .sort((a, b) => b.updatedAt - a.updatedAt || PURITIES.indexOf(a.purity) - PURITIES.indexOf(b.purity))
    .map(record);
}

describe.each(backends())('/v1/gold on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('latest: one record per purity in the order 18K, 21K, 24K', async () => {
    const res = await call('/v1/gold/latest', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.data).toEqual(expected(SAMPLE_END, SAMPLE_END));
    expect(body.data.map((g: { purity: string }) => g.purity)).toEqual(['18K', '21K', '24K']);
    for (const g of body.data) {
      expect(Object.keys(g).sort()).toEqual(['buy', 'purity', 'quote', 'sell', 'unit', 'updatedAt']);
      expect(g.unit).toBe('gram');
      expect(g.updatedAt).toBe(`${SAMPLE_END}T09:30:00.000Z`);
      expect(g.sell).toBeGreaterThan(g.buy);
    }
    expect(body.data[0].buy).toBeLessThan(body.data[1].buy);
    expect(body.data[1].buy).toBeLessThan(body.data[2].buy);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 3,
      quote: 'DZD',
      unit: 'gram',
    });
  });

  it('latest ignores a query string, even a repeated or empty parameter', async () => {
    for (const q of ['?foo=bar', '?limit=0&limit=1', '?x=', '?currency=eur']) {
      const res = await call(`/v1/gold/latest${q}`, key);
      expect(res.statusCode, q).toBe(200);
      expect(res.json().meta.count).toBe(3);
    }
  });

  it('history: defaults, newest first, ties in purity order, meta fields', async () => {
    const today = day(Date.now());
    const from = addDays(today, -30);
    const res = await call('/v1/gold/history', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual(expected(from, today));
    expect(body.data).toHaveLength(90);
    expect(body.data.slice(0, 3).map((g: { purity: string }) => g.purity)).toEqual(['18K', '21K', '24K']);
    expect(new Set(body.data.slice(0, 3).map((g: { updatedAt: string }) => g.updatedAt)).size).toBe(1);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 90,
      quote: 'DZD',
      unit: 'gram',
      from: `${from}T00:00:00.000Z`,
      to: `${today}T23:59:59.999Z`,
      limit: 250,
      nextCursor: null,
    });
  });

  it('history pages split a day between pages without loss or repetition', async () => {
    const from = addDays(SAMPLE_END, -6);
    const base = `/v1/gold/history?from=${from}&to=${SAMPLE_END}`;
    const limits = [2, 2, 4, 1, 5];
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let n = 0;
    do {
      const limit = limits[Math.min(n, limits.length - 1)]!;
      const url: string = `${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call(url, key);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.meta).toMatchObject({
        limit,
        count: body.data.length,
        from: `${from}T00:00:00.000Z`,
        to: `${SAMPLE_END}T23:59:59.999Z`,
      });
      seen.push(...body.data);
      cursor = body.meta.nextCursor;
      n++;
      expect(n).toBeLessThan(50);
    } while (cursor);
    expect(seen).toEqual(expected(from, SAMPLE_END));
    expect(seen).toHaveLength(21);
  });

  it('history: 1 record per page walks every purity of a day', async () => {
    const base = `/v1/gold/history?from=${SAMPLE_END}&to=${SAMPLE_END}&limit=1`;
    const p1 = (await call(base, key)).json();
    const p2 = (await call(`${base}&cursor=${encodeURIComponent(p1.meta.nextCursor)}`, key)).json();
    const p3 = (await call(`${base}&cursor=${encodeURIComponent(p2.meta.nextCursor)}`, key)).json();
    expect([...p1.data, ...p2.data, ...p3.data].map((g) => g.purity)).toEqual(['18K', '21K', '24K']);
    if (p3.meta.nextCursor !== null) {
      const p4 = (await call(`${base}&cursor=${encodeURIComponent(p3.meta.nextCursor)}`, key)).json();
      expect(p4.data).toEqual([]);
      expect(p4.meta.nextCursor).toBeNull();
    }
  });

  it('history cursors are bound to from and to', async () => {
    const from = addDays(SAMPLE_END, -3);
    const base = `/v1/gold/history?from=${from}&to=${SAMPLE_END}`;
    const first = (await call(`${base}&limit=2`, key)).json();
    const cursor = encodeURIComponent(first.meta.nextCursor);
    expect((await call(`${base}&limit=2&cursor=${cursor}`, key)).statusCode).toBe(200);
    for (const url of [
      `/v1/gold/history?from=${addDays(from, -1)}&to=${SAMPLE_END}`,
      `/v1/gold/history?from=${from}&to=${addDays(SAMPLE_END, -1)}`,
      `/v1/gold/history?from=${from}`,
      `/v1/gold/history?to=${SAMPLE_END}`,
      '/v1/gold/history?limit=2',
    ]) {
      const res = await call(`${url}&cursor=${cursor}`, key);
      expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
    }
    // A rate-history cursor is not a gold cursor.
    const rates = (
      await call(`/v1/rates/history?currency=EUR&from=${from}&to=${SAMPLE_END}&limit=1`, key)
    ).json();
    const res = await call(`${base}&cursor=${encodeURIComponent(rates.meta.nextCursor)}`, key);
    expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=1e2', 'limit'],
    ['limit=%2B10', 'limit'],
    ['from=2025-02-30', 'from'],
    ['currency=EUR', 'currency'],
    ['source=parallel', 'source'],
    ['to=', 'to'],
    ['from=2025-01-01&from=2025-01-02', 'from'],
    ['cursor=abc', 'cursor'],
  ])('history: %s is a 400 on `%s`', async (query, parameter) => {
    const res = await call(`/v1/gold/history?${query}`, key);
    expectErrorBody(res, 400, parameter === 'cursor' ? 'invalid_cursor' : 'invalid_parameter', [
      { parameter, message: expect.any(String) },
    ]);
  });

  it('history: window rules as for rates', async () => {
    const ok = await call(
      `/v1/gold/history?from=${addDays(SAMPLE_END, -365)}&to=${SAMPLE_END}&limit=1000`,
      key,
    );
    expect(ok.statusCode).toBe(200);
    // 366 days × 3 purities = 1098 records: a full page of 1000, then 98.
    expect(ok.json().data).toEqual(expected(addDays(SAMPLE_END, -365), SAMPLE_END).slice(0, 1000));
    const rest = await call(
      `/v1/gold/history?from=${addDays(SAMPLE_END, -365)}&to=${SAMPLE_END}&limit=1000&cursor=${encodeURIComponent(ok.json().meta.nextCursor)}`,
      key,
    );
    expect(rest.json().data).toEqual(expected(addDays(SAMPLE_END, -365), SAMPLE_END).slice(1000));
    expect(rest.json().data).toHaveLength(98);
    expect(rest.json().meta.nextCursor).toBeNull();
    const tooLong = await call(`/v1/gold/history?from=${addDays(SAMPLE_END, -366)}&to=${SAMPLE_END}`, key);
    expectErrorBody(tooLong, 400, 'invalid_parameter', expect.any(Array));
    const inverted = await call('/v1/gold/history?from=2025-03-02&to=2025-03-01', key);
    expectErrorBody(inverted, 400, 'invalid_parameter', expect.any(Array));
    const empty = await call('/v1/gold/history?from=2001-01-01&to=2001-01-31', key);
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toEqual([]);
    const all = await call('/v1/gold/history?limit=0&foo=1&from=2025-02-30', key);
    expect(problemParameters(all)).toEqual(['foo', 'from', 'limit']);
  });
});

describe.each(backends())('/v1/gold with an empty store on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('latest is a 404 not_found while no gold record is stored; history is an empty 200', async () => {
    expectErrorBody(await call('/v1/gold/latest', key), 404, 'not_found');
    const history = await call('/v1/gold/history', key);
    expect(history.statusCode).toBe(200);
    expect(history.json().data).toEqual([]);
  });

  it('latest lists the purities present, in purity order, once imported', async () => {
    const t1 = Date.parse('2026-05-01T09:30:00.000Z');
    const t2 = Date.parse('2026-05-02T09:30:00.000Z');
    await h.store.import({
      kind: 'gold',
      records: [
        { purity: '24K', buy: 21_450_000_000, sell: 22_100_000_000, updatedAt: t1 },
        { purity: '18K', buy: 16_000_000_000, sell: 16_600_000_000, updatedAt: t1 },
        { purity: '24K', buy: 21_500_500_000, sell: 22_150_250_000, updatedAt: t2 },
      ],
    });
    await h.refresh();
    const res = await call('/v1/gold/latest', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        buy: 16000,
        sell: 16600,
        updatedAt: '2026-05-01T09:30:00.000Z',
      },
      {
        purity: '24K',
        quote: 'DZD',
        unit: 'gram',
        buy: 21500.5,
        sell: 22150.25,
        updatedAt: '2026-05-02T09:30:00.000Z',
      },
    ]);
    expect(res.json().meta.count).toBe(2);

    const history = (await call('/v1/gold/history?from=2026-05-01&to=2026-05-02', key)).json();
    expect(
      history.data.map((g: { purity: string; updatedAt: string }) => `${g.updatedAt} ${g.purity}`),
    ).toEqual([
      '2026-05-02T09:30:00.000Z 24K',
      '2026-05-01T09:30:00.000Z 18K',
      '2026-05-01T09:30:00.000Z 24K',
    ]);
  });
});
