/**
 * `change` on the latest rates, gold and premium (decisions 122, 124), and
 * `at=` on the latest rates and gold (decisions 123), through HTTP on every
 * backend, with values computed by hand from the observations below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagesOf } from '../../src/http/pipeline/bodies.js';
import { backends } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody } from '../support/openapi.js';
import { IMPORTED } from '../support/sample-records.js';

const M = 1_000_000;
/** An instant of November 2026: the 20th is a Friday, the 23rd the Monday after. */
const nov = (day: number, h: number, m = 0) => Date.UTC(2026, 10, day, h, m);
const iso = (ms: number) => new Date(ms).toISOString();
const asset = (code: string) => ({
  code,
  symbol: code,
  names: { en: `${code} en`, fr: `${code} fr`, ar: `${code} ar` },
  type: 'currency' as const,
});
const rate = (currency: string, source: 'parallel' | 'official', at: number, buy: number, sell: number) => ({
  currency,
  source,
  buy: Math.round(buy * M),
  sell: Math.round(sell * M),
  updatedAt: at,
});

describe.each(backends())('change since the previous day and at= on $name', (backend) => {
  let h: Harness;
  let call: Call;
  let key: string;

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    key = (await h.newKey()).key;
    call = await conformingGet(h);
    await h.store.imports.import({ kind: 'assets', records: [asset('EUR'), asset('USD')] });
    await h.store.imports.import({
      kind: 'rates',
      records: [
        rate('EUR', 'parallel', nov(19, 10), 250, 252),
        rate('EUR', 'parallel', nov(20, 9), 251, 253),
        rate('EUR', 'parallel', nov(20, 15), 252.4, 254.1),
        rate('EUR', 'parallel', nov(23, 8), 255.1, 257.3),
        rate('EUR', 'parallel', nov(23, 12), 256, 258),
        rate('EUR', 'official', nov(20, 11), 150, 150.5),
        rate('EUR', 'official', nov(23, 11), 151, 151.25),
        rate('USD', 'parallel', nov(20, 9), 230, 232),
        rate('USD', 'official', nov(20, 11), 134, 134.5),
      ],
    });
    await h.store.imports.import({
      kind: 'gold',
      records: [
        { purity: '18K', buy: 20_000 * M, sell: 20_500 * M, updatedAt: nov(20, 9, 30) },
        { purity: '18K', buy: 20_150_500_000, sell: 20_600 * M, updatedAt: nov(23, 9, 30) },
      ],
    });
    await h.refresh();
  });
  afterAll(async () => h?.close());

  it("compares Monday's latest rate with Friday's last, across the weekend", async () => {
    const res = await call('/v1/rates/latest?currency=EUR,USD', key);
    expect(res.statusCode).toBe(200);
    const [eur, usd] = res.json().data;
    expect(Object.keys(eur).at(-1)).toBe('change');
    // 256 − 252.4 = 3.6, 3.6 / 252.4 × 100 = 1.42630…; 258 − 254.1 = 3.9, 3.9 / 254.1 × 100 = 1.53483…
    expect(eur.change).toEqual({
      since: iso(nov(20, 15)),
      buy: { amount: 3.6, percent: 1.4263 },
      sell: { amount: 3.9, percent: 1.5348 },
    });
    // USD has nothing before Friday.
    expect(usd.change).toBeNull();
    const official = (await call('/v1/rates/latest?source=official&currency=EUR', key)).json().data[0];
    // 151 − 150 = 1 (0.66666… %); 151.25 − 150.5 = 0.75 (0.49833… %).
    expect(official.change).toEqual({
      since: iso(nov(20, 11)),
      buy: { amount: 1, percent: 0.6667 },
      sell: { amount: 0.75, percent: 0.4983 },
    });
  });

  it('gives gold its change, and the premium the change of its percent in points', async () => {
    const gold = (await call('/v1/gold/latest', key)).json().data;
    expect(gold).toEqual([
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        buy: 20150.5,
        sell: 20600,
        updatedAt: iso(nov(23, 9, 30)),
        quality: IMPORTED,
        // 150.5 / 20000 × 100 = 0.7525; 100 / 20500 × 100 = 0.48780…
        change: {
          since: iso(nov(20, 9, 30)),
          buy: { amount: 150.5, percent: 0.7525 },
          sell: { amount: 100, percent: 0.4878 },
        },
      },
    ]);
    const premium = (await call('/v1/market/premium?currency=EUR,USD', key)).json().data;
    // Today: (256 − 151) / 151 = 69.5364 %, (258 − 151.25) / 151.25 = 70.5785 %. Friday: the parallel
    // rate of 15:00 against the official one of 11:00, (252.4 − 150) / 150 = 68.2667 %,
    // (254.1 − 150.5) / 150.5 = 68.8372 %.
    expect(premium[0].premium.buy.percent).toBe(69.5364);
    expect(premium[0].change).toEqual({
      since: iso(nov(20, 15)),
      buy: { percentPoints: 1.2697 },
      sell: { percentPoints: 1.7413 },
    });
    expect(premium[1].currency).toBe('USD');
    expect(premium[1].change).toBeNull();
  });

  it('at= exactly on an observation’s instant serves it, its change relative to it', async () => {
    const res = await call(`/v1/rates/latest?currency=EUR&at=${iso(nov(23, 8))}`, key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ currency: 'EUR', source: 'parallel', buy: 255.1, sell: 257.3 });
    expect(body.data[0].updatedAt).toBe(iso(nov(23, 8)));
    expect(body.data[0].quality).toEqual(IMPORTED);
    // 255.1 − 252.4 = 2.7 (1.06973… %); 257.3 − 254.1 = 3.2 (1.25934… %).
    expect(body.data[0].change).toEqual({
      since: iso(nov(20, 15)),
      buy: { amount: 2.7, percent: 1.0697 },
      sell: { amount: 3.2, percent: 1.2593 },
    });
    expect(body.meta).toMatchObject({ count: 1, source: 'parallel', currencies: ['EUR'] });
    // One millisecond before: Friday's last, against Thursday's.
    const friday = (await call('/v1/rates/latest?at=2026-11-23T07:59:59.999Z', key)).json();
    expect(
      friday.data.map((r: { currency: string; updatedAt: string }) => [r.currency, r.updatedAt]),
    ).toEqual([
      ['EUR', iso(nov(20, 15))],
      ['USD', iso(nov(20, 9))],
    ]);
    expect(friday.data[0].change.since).toBe(iso(nov(19, 10)));
    expect(friday.meta.currencies).toEqual(['EUR', 'USD']);
    // An offset is read as an import reads it: 09:00+01:00 is 08:00Z.
    const offset = (await call('/v1/rates/latest?currency=EUR&at=2026-11-23T09:00:00%2B01:00', key)).json();
    expect(offset.data[0].updatedAt).toBe(iso(nov(23, 8)));
    // The same `+` left unescaped, which a query string reads as a space.
    const unescaped = (await call('/v1/rates/latest?currency=EUR&at=2026-11-23T09:00:00+01:00', key)).json();
    expect(unescaped.data[0].updatedAt).toBe(iso(nov(23, 8)));
    // Before any observation: no record.
    const none = (await call('/v1/rates/latest?at=2026-01-01T00:00:00Z', key)).json();
    expect(none.data).toEqual([]);
  });

  it('at= on gold: the references of that instant, a 404 before any', async () => {
    const res = await call('/v1/gold/latest?at=2026-11-22T12:00:00Z', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        buy: 20000,
        sell: 20500,
        updatedAt: iso(nov(20, 9, 30)),
        quality: IMPORTED,
        change: null,
      },
    ]);
    expectErrorBody(await call('/v1/gold/latest?at=2026-11-20T09:29:59Z', key), 404, 'not_found');
  });

  it('keeps one page per set of observations served, whatever the instants asked (decisions 123)', async () => {
    // From Monday 12:00 on, every instant resolves to the same observations: EUR of 12:00, USD of Friday
    // 09:00, 18K of Monday 09:30. The page cache of the data version must not grow with the instants.
    const snapshot = h.runtime.services.market.snapshot;
    const pages = pagesOf(snapshot);
    const cases = [
      ['/v1/rates/latest?currency=USD,EUR', nov(23, 12)],
      ['/v1/gold/latest', nov(23, 9, 30)],
    ] as const;
    for (const [path, from] of cases) {
      const before = pages.size;
      const first = await call(`${path}${path.includes('?') ? '&' : '?'}at=${iso(from)}`, key);
      expect(first.statusCode, first.body).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toBeTruthy();
      for (let i = 1; i <= 20; i++) {
        const at = iso(from + i * 60_017);
        const url = `${path}${path.includes('?') ? '&' : '?'}at=${at}`;
        const res = await call(url, key);
        expect(res.statusCode, url).toBe(200);
        expect(res.json().data, url).toEqual(first.json().data);
        expect(res.headers.etag, url).toBe(etag);
        // The same observations are the same bytes: a 304 for the ETag another instant gave.
        expect((await call(url, key, { 'if-none-match': etag })).statusCode, url).toBe(304);
      }
      expect(h.runtime.services.market.snapshot, 'the data did not change meanwhile').toBe(snapshot);
      expect(pages.size - before, path).toBeLessThanOrEqual(1);
    }
    // Other observations are another answer, with another ETag.
    const friday = await call('/v1/rates/latest?currency=USD,EUR&at=2026-11-23T07:59:59.999Z', key);
    expect(friday.json().data[0].updatedAt).toBe(iso(nov(20, 15)));
    expect(friday.headers.etag).not.toBe(
      (await call(`/v1/rates/latest?currency=USD,EUR&at=${iso(nov(23, 12))}`, key)).headers.etag,
    );
  });

  it('refuses an instant in the future or unreadable with a 400 naming it', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const path of ['/v1/rates/latest', '/v1/gold/latest']) {
      const res = await call(`${path}?at=${future}`, key);
      const body = expectErrorBody(res, 400, 'invalid_parameter', [
        { parameter: 'at', message: expect.any(String) },
      ]);
      expect(body.error.details![0]).toMatchObject({ message: expect.stringContaining(future) });
      expect(body.error.details![0]).toMatchObject({ message: expect.stringContaining('future') });
      const bad = expectErrorBody(await call(`${path}?at=yesterday`, key), 400, 'invalid_parameter', [
        { parameter: 'at', message: expect.stringContaining('yesterday') },
      ]);
      expect(bad.error.details).toHaveLength(1);
      expectErrorBody(await call(`${path}?at=2026-02-30T00:00:00Z`, key), 400, 'invalid_parameter', [
        { parameter: 'at', message: expect.stringContaining('2026-02-30') },
      ]);
    }
  });

  it('needs the history scope of the data with at=, not the latest one', async () => {
    const latestOnly = (
      await h.newKey({
        scopes: ['rates:parallel:latest:read', 'gold:latest:read', 'rates:official:history:read'],
      })
    ).key;
    const at = 'at=2026-11-23T08:00:00Z';
    expect((await call('/v1/rates/latest?currency=EUR', latestOnly)).statusCode).toBe(200);
    expectErrorBody(
      await call(`/v1/rates/latest?currency=EUR&${at}`, latestOnly),
      403,
      'insufficient_scope',
      [{ entitlement: 'rates:parallel:history:read' }],
    );
    expectErrorBody(await call(`/v1/gold/latest?${at}`, latestOnly), 403, 'insufficient_scope', [
      { entitlement: 'gold:history:read' },
    ]);
    // The official history scope without its latest one: at= on that source only.
    const official = await call(`/v1/rates/latest?source=official&${at}`, latestOnly);
    expect(official.statusCode).toBe(200);
    expect(official.json().data[0]).toMatchObject({
      currency: 'EUR',
      updatedAt: iso(nov(20, 11)),
      change: null,
    });
    expectErrorBody(await call('/v1/rates/latest?source=official', latestOnly), 403, 'insufficient_scope', [
      { entitlement: 'rates:official:latest:read' },
    ]);
  });

  it('documents change and at as named components and parameters', () => {
    const schemas = h.doc.components!.schemas as Record<
      string,
      { properties?: Record<string, { $ref?: string }> }
    >;
    for (const name of ['Change', 'ChangeSide', 'PremiumChange', 'PremiumChangeSide', 'LatestGoldRecord'])
      expect(schemas[name], name).toBeDefined();
    expect(schemas.LatestRate!.properties!.change).toEqual({ $ref: '#/components/schemas/Change' });
    expect(schemas.LatestGoldRecord!.properties!.change).toEqual({ $ref: '#/components/schemas/Change' });
    expect(schemas.PremiumItem!.properties!.change).toEqual({ $ref: '#/components/schemas/PremiumChange' });
    expect(schemas.GoldRecord!.properties!.change).toBeUndefined();
    for (const path of ['/v1/rates/latest', '/v1/gold/latest']) {
      const get = h.doc.paths[path]!.get as { parameters: { name: string }[]; 'x-entitlement-at'?: string };
      expect(
        get.parameters.map((p) => p.name),
        path,
      ).toContain('at');
      expect(get['x-entitlement-at'], path).toMatch(/history:read$/);
    }
  });

  it('keeps ignoring the other parameters of /v1/gold/latest', async () => {
    const res = await call('/v1/gold/latest?foo=bar&x=', key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0].updatedAt).toBe(iso(nov(23, 9, 30)));
  });
});
