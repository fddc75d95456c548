/**
 * "All problems of one request are reported together in `details`"
 * (decisions §6), on every history endpoint: the window rules (`from` after
 * `to`, a window over 366 days) and the cursor check run whenever the
 * parameters they need passed their own rules, whatever else is wrong with
 * the request. `invalid_cursor` is the code only when the cursor is the only
 * problem (docs/decisions.md 11b).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { DAY, type Harness, SAMPLE_END } from '../support/harness.js';
import { type Call, expectErrorBody, keyedHarness, problemParameters } from '../support/openapi.js';

const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

const ENDPOINTS = [
  '/v1/rates/history?currency=EUR&',
  '/v1/rates/historical?currency=EUR&',
  '/v1/gold/history?',
  '/v1/market/premium/history?currency=EUR&',
] as const;

const INVERTED = 'from=2026-01-10&to=2026-01-01';
const TOO_LONG = `from=${addDays(SAMPLE_END, -400)}&to=${SAMPLE_END}`;
const AFTER_TO = { parameter: 'from', message: 'must not be after `to`' };
const BAD_CURSOR = { parameter: 'cursor', message: expect.any(String) };

describe.each(sqliteOnly())('every problem reported together on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  describe.each(ENDPOINTS)('%s', (base) => {
    it('limit=0 with from after to reports both', async () => {
      const res = await call(`${base}limit=0&${INVERTED}`, key);
      const body = expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['from', 'limit']);
      expect(body.error.details).toContainEqual(AFTER_TO);
    });

    it('an unknown parameter with a window over 366 days reports both', async () => {
      const res = await call(`${base}foo=1&${TOO_LONG}`, key);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['foo', 'from']);
    });

    it('a repeated parameter with from after to reports both', async () => {
      const res = await call(`${base}limit=5&limit=6&${INVERTED}`, key);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['from', 'limit']);
    });

    it('a bad cursor with an unknown parameter reports both, as invalid_parameter', async () => {
      const res = await call(`${base}cursor=not-a-cursor&foo=1`, key);
      const body = expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['cursor', 'foo']);
      expect(body.error.details).toContainEqual(BAD_CURSOR);
    });

    it('a bad cursor with limit=0 reports both', async () => {
      const res = await call(`${base}cursor=not-a-cursor&limit=0`, key);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['cursor', 'limit']);
    });

    it('a bad cursor with from after to reports both', async () => {
      const res = await call(`${base}cursor=not-a-cursor&${INVERTED}`, key);
      const body = expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['cursor', 'from']);
      expect(body.error.details).toContainEqual(AFTER_TO);
    });

    it('a bad cursor alone is still invalid_cursor', async () => {
      const res = await call(`${base}cursor=not-a-cursor`, key);
      expectErrorBody(res, 400, 'invalid_cursor', [BAD_CURSOR]);
    });

    it('a genuine cursor is not reported because of another problem', async () => {
      const window = `from=${addDays(SAMPLE_END, -10)}&to=${SAMPLE_END}`;
      const first = await call(`${base}${window}&limit=1`, key);
      expect(first.statusCode).toBe(200);
      const cursor = encodeURIComponent(first.json().meta.nextCursor);
      for (const [extra, parameter] of [
        ['foo=1', 'foo'],
        ['limit=0', 'limit'],
      ] as const) {
        const res = await call(`${base}${window}&cursor=${cursor}&${extra}`, key);
        expectErrorBody(res, 400, 'invalid_parameter', [{ parameter, message: expect.any(String) }]);
      }
      expect((await call(`${base}${window}&cursor=${cursor}&limit=1`, key)).statusCode).toBe(200);
    });

    it('a date that is not a date is reported once, with no window rule on it', async () => {
      const res = await call(`${base}from=2025-02-30&to=2025-01-01&limit=0`, key);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['from', 'limit']);
    });
  });

  it.each(['/v1/rates/history', '/v1/rates/historical', '/v1/market/premium/history'])(
    '%s: a broken filter leaves the cursor unchecked, not the window',
    async (path) => {
      // The cursor is bound to currency (and for rates source): with currency broken it
      // cannot be judged, so it is not reported; from after to is wrong whatever the
      // cursor says. The premium history takes no source: it is an unknown parameter.
      const res = await call(`${path}?currency=eur&${INVERTED}&cursor=not-a-cursor`, key);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(res)).toEqual(['currency', 'from']);
      const noCurrency = await call(`${path}?source=x&limit=0&${INVERTED}`, key);
      expectErrorBody(noCurrency, 400, 'invalid_parameter', expect.any(Array));
      expect(problemParameters(noCurrency)).toEqual(['currency', 'from', 'limit', 'source']);
    },
  );
});
