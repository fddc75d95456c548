/** GET /v1/rates/history (its deprecated alias /v1/rates/historical is in rates-historical.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { type Harness, SAMPLE_END } from '../support/harness.js';
import { type Call, expectErrorBody, keyedHarness, problemParameters } from '../support/openapi.js';
import { addDays, day, expectedRates, IMPORTED } from '../support/sample-records.js';

describe.each(backends())('/v1/rates/history on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  /** Follows nextCursor to the end; `limits` gives the limit of each page (the last one repeats). */
  async function allPages(base: string, limits: number[]) {
    const pages: Array<{ data: unknown[]; meta: Record<string, unknown> }> = [];
    let cursor: string | null = null;
    do {
      const limit = limits[Math.min(pages.length, limits.length - 1)]!;
      const url: string = `${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call(url, key);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.meta.limit).toBe(limit);
      expect(body.meta.count).toBe(body.data.length);
      expect(body.data.length).toBeLessThanOrEqual(limit);
      pages.push(body);
      cursor = body.meta.nextCursor;
      if (cursor !== null) {
        expect(body.data.length).toBe(limit);
        expect(typeof cursor).toBe('string');
        expect(cursor.length).toBeLessThanOrEqual(500);
      }
      expect(pages.length).toBeLessThan(200);
    } while (cursor !== null);
    return pages;
  }

  it('defaults: parallel, to = today (UTC), from = 30 days before, limit 250, newest first', async () => {
    const today = day(Date.now());
    const from = addDays(today, -30);
    const res = await call('/v1/rates/history?currency=EUR', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 30,
      currency: 'EUR',
      source: 'parallel',
      quote: 'DZD',
      from: `${from}T00:00:00.000Z`,
      to: `${today}T23:59:59.999Z`,
      limit: 250,
      nextCursor: null,
    });
    expect(body.data).toEqual(expectedRates('EUR', 'parallel', from, today));
    expect(body.data[0].updatedAt).toBe(`${SAMPLE_END}T09:00:00.000Z`);
    for (const r of body.data) {
      expect(Object.keys(r).sort()).toEqual([
        'buy',
        'currency',
        'quality',
        'quote',
        'sell',
        'source',
        'updatedAt',
      ]);
    }
  });

  it('`from` alone: to defaults to today; `to` alone: from defaults to 30 days before it', async () => {
    const today = day(Date.now());
    const a = (await call(`/v1/rates/history?currency=USD&from=${addDays(today, -3)}`, key)).json();
    expect(a.meta.from).toBe(`${addDays(today, -3)}T00:00:00.000Z`);
    expect(a.meta.to).toBe(`${today}T23:59:59.999Z`);
    expect(a.data).toEqual(expectedRates('USD', 'parallel', addDays(today, -3), today));
    expect(a.data).toHaveLength(3);

    const to = addDays(today, -100);
    const b = (await call(`/v1/rates/history?currency=USD&to=${to}&source=official`, key)).json();
    expect(b.meta.from).toBe(`${addDays(to, -30)}T00:00:00.000Z`);
    expect(b.meta.to).toBe(`${to}T23:59:59.999Z`);
    expect(b.meta.source).toBe('official');
    expect(b.data).toEqual(expectedRates('USD', 'official', addDays(to, -30), to));
    expect(b.data).toHaveLength(31);
  });

  it('limit bounds: 1 and 1000 are accepted', async () => {
    const one = (await call('/v1/rates/history?currency=EUR&limit=1', key)).json();
    expect(one.data).toHaveLength(1);
    expect(one.meta.limit).toBe(1);
    expect(one.meta.nextCursor).toEqual(expect.any(String));
    const max = (await call('/v1/rates/history?currency=EUR&limit=1000', key)).json();
    expect(max.meta.limit).toBe(1000);
    expect(max.data).toHaveLength(30);
  });

  it.each([
    'limit=0',
    'limit=1001',
    'limit=1e2',
    'limit=10.0',
    'limit=%2B10',
    'limit=+10',
    'limit=%2010',
    'limit=10%20',
    'limit=-1',
    'limit=010',
    'limit=0x10',
    'limit=ten',
    'limit=',
    'limit=10&limit=10',
  ])('%s is a 400 on `limit`', async (query) => {
    const res = await call(`/v1/rates/history?currency=EUR&${query}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter: 'limit', message: expect.any(String) }]);
  });

  it.each([
    ['from=2025-02-30', 'from'],
    ['to=2025-02-29', 'to'],
    ['from=2025-13-01', 'from'],
    ['from=2025-1-01', 'from'],
    ['from=20250101', 'from'],
    ['to=2025-01-01T00:00:00Z', 'to'],
    ['from=', 'from'],
    ['source=black', 'source'],
    ['currency=EUR', 'currency'],
    ['currency=eur', 'currency'],
  ])('%s is a 400 on `%s`', async (query, parameter) => {
    // `currency=EUR` a second time is a repeated parameter.
    const base = query.startsWith('currency=') && query !== 'currency=EUR' ? '' : 'currency=EUR&';
    const res = await call(`/v1/rates/history?${base}${query}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter, message: expect.any(String) }]);
  });

  it('currency is required, and exactly one code', async () => {
    const none = await call('/v1/rates/history', key);
    expectErrorBody(none, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
    const two = await call('/v1/rates/history?currency=EUR,USD', key);
    expectErrorBody(two, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
  });

  it('a leap day exists in 2024', async () => {
    const res = await call('/v1/rates/history?currency=EUR&from=2024-02-29&to=2024-02-29', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().meta.from).toBe('2024-02-29T00:00:00.000Z');
    expect(res.json().meta.to).toBe('2024-02-29T23:59:59.999Z');
  });

  it('from after to is a 400', async () => {
    const res = await call('/v1/rates/history?currency=EUR&from=2025-03-02&to=2025-03-01', key);
    expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
    expect(['from', 'to']).toContain(problemParameters(res)[0]);
    const same = await call('/v1/rates/history?currency=EUR&from=2025-03-01&to=2025-03-01', key);
    expect(same.statusCode).toBe(200);
  });

  it('a window of 366 days (both ends included) is accepted, 367 is a 400', async () => {
    const from366 = addDays(SAMPLE_END, -365);
    const ok = await call(`/v1/rates/history?currency=EUR&from=${from366}&to=${SAMPLE_END}&limit=1000`, key);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toEqual(expectedRates('EUR', 'parallel', from366, SAMPLE_END));
    expect(ok.json().data).toHaveLength(366);
    expect(ok.json().meta.nextCursor).toBeNull();

    const from367 = addDays(SAMPLE_END, -366);
    const bad = await call(`/v1/rates/history?currency=EUR&from=${from367}&to=${SAMPLE_END}`, key);
    expectErrorBody(bad, 400, 'invalid_parameter', expect.any(Array));
    expect(bad.json().error.details).toHaveLength(1);
    // Also when only `from` is given and `to` defaults to today.
    const today = day(Date.now());
    const badDefault = await call(`/v1/rates/history?currency=EUR&from=${addDays(today, -366)}`, key);
    expectErrorBody(badDefault, 400, 'invalid_parameter', expect.any(Array));
    const okDefault = await call(`/v1/rates/history?currency=EUR&from=${addDays(today, -365)}&limit=1`, key);
    expect(okDefault.statusCode).toBe(200);
  });

  it('404 not_found for a code not in the directory', async () => {
    const res = await call('/v1/rates/history?currency=ZZZ', key);
    expectErrorBody(res, 404, 'not_found');
  });

  it('404 not_found for an asset that never had an observation for the source', async () => {
    const res = await call('/v1/rates/history?currency=JPY&source=transfer', key);
    expectErrorBody(res, 404, 'not_found');
    // The same asset on a source it has is fine.
    expect((await call('/v1/rates/history?currency=JPY&source=official', key)).statusCode).toBe(200);
    expect((await call('/v1/rates/history?currency=EUR&source=transfer', key)).statusCode).toBe(200);
  });

  it('200 with an empty page for a known series with nothing in the window', async () => {
    const res = await call('/v1/rates/history?currency=EUR&from=2001-01-01&to=2001-12-31', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([]);
    expect(res.json().meta).toMatchObject({
      count: 0,
      from: '2001-01-01T00:00:00.000Z',
      to: '2001-12-31T23:59:59.999Z',
      nextCursor: null,
    });
    const today = day(Date.now());
    const todayOnly = await call(`/v1/rates/history?currency=EUR&from=${today}&to=${today}`, key);
    expect(todayOnly.statusCode).toBe(200);
    expect(todayOnly.json().data).toEqual([]);
  });

  it('pages through a window, every record exactly once and in order, limit changing between pages', async () => {
    const from = addDays(SAMPLE_END, -59);
    const base = `/v1/rates/history?currency=GBP&source=official&from=${from}&to=${SAMPLE_END}`;
    const pages = await allPages(base, [7, 3, 11, 5]);
    const records = pages.flatMap((p) => p.data);
    expect(records).toEqual(expectedRates('GBP', 'official', from, SAMPLE_END));
    expect(records).toHaveLength(60);
    for (const p of pages) {
      expect(p.meta.from).toBe(`${from}T00:00:00.000Z`);
      expect(p.meta.to).toBe(`${SAMPLE_END}T23:59:59.999Z`);
      expect(p.meta.currency).toBe('GBP');
      expect(p.meta.source).toBe('official');
    }
    // 60 records with pages of 7, 3, 11, 5, 5, …: the last one is short and has no cursor.
    expect(pages.map((p) => p.data.length)).toEqual([7, 3, 11, 5, 5, 5, 5, 5, 5, 5, 4]);
  });

  it('pages through the default window with an exact multiple: the last full page may end the list', async () => {
    const pages = await allPages('/v1/rates/history?currency=CHF&source=transfer', [10]);
    const records = pages.flatMap((p) => p.data);
    const today = day(Date.now());
    expect(records).toEqual(expectedRates('CHF', 'transfer', addDays(today, -30), today));
    expect(records).toHaveLength(30);
    // A trailing empty page is allowed; no record is ever repeated.
    expect(new Set(records.map((r) => JSON.stringify(r))).size).toBe(30);
  });

  it('rejects a tampered, over-long or foreign cursor with 400 invalid_cursor', async () => {
    const base = `/v1/rates/history?currency=EUR&from=${addDays(SAMPLE_END, -20)}&to=${SAMPLE_END}`;
    const first = (await call(`${base}&limit=5`, key)).json();
    const cursor: string = first.meta.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    // The genuine cursor works.
    const next = await call(`${base}&limit=5&cursor=${encodeURIComponent(cursor)}`, key);
    expect(next.statusCode).toBe(200);

    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const bad = [
      flip(cursor, 0),
      flip(cursor, Math.floor(cursor.length / 2)),
      flip(cursor, cursor.length - 1),
      `${cursor}A`,
      `${cursor}!`,
      `${cursor}=`,
      cursor.replace('~', '~ '),
      cursor.slice(0, -1),
      'not-a-cursor',
      'x'.repeat(501),
      `${cursor}${'A'.repeat(501 - cursor.length)}`,
    ];
    for (const c of bad) {
      const res = await call(`${base}&cursor=${encodeURIComponent(c)}`, key);
      expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
    }

    const reuse = [
      `/v1/rates/history?currency=USD&from=${addDays(SAMPLE_END, -20)}&to=${SAMPLE_END}`,
      `${base}&source=official`,
      `/v1/rates/history?currency=EUR&from=${addDays(SAMPLE_END, -21)}&to=${SAMPLE_END}`,
      `/v1/rates/history?currency=EUR&from=${addDays(SAMPLE_END, -20)}&to=${addDays(SAMPLE_END, -1)}`,
      `/v1/rates/history?currency=EUR&from=${addDays(SAMPLE_END, -20)}`,
      '/v1/rates/history?currency=EUR',
    ];
    for (const url of reuse) {
      const res = await call(`${url}&cursor=${encodeURIComponent(cursor)}`, key);
      expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
    }
    // A cursor of the gold history is not one of the rate history.
    const gold = (
      await call(`/v1/gold/history?from=${addDays(SAMPLE_END, -20)}&to=${SAMPLE_END}&limit=2`, key)
    ).json();
    const res = await call(`${base}&cursor=${encodeURIComponent(gold.meta.nextCursor)}`, key);
    expectErrorBody(res, 400, 'invalid_cursor', [{ parameter: 'cursor', message: expect.any(String) }]);
  });

  it('a bad cursor together with another problem is reported as invalid_parameter with both', async () => {
    const res = await call('/v1/rates/history?currency=EUR&limit=0&cursor=x'.concat('y'.repeat(600)), key);
    expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(res)).toEqual(['cursor', 'limit']);
  });

  it('reports every problem of one request together', async () => {
    const res = await call('/v1/rates/history?currency=eur&source=x&from=2025-02-30&limit=1e2&foo=1', key);
    expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(res)).toEqual(['currency', 'foo', 'from', 'limit', 'source']);
  });

  it('a record imported while paging causes no duplicate and no gap among older records', async () => {
    const from = addDays(SAMPLE_END, -29);
    const base = `/v1/rates/history?currency=CAD&from=${from}&to=${SAMPLE_END}`;
    const before = expectedRates('CAD', 'parallel', from, SAMPLE_END);
    const first = (await call(`${base}&limit=4`, key)).json();
    expect(first.data).toEqual(before.slice(0, 4));

    // A newer observation (later the same day) and a correction of a record not yet paged.
    const newer = {
      currency: 'CAD',
      source: 'parallel' as const,
      buy: 160_000_000,
      sell: 163_500_000,
      updatedAt: Date.parse(`${SAMPLE_END}T15:00:00.000Z`),
    };
    await h.store.imports.import({ kind: 'rates', records: [newer] });
    await h.refresh();

    const rest: unknown[] = [];
    let cursor: string | null = first.meta.nextCursor;
    while (cursor) {
      const page = (await call(`${base}&limit=6&cursor=${encodeURIComponent(cursor)}`, key)).json();
      rest.push(...page.data);
      cursor = page.meta.nextCursor;
    }
    expect([...first.data, ...rest]).toEqual(before);

    // A fresh first page sees the new record on top.
    const fresh = (await call(`${base}&limit=2`, key)).json();
    expect(fresh.data[0]).toEqual({
      currency: 'CAD',
      source: 'parallel',
      quote: 'DZD',
      buy: 160,
      sell: 163.5,
      updatedAt: `${SAMPLE_END}T15:00:00.000Z`,
      quality: IMPORTED,
    });
    expect(fresh.data[1]).toEqual(before[0]);
  });
});
