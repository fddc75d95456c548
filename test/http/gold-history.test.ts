/** GET /v1/gold/history (the latest records are in gold-latest.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import {
  type Call,
  conformingGet,
  expectErrorBody,
  keyedHarness,
  problemParameters,
} from '../support/openapi.js';
import { addDays, day, expectedGold } from '../support/sample-records.js';

describe.each(backends())('/v1/gold/history on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  it('history: defaults, newest first, ties in purity order, meta fields', async () => {
    const today = day(Date.now());
    const from = addDays(today, -30);
    const res = await call('/v1/gold/history', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual(expectedGold(from, today));
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
    expect(seen).toEqual(expectedGold(from, SAMPLE_END));
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
    expect(ok.json().data).toEqual(expectedGold(addDays(SAMPLE_END, -365), SAMPLE_END).slice(0, 1000));
    const rest = await call(
      `/v1/gold/history?from=${addDays(SAMPLE_END, -365)}&to=${SAMPLE_END}&limit=1000&cursor=${encodeURIComponent(ok.json().meta.nextCursor)}`,
      key,
    );
    expect(rest.json().data).toEqual(expectedGold(addDays(SAMPLE_END, -365), SAMPLE_END).slice(1000));
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

describe.each(backends())('/v1/gold/history with an empty store on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('is an empty 200 while no gold record is stored', async () => {
    const history = await call('/v1/gold/history', key);
    expect(history.statusCode).toBe(200);
    expect(history.json().data).toEqual([]);
  });
});
