/**
 * GET /v1/market/premium/history (decisions §12), through HTTP on every
 * backend. The observations are made here, around fresh currencies, so that
 * every gap is controlled; an oracle written from the rules (one day at a
 * time, by brute force) gives what each window must hold, and the cases of
 * the rules are also checked by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateObservation, Source } from '../../src/domain/types.js';
import { generateSample } from '../../src/sample/generate.js';
import { backends } from '../support/backends.js';
import { CSV_CONTENT_TYPE, expectCsvOf } from '../support/csv.js';
import { DAY, type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, problemParameters } from '../support/openapi.js';

const HOUR = 3_600_000;
/** Day 0 is a Monday. */
const D0 = Date.UTC(2025, 2, 3);
const date = (day: number) => new Date(D0 + day * DAY).toISOString().slice(0, 10);
const micros = (dzd: number) => Math.round(dzd * 1e6);

const COLUMNS = [
  'date',
  'currency',
  'quote',
  'parallel_buy',
  'parallel_sell',
  'parallel_updatedAt',
  'official_buy',
  'official_sell',
  'official_updatedAt',
  'premium_buy_amount',
  'premium_buy_percent',
  'premium_sell_amount',
  'premium_sell_percent',
];

function rate(currency: string, source: Source, day: number, at: number, buy: number, sell: number) {
  return { currency, source, buy: micros(buy), sell: micros(sell), updatedAt: D0 + day * DAY + at };
}

/**
 * XPR: the official rate at 10:00 on weekdays, none on the weekend of days 5–6,
 * none from day 12 to day 25, and on day 28 without a parallel one; the
 * parallel rate at 09:00 every day from 0 to 27, twice on day 2, at 10:00 on
 * day 18 (exactly 7 days after the last official one), and on day −10 (no
 * official one before it). Days 7 and 9 tie at the lowest premium, 8 and 10 at
 * the highest.
 */
const OFFICIAL: Array<[number, number, number]> = [
  [0, 153.32, 153.55],
  [1, 153.4, 153.62],
  [2, 153.1, 153.3],
  [3, 153.32, 153.55],
  [4, 153.5, 153.7],
  [7, 153.32, 153.55],
  [8, 153.32, 153.55],
  [9, 153.32, 153.55],
  [10, 153.32, 153.55],
  [11, 153.6, 153.8],
  [26, 154, 154.2],
  [28, 154.1, 154.3],
];
const PARALLEL: Array<[number, number, number, number]> = [
  [-10, 9 * HOUR, 250, 253],
  [0, 9 * HOUR, 259.1, 262.4],
  [1, 9 * HOUR, 258, 261],
  [2, 9 * HOUR, 250, 253],
  [2, 18 * HOUR, 260.5, 263.8],
  [3, 9 * HOUR, 257, 260],
  [4, 9 * HOUR, 256, 259.5],
  [5, 9 * HOUR, 255, 258],
  [6, 9 * HOUR, 255.5, 258.2],
  [7, 9 * HOUR, 240, 243],
  [8, 9 * HOUR, 270, 273],
  [9, 9 * HOUR, 240, 243],
  [10, 9 * HOUR, 270, 273],
  ...[11, 12, 13, 14, 15, 16, 17].map((d): [number, number, number, number] => [d, 9 * HOUR, 258, 261]),
  [18, 10 * HOUR, 258, 261],
  ...[19, 20, 21, 22, 23, 24, 25].map((d): [number, number, number, number] => [d, 9 * HOUR, 258, 261]),
  [26, 9 * HOUR, 259, 262],
  [27, 9 * HOUR, 259.5, 262.5],
];
/** XPH: halves to round, away from zero, in the percents and in their mean. */
const HALVES = [
  rate('XPH', 'official', 40, 10 * HOUR, 16, 16),
  rate('XPH', 'official', 41, 10 * HOUR, 16, 16),
  rate('XPH', 'parallel', 40, 9 * HOUR, 16.000008, 15.999992),
  rate('XPH', 'parallel', 41, 9 * HOUR, 16.000024, 15.999976),
];
const RECORDS: RateObservation[] = [
  ...OFFICIAL.map(([d, b, s]) => rate('XPR', 'official', d, 10 * HOUR, b, s)),
  ...PARALLEL.map(([d, at, b, s]) => rate('XPR', 'parallel', d, at, b, s)),
  ...HALVES,
  rate('XPP', 'parallel', 0, 9 * HOUR, 10, 11), // never an official observation
  rate('XPO', 'official', 0, 9 * HOUR, 10, 11), // never a parallel one
  // XPM: a parallel observation 7 days and 1 ms after the only official one.
  rate('XPM', 'official', 0, 10 * HOUR, 100, 101),
  rate('XPM', 'parallel', 7, 10 * HOUR + 1, 120, 121),
];
/** XPL: XPR's days 0 to 11, for the test that imports while paging. */
const XPL = RECORDS.filter(
  (r) => r.currency === 'XPR' && r.updatedAt >= D0 && r.updatedAt < D0 + 12 * DAY,
).map((r) => ({ ...r, currency: 'XPL' }));

// ---- The oracle: §12 and §8 read literally, one day at a time -----------------

/** (p − o) / o × 100 rounded half away from zero to 4 decimals, in BigInt. */
function percent(p: number, o: number): number {
  const scaled = BigInt(p - o) * 1_000_000n;
  const abs = scaled < 0n ? -scaled : scaled;
  let q = abs / BigInt(o);
  if ((abs % BigInt(o)) * 2n >= BigInt(o)) q += 1n;
  const v = Number(scaled < 0n ? -q : q) / 10_000;
  return v === 0 ? 0 : v;
}

const side = (r: RateObservation) => ({
  buy: r.buy / 1e6,
  sell: r.sell / 1e6,
  updatedAt: new Date(r.updatedAt).toISOString(),
});
const latest = (rs: RateObservation[]) =>
  rs.reduce<RateObservation | undefined>(
    (a, b) => (a === undefined || b.updatedAt > a.updatedAt ? b : a),
    undefined,
  );

type Item = {
  date: string;
  currency: string;
  quote: string;
  parallel: ReturnType<typeof side>;
  official: ReturnType<typeof side>;
  premium: Record<'buy' | 'sell', { amount: number; percent: number }>;
};

function oracle(records: RateObservation[], currency: string, from: string, to: string): Item[] {
  const items: Item[] = [];
  const series = (s: Source) => records.filter((r) => r.currency === currency && r.source === s);
  for (let day = Date.parse(`${to}T00:00:00Z`); day >= Date.parse(`${from}T00:00:00Z`); day -= DAY) {
    const p = latest(series('parallel').filter((r) => r.updatedAt >= day && r.updatedAt < day + DAY));
    const o = latest(series('official').filter((r) => r.updatedAt < day + DAY));
    if (!p || !o || p.updatedAt - o.updatedAt > 7 * DAY) continue;
    items.push({
      date: new Date(day).toISOString().slice(0, 10),
      currency,
      quote: 'DZD',
      parallel: side(p),
      official: side(o),
      premium: {
        buy: { amount: (p.buy - o.buy) / 1e6, percent: percent(p.buy, o.buy) },
        sell: { amount: (p.sell - o.sell) / 1e6, percent: percent(p.sell, o.sell) },
      },
    });
  }
  return items;
}

function summaryOf(items: Item[]) {
  if (items.length === 0) return null;
  const of = (k: 'buy' | 'sell') => {
    const ps = items.map((i) => ({ percent: i.premium[k].percent, date: i.date }));
    // Newest first: a strict comparison keeps the newest of a tie.
    const min = ps.reduce((a, b) => (b.percent < a.percent ? b : a));
    const max = ps.reduce((a, b) => (b.percent > a.percent ? b : a));
    const sum = ps.reduce((s, p) => s + BigInt(Math.round(p.percent * 1e4)), 0n);
    const n = BigInt(ps.length);
    const abs = sum < 0n ? -sum : sum;
    let q = abs / n;
    if ((abs % n) * 2n >= n) q += 1n;
    const mean = Number(sum < 0n ? -q : q) / 1e4;
    return { min, max, mean: mean === 0 ? 0 : mean };
  };
  return { days: items.length, buy: of('buy'), sell: of('sell') };
}

describe.each(backends())('/v1/market/premium/history on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  const url = (currency: string, from: number | string, to: number | string, extra = '') =>
    `/v1/market/premium/history?currency=${currency}&from=${typeof from === 'number' ? date(from) : from}&to=${typeof to === 'number' ? date(to) : to}${extra}`;

  beforeAll(async () => {
    h = await startHarness(backend);
    const asset = (code: string) => ({
      code,
      symbol: code,
      names: { en: code, fr: code, ar: code },
      type: 'currency' as const,
    });
    await h.store.imports.import({
      kind: 'assets',
      records: ['XPR', 'XPH', 'XPP', 'XPO', 'XPN', 'XPL', 'XPM'].map(asset),
    });
    await h.store.imports.import({ kind: 'rates', records: [...RECORDS, ...XPL] });
    await h.refresh();
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('one item per UTC day with a parallel observation, newest first, against the latest official one of that day', async () => {
    const res = await call(url('XPR', 0, 4), key);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.data.map((i: Item) => i.date)).toEqual([4, 3, 2, 1, 0].map(date));
    expect(body.data).toEqual(oracle(RECORDS, 'XPR', date(0), date(4)));
    expect(Object.keys(body.data[0])).toEqual([
      'date',
      'currency',
      'quote',
      'parallel',
      'official',
      'premium',
    ]);
    // Day 2: the later of its two parallel observations.
    expect(body.data[2].parallel).toEqual({ buy: 260.5, sell: 263.8, updatedAt: `${date(2)}T18:00:00.000Z` });
    // Day 0: the official observation of the same day, an hour after the parallel one, still counts.
    expect(body.data[4]).toEqual({
      date: date(0),
      currency: 'XPR',
      quote: 'DZD',
      parallel: { buy: 259.1, sell: 262.4, updatedAt: `${date(0)}T09:00:00.000Z` },
      official: { buy: 153.32, sell: 153.55, updatedAt: `${date(0)}T10:00:00.000Z` },
      // §8: exact differences (259.1 − 153.32 is 105.78000000000003 in binary), percents to 4 decimals.
      premium: { buy: { amount: 105.78, percent: 68.993 }, sell: { amount: 108.85, percent: 70.889 } },
    });
    expect(body.meta).toEqual({
      requestId: res.headers['x-request-id'],
      count: 5,
      currency: 'XPR',
      quote: 'DZD',
      from: `${date(0)}T00:00:00.000Z`,
      to: `${date(4)}T23:59:59.999Z`,
      limit: 250,
      nextCursor: null,
      summary: summaryOf(body.data),
    });
  });

  it('carries the official side over a weekend, with its own updatedAt', async () => {
    const body = (await call(url('XPR', 3, 7), key)).json();
    expect(body.data.map((i: Item) => i.date)).toEqual([7, 6, 5, 4, 3].map(date));
    for (const [i, day] of [
      [1, 6],
      [2, 5],
    ] as const) {
      expect(body.data[i].date).toBe(date(day));
      expect(body.data[i].parallel.updatedAt).toBe(`${date(day)}T09:00:00.000Z`);
      expect(body.data[i].official).toEqual({
        buy: 153.5,
        sell: 153.7,
        updatedAt: `${date(4)}T10:00:00.000Z`,
      });
    }
    expect(body.data).toEqual(oracle(RECORDS, 'XPR', date(3), date(7)));
  });

  it('carries forward from before the window: a Sunday alone gets Friday’s official rate', async () => {
    const body = (await call(url('XPR', 6, 6), key)).json();
    expect(body.data).toHaveLength(1);
    expect(body.data[0].official.updatedAt).toBe(`${date(4)}T10:00:00.000Z`);
    expect(body.meta.summary.days).toBe(1);
  });

  it('skips a day whose official rate is more than 7 days older; exactly 7 days is kept', async () => {
    const body = (await call(url('XPR', 12, 25), key)).json();
    expect(body.data.map((i: Item) => i.date)).toEqual([18, 17, 16, 15, 14, 13, 12].map(date));
    // Day 18 at 10:00 is exactly 7 days after day 11 at 10:00; day 19 at 09:00 is more.
    expect(body.data[0].parallel.updatedAt).toBe(`${date(18)}T10:00:00.000Z`);
    for (const item of body.data) expect(item.official.updatedAt).toBe(`${date(11)}T10:00:00.000Z`);
    expect(body.data).toEqual(oracle(RECORDS, 'XPR', date(12), date(25)));
    // A millisecond more than 7 days: skipped.
    const late = (await call(url('XPM', 0, 7), key)).json();
    expect(late.data).toEqual([]);
    expect(late.meta.summary).toBeNull();
  });

  it('no item for a day with an official rate only, nor for a parallel one with no official rate before it', async () => {
    const official = await call(url('XPR', 28, 28), key);
    expect(official.statusCode).toBe(200);
    expect(official.json().data).toEqual([]);
    const lonely = await call(url('XPR', -10, -1), key);
    expect(lonely.json().data).toEqual([]);
  });

  it('a window without any item is a 200 with an empty page and summary null', async () => {
    for (const u of [url('XPR', 19, 25), url('XPR', '2001-01-01', '2001-12-31'), url('XPR', 28, 28)]) {
      const res = await call(u, key);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual([]);
      expect(res.json().meta).toMatchObject({ count: 0, nextCursor: null, summary: null });
      expect(res.headers.link).toBeUndefined();
    }
  });

  it('the summary covers the whole window, the same on every page of limit=1, ties going to the newest day', async () => {
    const whole = oracle(RECORDS, 'XPR', date(-10), date(28));
    expect(whole).toHaveLength(21);
    const expected = summaryOf(whole);
    expect(expected?.buy.min).toEqual({
      percent: whole.find((i) => i.date === date(9))!.premium.buy.percent,
      date: date(9),
    });
    expect(expected?.buy.max.date).toBe(date(10));
    expect(expected?.sell.min.date).toBe(date(9));
    expect(expected?.sell.max.date).toBe(date(10));

    const items: Item[] = [];
    let target: string | undefined = url('XPR', -10, 28, '&limit=1');
    let cursor: string | null = null;
    do {
      const res = await call(target!, key);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.meta.summary).toEqual(expected);
      expect(body.meta.limit).toBe(1);
      items.push(...body.data);
      cursor = body.meta.nextCursor;
      // Link is present exactly when there is a next cursor, and leads to it.
      if (cursor === null) expect(res.headers.link).toBeUndefined();
      else expect(res.headers.link).toBe(`<${url('XPR', -10, 28, '&limit=1')}&cursor=${cursor}>; rel="next"`);
      target = cursor === null ? undefined : `${url('XPR', -10, 28, '&limit=1')}&cursor=${cursor}`;
      expect(items.length).toBeLessThan(30);
    } while (cursor !== null);
    expect(items).toEqual(whole);

    // The limit may change between pages; the summary does not.
    const first = (await call(url('XPR', -10, 28, '&limit=4'), key)).json();
    const second = (await call(url('XPR', -10, 28, `&limit=10&cursor=${first.meta.nextCursor}`), key)).json();
    expect([...first.data, ...second.data]).toEqual(whole.slice(0, 14));
    expect(second.meta.summary).toEqual(expected);
    expect(second.meta.count).toBe(10);
  });

  it('rounds half away from zero, the percents and their mean (§8)', async () => {
    const body = (await call(url('XPH', 40, 41), key)).json();
    expect(body.data.map((i: Item) => i.premium)).toEqual([
      { buy: { amount: 0.000024, percent: 0.0002 }, sell: { amount: -0.000024, percent: -0.0002 } },
      { buy: { amount: 0.000008, percent: 0.0001 }, sell: { amount: -0.000008, percent: -0.0001 } },
    ]);
    expect(body.meta.summary).toEqual({
      days: 2,
      buy: {
        min: { percent: 0.0001, date: date(40) },
        max: { percent: 0.0002, date: date(41) },
        mean: 0.0002,
      },
      sell: {
        min: { percent: -0.0002, date: date(41) },
        max: { percent: -0.0001, date: date(40) },
        mean: -0.0002,
      },
    });
  });

  it('on the sample data: every day of the default window, as the oracle says', async () => {
    const sample = generateSample({ endDate: SAMPLE_END }).rates.filter((r) => r.currency === 'EUR');
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.parse(today) - 30 * DAY).toISOString().slice(0, 10);
    const res = await call('/v1/market/premium/history?currency=EUR', key);
    const body = res.json();
    expect(body.meta).toMatchObject({
      count: 30,
      currency: 'EUR',
      from: `${from}T00:00:00.000Z`,
      to: `${today}T23:59:59.999Z`,
      limit: 250,
      nextCursor: null,
    });
    expect(body.data).toEqual(oracle(sample, 'EUR', from, today));
    expect(body.meta.summary).toEqual(summaryOf(body.data));
    // The latest item is the /v1/market/premium item of that day.
    const { change, ...now } = (await call('/v1/market/premium?currency=EUR', key)).json().data[0];
    const { date: _day, ...latestItem } = body.data[0];
    expect(latestItem).toEqual(now);
    // Its change is against the item of the day before (decisions 124), in percentage points.
    const [today_, before] = body.data as Item[];
    const points = (side: 'buy' | 'sell') =>
      Math.round((today_!.premium[side].percent - before!.premium[side].percent) * 10_000) / 10_000;
    expect(change).toEqual({
      since: before!.parallel.updatedAt,
      buy: { percentPoints: points('buy') },
      sell: { percentPoints: points('sell') },
    });
  });

  it('a record imported while paging causes no duplicate and no gap among older days', async () => {
    const base = url('XPL', 0, 11, '&limit=5');
    const before = oracle(XPL, 'XPL', date(0), date(11));
    const first = (await call(base, key)).json();
    expect(first.data).toEqual(before.slice(0, 5));
    // A newer parallel observation of day 11 (already paged) and a change to day 3 (not yet).
    const late = [
      rate('XPL', 'parallel', 11, 20 * HOUR, 300, 303),
      rate('XPL', 'parallel', 3, 9 * HOUR, 200, 203),
    ];
    await h.store.imports.import({ kind: 'rates', records: late });
    await h.refresh();
    const rest: Item[] = [];
    let cursor: string | null = first.meta.nextCursor;
    while (cursor) {
      const page = (await call(`${base}&cursor=${cursor}`, key)).json();
      rest.push(...page.data);
      cursor = page.meta.nextCursor;
    }
    // The import replaced the stored record with the same instant.
    const same = (a: RateObservation, b: RateObservation) =>
      a.source === b.source && a.updatedAt === b.updatedAt;
    const stored = [...XPL.filter((r) => !late.some((l) => same(l, r))), ...late];
    const after = oracle(stored, 'XPL', date(0), date(11));
    expect(rest).toEqual(after.slice(5));
    expect(rest.find((i) => i.date === date(3))?.parallel.buy).toBe(200);
    expect([...first.data, ...rest].map((i) => i.date)).toEqual(before.map((i) => i.date));
    // A fresh first page sees the newer observation.
    expect((await call(base, key)).json().data[0].parallel.buy).toBe(300);
  });

  it('binds the cursor to currency, from and to: any other filters are 400 invalid_cursor', async () => {
    const base = url('XPR', 0, 11);
    const cursor = (await call(`${base}&limit=3`, key)).json().meta.nextCursor as string;
    expect((await call(`${base}&limit=3&cursor=${cursor}`, key)).statusCode).toBe(200);
    expect((await call(`${base}&limit=7&cursor=${cursor}`, key)).statusCode).toBe(200); // limit may change
    const bad = { parameter: 'cursor', message: expect.any(String) };
    for (const other of [
      url('XPH', 0, 11),
      url('XPR', 1, 11),
      url('XPR', 0, 10),
      `/v1/market/premium/history?currency=XPR&to=${date(11)}`,
      '/v1/market/premium/history?currency=XPR',
    ]) {
      expectErrorBody(await call(`${other}&cursor=${cursor}`, key), 400, 'invalid_cursor', [bad]);
    }
    // Not a cursor of the rate history for the same currency and window, nor the other way round.
    const rates = `/v1/rates/history?currency=EUR&from=${date(0)}&to=${date(11)}`;
    expectErrorBody(await call(`${rates}&cursor=${cursor}`, key), 400, 'invalid_cursor', [bad]);
    const ratesCursor = (await call(`${rates}&limit=2`, key)).json().meta.nextCursor;
    const eur = url('EUR', 0, 11);
    expectErrorBody(await call(`${eur}&cursor=${ratesCursor}`, key), 400, 'invalid_cursor', [bad]);
    const tampered = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    expectErrorBody(await call(`${base}&cursor=${tampered}`, key), 400, 'invalid_cursor', [bad]);
  });

  it('the window, limit and currency rules of the rate history', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const days = (n: number) => new Date(Date.parse(today) - n * DAY).toISOString().slice(0, 10);
    const ok366 = await call(
      `/v1/market/premium/history?currency=EUR&from=${days(365)}&to=${today}&limit=1000`,
      key,
    );
    expect(ok366.statusCode).toBe(200);
    expect(ok366.json().meta.summary.days).toBe(365); // the sample ends yesterday
    const one = (p: string) => [{ parameter: p, message: expect.any(String) }];
    expectErrorBody(
      await call(`/v1/market/premium/history?currency=EUR&from=${days(366)}`, key),
      400,
      'invalid_parameter',
      one('from'),
    );
    expectErrorBody(await call(url('EUR', 3, 2), key), 400, 'invalid_parameter', [
      { parameter: 'from', message: 'must not be after `to`' },
    ]);
    expectErrorBody(await call('/v1/market/premium/history', key), 400, 'invalid_parameter', one('currency'));
    for (const q of ['currency=EUR,USD', 'currency=eur', 'currency=EUR&currency=USD']) {
      expectErrorBody(
        await call(`/v1/market/premium/history?${q}`, key),
        400,
        'invalid_parameter',
        one('currency'),
      );
    }
    for (const q of ['limit=0', 'limit=1001', 'limit=1e2', 'limit=010']) {
      expectErrorBody(
        await call(`/v1/market/premium/history?currency=EUR&${q}`, key),
        400,
        'invalid_parameter',
        one('limit'),
      );
    }
    expectErrorBody(
      await call('/v1/market/premium/history?currency=EUR&source=parallel', key),
      400,
      'invalid_parameter',
      one('source'),
    );
    expectErrorBody(
      await call('/v1/market/premium/history?currency=EUR&from=2025-02-30', key),
      400,
      'invalid_parameter',
      one('from'),
    );
    const all = await call(
      '/v1/market/premium/history?currency=eur&limit=0&from=2026-01-10&to=2026-01-01&x=1',
      key,
    );
    expectErrorBody(all, 400, 'invalid_parameter', expect.any(Array));
    expect(problemParameters(all)).toEqual(['currency', 'from', 'limit', 'x']);
    const limits = await call('/v1/market/premium/history?currency=EUR&limit=1', key);
    expect(limits.json().data).toHaveLength(1);
    expect(limits.json().meta.summary.days).toBe(30);
  });

  it('404 not_found: a code not in the directory, or never a parallel, or never an official observation', async () => {
    for (const code of ['ZZZ', 'XPP', 'XPO', 'XPN']) {
      const res = await call(`/v1/market/premium/history?currency=${code}`, key);
      expectErrorBody(res, 404, 'not_found');
      expect(res.headers['x-monthly-quota-remaining']).toBeDefined();
    }
    // A pair with both series but nothing in the window is a 200 (above): not a 404.
    expect((await call(url('XPH', '2001-01-01', '2001-01-31'), key)).statusCode).toBe(200);
  });

  it('CSV by Accept: the same records, the same Link, its own ETag; errors stay JSON', async () => {
    const u = url('XPR', -10, 28, '&limit=8');
    const json = await call(u, key);
    const csv = await call(u, key, { accept: 'text/csv;q=0.9, application/json;q=0.8' });
    expectCsvOf(csv, json, COLUMNS);
    expect(csv.body.split('\r\n')[0]).toBe(COLUMNS.join(','));
    expect(csv.headers.link).toBe(json.headers.link);
    expect(json.headers.link).toBe(`<${u}&cursor=${json.json().meta.nextCursor}>; rel="next"`);
    expect(csv.headers.etag).not.toBe(json.headers.etag);
    expect(csv.headers.vary).toBe('accept, accept-encoding');
    expect((await call(u, key, { accept: '*/*' })).headers['content-type']).toBe(
      'application/json; charset=utf-8',
    );
    expect((await call(u, key, { accept: 'text/csv, application/json' })).headers['content-type']).toBe(
      'application/json; charset=utf-8',
    );
    const empty = await call(url('XPR', 19, 25), key, { accept: 'text/csv' });
    expect(empty.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(empty.body).toBe(`${COLUMNS.join(',')}\r\n`);
    expectErrorBody(
      await call('/v1/market/premium/history?currency=ZZZ', key, { accept: 'text/csv' }),
      404,
      'not_found',
    );
  });

  it('a page served once is served again from the page cache, JSON and CSV, and counted', async () => {
    const u = url('XPR', 0, 27, '&limit=6');
    for (const headers of [{}, { accept: 'text/csv' }] as Array<Record<string, string>>) {
      const general = await h.get(u, key, headers);
      const fast = await h.get(u, key, headers);
      expect(fast.statusCode).toBe(200);
      expect(fast.headers['content-type']).toBe(general.headers['content-type']);
      expect(fast.headers.link).toBe(general.headers.link);
      expect(fast.headers.etag).toBe(general.headers.etag);
      expect(fast.body.replace(String(fast.headers['x-request-id']), '')).toBe(
        general.body.replace(String(general.headers['x-request-id']), ''),
      );
      expect(Number(fast.headers['x-monthly-quota-remaining'])).toBe(
        Number(general.headers['x-monthly-quota-remaining']) - 1,
      );
    }
  });
});
