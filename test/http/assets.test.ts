import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAssets } from '../../src/sample/generate.js';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody } from '../support/openapi.js';

const byCode = (a: { code: string }, b: { code: string }) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

describe.each(sqliteOnly())('/v1/assets on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  const expected = sampleAssets().sort(byCode);

  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
    call = await conformingGet(h);
  });
  afterAll(async () => h?.close());

  it('lists the whole directory in code order, with count and a null type', async () => {
    const res = await call('/v1/assets', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(body.data).toEqual(expected);
    expect(body.data.length).toBe(27);
    expect(body.data.map((a: { code: string }) => a.code)).toEqual(
      [...body.data.map((a: { code: string }) => a.code)].sort(),
    );
    for (const a of body.data) expect(Object.keys(a).sort()).toEqual(['code', 'names', 'symbol', 'type']);
    expect(body.meta).toEqual({ requestId: res.headers['x-request-id'], count: 27, type: null });
  });

  it.each(['currency', 'metal', 'crypto'] as const)('filters by type=%s and echoes it', async (type) => {
    const res = await call(`/v1/assets?type=${type}`, key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const want = expected.filter((a) => a.type === type);
    expect(want.length).toBeGreaterThan(0);
    expect(body.data).toEqual(want);
    expect(body.meta).toEqual({ requestId: res.headers['x-request-id'], count: want.length, type });
  });

  it('gives the documented localized names', async () => {
    const body = (await call('/v1/assets?type=metal', key)).json();
    expect(body.data).toEqual([
      {
        code: 'XAG',
        symbol: 'Ag',
        names: { en: 'Silver (troy ounce)', fr: 'Argent (once troy)', ar: 'فضة (أونصة)' },
        type: 'metal',
      },
      {
        code: 'XAU',
        symbol: 'Au',
        names: { en: 'Gold (troy ounce)', fr: 'Or (once troy)', ar: 'ذهب (أونصة)' },
        type: 'metal',
      },
    ]);
  });

  it.each([
    ['type=fiat', 'type'],
    ['type=Currency', 'type'],
    ['type=', 'type'],
    ['type=currency&type=metal', 'type'],
  ])('rejects %s with 400 details on `type`', async (query, parameter) => {
    const res = await call(`/v1/assets?${query}`, key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter, message: expect.any(String) }]);
  });

  it('rejects an unknown parameter', async () => {
    const res = await call('/v1/assets?currency=EUR', key);
    expectErrorBody(res, 400, 'invalid_parameter', [{ parameter: 'currency', message: expect.any(String) }]);
  });
});
