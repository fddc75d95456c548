/**
 * HTTP caching and compression: weak ETags on every 200 of a data
 * endpoint, 304 on a matching If-None-Match (a valid request: it consumes a
 * unit), Cache-Control by data cadence, gzip/brotli over 1 KB.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, SAMPLE_END, startHarness } from '../support/harness.js';

const DATA_ROUTES: Array<[string, number]> = [
  ['/v1/assets', 3600],
  ['/v1/rates/latest', 60],
  ['/v1/rates/latest?currency=EUR,USD', 60],
  ['/v1/market/premium', 60],
  ['/v1/gold/latest', 60],
  ['/v1/rates/history?currency=EUR', 300],
  ['/v1/gold/history', 300],
];

describe.each(sqliteOnly())('caching and compression on $name', (backend) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
  });
  afterAll(async () => h?.close());

  const remaining = (res: { headers: Record<string, unknown> }) =>
    Number(res.headers['x-monthly-quota-remaining']);

  it.each(DATA_ROUTES)(
    '%s: weak ETag, Cache-Control max-age=%i, 304 that consumes one unit',
    async (url, maxAge) => {
      const first = await h.get(url, key);
      expect(first.statusCode).toBe(200);
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^W\/"[\w-]{22}"$/);
      expect(first.headers['cache-control']).toBe(`private, max-age=${maxAge}`);

      // The representation, not the bytes: another request (another request id) has the same validator.
      const again = await h.get(url, key);
      expect(again.headers.etag).toBe(etag);
      expect(again.json().meta.requestId).not.toBe(first.json().meta.requestId);

      const notModified = await h.get(url, key, { 'if-none-match': etag });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers.etag).toBe(etag);
      expect(notModified.headers['x-request-id']).toBeDefined();
      expect(remaining(notModified)).toBe(remaining(again) - 1);

      const stale = await h.get(url, key, { 'if-none-match': 'W/"somethingelse"' });
      expect(stale.statusCode).toBe(200);
    },
  );

  it('changes the ETag when the data changes', async () => {
    const before = await h.get('/v1/rates/latest?currency=CHF&source=transfer', key);
    await h.store.imports.import({
      kind: 'rates',
      records: [
        {
          currency: 'CHF',
          source: 'transfer',
          buy: 1_000_000,
          sell: 2_000_000,
          updatedAt: Date.now() - 1000,
        },
      ],
    });
    await h.refresh();
    const after = await h.get('/v1/rates/latest?currency=CHF&source=transfer', key);
    expect(after.json().data[0].buy).toBe(1);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('does not cache /v1/me (it changes with every request)', async () => {
    const me = await h.get('/v1/me', key);
    expect(me.headers.etag).toBeUndefined();
  });

  it('compresses bodies over 1 KB with brotli or gzip, as the client asks, and saves most bytes', async () => {
    const to = SAMPLE_END;
    const from = new Date(Date.parse(to) - 365 * 86_400_000).toISOString().slice(0, 10);
    const url = `/v1/rates/history?currency=EUR&from=${from}&to=${to}&limit=1000`;
    const plain = await h.get(url, key);
    expect(plain.headers['content-encoding']).toBeUndefined();
    // A history page is negotiated on Accept too (CSV, decisions §12).
    expect(plain.headers.vary).toBe('accept, accept-encoding');
    const raw = plain.rawPayload.length;

    const br = await h.get(url, key, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    const brBody = JSON.parse(brotliDecompressSync(br.rawPayload).toString());
    expect(brBody.data).toEqual(plain.json().data);

    const gz = await h.get(url, key, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString()).data).toEqual(plain.json().data);

    const refused = await h.get(url, key, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();

    const saved = (n: number) => `${(100 * (1 - n / raw)).toFixed(1)} %`;
    console.log(
      `${backend.name}: 1000-record history page ${raw} B; brotli ${br.rawPayload.length} B (saves ${saved(br.rawPayload.length)}), gzip ${gz.rawPayload.length} B (saves ${saved(gz.rawPayload.length)})`,
    );
    expect(br.rawPayload.length).toBeLessThan(raw * 0.2);
    expect(gz.rawPayload.length).toBeLessThan(raw * 0.2);
  });

  it('leaves small bodies alone', async () => {
    const small = await h.get('/v1/rates/latest?currency=EUR', key, { 'accept-encoding': 'br, gzip' });
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
