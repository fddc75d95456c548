/** GET /v1/gold/latest (the history is in gold-history.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, keyedHarness } from '../support/openapi.js';
import { expectedLatestGold, IMPORTED } from '../support/sample-records.js';

describe.each(sqliteOnly())('/v1/gold/latest on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  it('latest: one record per purity in the order 18K, 21K, 24K', async () => {
    const res = await call('/v1/gold/latest', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.data).toEqual(expectedLatestGold());
    expect(body.data.map((g: { purity: string }) => g.purity)).toEqual(['18K', '21K', '24K']);
    for (const g of body.data) {
      expect(Object.keys(g).sort()).toEqual([
        'buy',
        'change',
        'purity',
        'quality',
        'quote',
        'sell',
        'unit',
        'updatedAt',
      ]);
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
});

describe.each(sqliteOnly())('/v1/gold/latest with an empty store on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('is a 404 not_found while no gold record is stored', async () => {
    expectErrorBody(await call('/v1/gold/latest', key), 404, 'not_found');
  });

  it('latest lists the purities present, in purity order, once imported', async () => {
    const t1 = Date.parse('2026-05-01T09:30:00.000Z');
    const t2 = Date.parse('2026-05-02T09:30:00.000Z');
    await h.store.imports.import({
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
        quality: IMPORTED,
        change: null,
      },
      {
        purity: '24K',
        quote: 'DZD',
        unit: 'gram',
        buy: 21500.5,
        sell: 22150.25,
        updatedAt: '2026-05-02T09:30:00.000Z',
        quality: IMPORTED,
        // 21500.5 − 21450 = 50.5 (0.23543… %); 22150.25 − 22100 = 50.25 (0.22737… %).
        change: {
          since: '2026-05-01T09:30:00.000Z',
          buy: { amount: 50.5, percent: 0.2354 },
          sell: { amount: 50.25, percent: 0.2274 },
        },
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
