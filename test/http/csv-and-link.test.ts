/**
 * CSV by content negotiation and `Link: <…>; rel="next"` on the rate and gold
 * history pages (decisions §12).
 * The premium history has its own file (premium-history.test.ts).
 */
import { gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { CSV_CONTENT_TYPE, csvRows, expectCsvOf } from '../support/csv.js';
import { DAY, type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { type Call, conformingGet, expectErrorBody, expectQuotaHeaders } from '../support/openapi.js';

/** The quality's columns come last, after every column the CSV had before (decisions 114). */
const QUALITY_COLUMNS = [
  'quality_method',
  'quality_organisations',
  'quality_reporters',
  'quality_excluded',
  'quality_dispersionPercent',
  'quality_confidence',
];
const RATE_COLUMNS = ['currency', 'source', 'quote', 'buy', 'sell', 'updatedAt', ...QUALITY_COLUMNS];
const GOLD_COLUMNS = ['purity', 'quote', 'unit', 'buy', 'sell', 'updatedAt', ...QUALITY_COLUMNS];
const CSV = { accept: 'text/csv' };

const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const FROM = addDays(SAMPLE_END, -20);
const RATES = `/v1/rates/history?currency=EUR&source=official&from=${FROM}&to=${SAMPLE_END}`;
const ALIAS = `/v1/rates/historical?currency=EUR&source=official&from=${FROM}&to=${SAMPLE_END}`;
const GOLD = `/v1/gold/history?from=${FROM}&to=${SAMPLE_END}`;

describe.each(sqliteOnly())('CSV and Link on the history pages on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;

  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
    call = await conformingGet(h);
    expect((await h.get('/v1/me', key)).statusCode).toBe(200); // verifies the key
  });
  afterAll(async () => h?.close());

  it.each([
    ['rates', `${RATES}&limit=7`, RATE_COLUMNS],
    ['rates, the deprecated alias', `${ALIAS}&limit=1000`, RATE_COLUMNS],
    ['rates, an empty page', '/v1/rates/history?currency=EUR&from=2001-01-01&to=2001-01-31', RATE_COLUMNS],
    ['gold', `${GOLD}&limit=10`, GOLD_COLUMNS],
    ['gold, the whole window', `${GOLD}&limit=1000`, GOLD_COLUMNS],
  ])('%s: the CSV parsed back equals the JSON records of the same request', async (_name, url, columns) => {
    const json = await call(url, key);
    const csv = await call(url, key, CSV);
    expectCsvOf(csv, json, columns);
    expect(csvRows(csv.body).length - 1).toBe(json.json().meta.count);
  });

  it('the CSV answer carries the same headers as the JSON one, its own ETag, and costs one unit', async () => {
    const k = await h.newKey();
    const url = `${RATES}&limit=5`;
    const json = await h.get(url, k.key);
    const csv = await h.get(url, k.key, CSV);
    expect(csv.statusCode).toBe(200);
    expectQuotaHeaders(csv, true);
    expect(Number(csv.headers['x-monthly-quota-remaining'])).toBe(
      Number(json.headers['x-monthly-quota-remaining']) - 1,
    );
    expect(typeof csv.headers['x-request-id']).toBe('string');
    expect(csv.headers['x-request-id']).not.toBe(json.headers['x-request-id']);
    expect(csv.body).not.toContain(String(csv.headers['x-request-id'])); // no meta row
    expect(csv.headers['cache-control']).toBe('private, max-age=300');
    expect(json.headers['cache-control']).toBe('private, max-age=300');
    expect(csv.headers.etag).toMatch(/^W\/"[\w-]+"$/);
    expect(csv.headers.etag).not.toBe(json.headers.etag);
    for (const res of [csv, json]) expect(res.headers.vary).toBe('accept, accept-encoding');

    // Each validator answers only its own representation.
    const notModified = await h.get(url, k.key, { ...CSV, 'if-none-match': String(csv.headers.etag) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers.etag).toBe(csv.headers.etag);
    expect(notModified.headers.vary).toBe('accept, accept-encoding');
    expect(notModified.body).toBe('');
    const other = await h.get(url, k.key, { ...CSV, 'if-none-match': String(json.headers.etag) });
    expect(other.statusCode).toBe(200);
    expect(other.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect((await h.get(url, k.key, { 'if-none-match': String(csv.headers.etag) })).statusCode).toBe(200);

    const head = await h.app.inject({
      method: 'HEAD',
      url,
      headers: { authorization: `Bearer ${k.key}`, ...CSV },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(head.body).toBe('');
  });

  it('compresses a large CSV page as asked', async () => {
    const from = addDays(SAMPLE_END, -365);
    const url = `/v1/rates/history?currency=EUR&from=${from}&to=${SAMPLE_END}&limit=1000`;
    const plain = await call(url, key, CSV);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const gz = await call(url, key, { ...CSV, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);
    expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
  });

  it('errors stay JSON whatever Accept asks', async () => {
    expectErrorBody(
      await call('/v1/rates/history?currency=EUR&limit=0', key, CSV),
      400,
      'invalid_parameter',
      [{ parameter: 'limit', message: expect.any(String) }],
    );
    expectErrorBody(await call('/v1/rates/history?currency=ZZZ', key, CSV), 404, 'not_found');
    expectErrorBody(await call('/v1/gold/history?cursor=nope', key, CSV), 400, 'invalid_cursor', [
      { parameter: 'cursor', message: expect.any(String) },
    ]);
    expectErrorBody(await call('/v1/gold/history', undefined, CSV), 401, 'missing_api_key');
  });

  // RFC 9110 §12.5.1: each type takes the weight of the most specific range that matches it.
  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['text/csv', 'csv'],
    ['TEXT/CSV', 'csv'],
    ['text/csv; header=present', 'csv'],
    ['text/csv, application/json', 'json'], // a tie is JSON: CSV must rank strictly above
    ['application/json, text/csv', 'json'],
    ['text/csv, */*', 'json'],
    ['text/csv;q=0.9, application/json;q=0.8', 'csv'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['*/*;q=0.1, text/csv;q=0.2', 'csv'],
    ['text/csv;q=0.5, */*', 'json'],
    ['text/*', 'csv'], // JSON is not acceptable at all
    ['text/*;q=0.3, application/*;q=0.2', 'csv'],
    ['text/csv;q=0.4, application/*;q=0.3, application/json;q=0.5', 'json'],
    ['text/*;q=0.9, text/csv;q=0.1, application/json;q=0.5', 'json'], // text/csv is more specific than text/*
    ['text/csv;q=0', 'json'], // nothing acceptable: JSON, not a 406
    ['text/csv;q=0, */*', 'json'],
    ['application/json;q=0, text/csv;q=0.001', 'csv'],
    ['text/csv;charset=utf-8;q=0.9, application/json;q=0.8', 'csv'],
    ['text/csv;q=1.5, application/json;q=0.5', 'json'], // an invalid weight voids its member only
    ['text/csv;q=0.5, application/json;q=x', 'csv'],
    ['text/plain', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
    ['text/csv;q=0.2, text/csv;q=0.9, application/json;q=0.5', 'csv'],
  ])('Accept: %s → %s, when the page is made and when it is served again', async (accept, expected) => {
    const url = `${RATES}&limit=3`;
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    const made = await h.get(url, key, headers); // prepares the page (and its CSV)
    const again = await h.get(url, key, headers);
    for (const res of [made, again]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(
        expected === 'csv' ? CSV_CONTENT_TYPE : 'application/json; charset=utf-8',
      );
      expect(res.headers.vary).toBe('accept, accept-encoding');
    }
    expect(again.body).toBe(
      expected === 'csv'
        ? made.body
        : made.body.replace(/"requestId":"[^"]+"/, `"requestId":"${again.headers['x-request-id']}"`),
    );
  });

  it('a CSV request is never answered with the JSON page: the first one makes the CSV page', async () => {
    const url = `${GOLD}&limit=4`;
    const json = await h.get(url, key);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    // The JSON page is prepared; its CSV is not yet.
    const first = await h.get(url, key, CSV);
    expect(first.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    const second = await h.get(url, key, CSV);
    expect(second.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(second.body).toBe(first.body);
    // The same headers, in the same order, as the answer that made it (the id and the counts aside).
    const names = (res: LightMyRequestResponse) => Object.keys(res.headers);
    expect(names(second)).toEqual(names(first));
    expect(second.headers.link).toBe(first.headers.link);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-length']).toBe(String(Buffer.byteLength(second.body)));
  });

  describe('Link to the next page', () => {
    /** The `<target>` of a `rel="next"` link, or undefined. */
    const nextOf = (res: LightMyRequestResponse): string | undefined => {
      const link = res.headers.link;
      if (link === undefined) return undefined;
      const m = /<([^>]*)>; rel="next"/.exec(String(link));
      return m?.[1];
    };

    it.each([
      ['rates', `${RATES}&limit=6`],
      ['the alias', `${ALIAS}&limit=6`],
      ['gold', `${GOLD}&limit=17`],
      ['gold with the default window', '/v1/gold/history?limit=40'],
    ])(
      '%s: present exactly when nextCursor is non-null; following it walks every page',
      async (_name, url) => {
        const path = url.slice(0, url.indexOf('?'));
        const query = url.slice(url.indexOf('?') + 1);
        const all: unknown[] = [];
        let target: string | undefined = url;
        let pages = 0;
        let cursor: string | null = null;
        while (target !== undefined) {
          const json = await call(target, key);
          expect(json.statusCode, json.body).toBe(200);
          const csv = await call(target, key, CSV);
          expectCsvOf(csv, json, path.startsWith('/v1/gold') ? GOLD_COLUMNS : RATE_COLUMNS);
          // Twice, so that the second is served from the page cache.
          const fast = await h.get(target, key);
          const body = json.json();
          all.push(...body.data);
          cursor = body.meta.nextCursor;
          for (const res of [json, csv, fast]) {
            if (cursor === null) expect(nextOf(res), target).toBeUndefined();
            else expect(nextOf(res), target).toBe(`${path}?${query}&cursor=${cursor}`);
          }
          target = nextOf(json);
          pages++;
        }
        expect(pages).toBeGreaterThan(1);
        // Following the links gives what following the cursors gives.
        const whole = (await call(url.replace(/limit=\d+/, 'limit=1000'), key)).json();
        expect(all).toEqual(whole.data);
      },
    );

    it('replaces the cursor in place, keeping every other member as sent', async () => {
      const first = (await call(`${RATES}&limit=2`, key)).json();
      const url = `/v1/rates/history?limit=2&cursor=${first.meta.nextCursor}&currency=%45UR&source=official&from=${FROM}&to=${SAMPLE_END}`;
      const res = await call(url, key);
      expect(res.statusCode, res.body).toBe(200);
      const next = res.json().meta.nextCursor;
      expect(res.headers.link).toBe(
        `</v1/rates/history?limit=2&cursor=${next}&currency=%45UR&source=official&from=${FROM}&to=${SAMPLE_END}>; rel="next"`,
      );
    });

    it('the alias links to its own next page and to its successor', async () => {
      const res = await call(`${ALIAS}&limit=2`, key);
      const next = res.json().meta.nextCursor;
      expect(res.headers.link).toBe(
        `<${ALIAS}&limit=2&cursor=${next}>; rel="next", </v1/rates/history>; rel="successor-version"`,
      );
      const last = await call(`${ALIAS}&limit=1000`, key);
      expect(last.headers.link).toBe('</v1/rates/history>; rel="successor-version"');
    });

    it('no Link on an error, nor on an endpoint without pages', async () => {
      expect((await call('/v1/rates/history?currency=ZZZ', key)).headers.link).toBeUndefined();
      expect((await call('/v1/rates/latest', key)).headers.link).toBeUndefined();
      expect((await call('/v1/market/premium', key)).headers.link).toBeUndefined();
    });
  });
});
