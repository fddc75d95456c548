/**
 * The raw entrance (src/http/v1/entrance.ts) must be invisible: for every request it
 * takes, the status, the headers (names, order and values) and the body equal
 * those of the Fastify pipeline, and it must leave every other request alone.
 *
 * The raw entrance takes every GET and HEAD to a /v1 operation; a test has it
 * decline one request (test/support/entrance.ts) to get Fastify's answer to
 * compare.
 */
import { ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../support/backends.js';
import { nextThroughFastify, take, tookRaw as tookFast } from '../support/entrance.js';
import { DAY, type Harness, startHarness } from '../support/harness.js';
import { withinOneMinute } from '../support/wait.js';

/** Headers that differ between any two requests: the id, the clock, the counts consumed so far. */
const VARYING = new Set([
  'x-request-id',
  'date',
  'ratelimit-remaining',
  'ratelimit-reset',
  // Whole seconds to the window's end: two requests a few ms apart may straddle a second
  // (checked separately below to differ by at most one).
  'retry-after',
  'x-monthly-quota-remaining',
  'content-length', // ids differ in length; the bodies are compared, and each length checked below
]);

function comparable(res: LightMyRequestResponse) {
  expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
  const id = String(res.headers['x-request-id']);
  const encoding = res.headers['content-encoding'];
  const raw = res.rawPayload;
  const body = (encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw)
    .toString('utf8')
    .replaceAll(id, '<id>');
  const headers = Object.entries(res.headers).map(([name, value]) => [name, VARYING.has(name) ? '*' : value]);
  return { status: res.statusCode, headers, body };
}

describe.each(backends())('raw entrance on $name', (backend) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key } = await h.newKey());
    expect((await h.get('/v1/me', key)).statusCode).toBe(200); // verifies the key
  });
  afterAll(() => h?.close());
  afterEach(() => take.mockClear());

  const fast = async (url: string, headers: Record<string, string> = {}) => {
    const res = await h.get(url, key, headers);
    expect(tookFast(), `${url} should take the raw entrance`).toBe(true);
    return res;
  };
  const general = async (url: string, headers: Record<string, string> = {}) => {
    nextThroughFastify();
    const res = await h.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });
    expect(tookFast(), `${url} should go through Fastify`).toBe(false);
    return res;
  };

  const to = new Date(Date.now() - DAY).toISOString().slice(0, 10);
  const from = new Date(Date.now() - 40 * DAY).toISOString().slice(0, 10);
  const urls = [
    '/v1/rates/latest',
    '/v1/rates/latest?source=official',
    '/v1/rates/latest?currency=USD,EUR,XXX',
    '/v1/rates/latest?source=transfer&currency=EUR',
    '/v1/market/premium',
    '/v1/market/premium?currency=EUR,GBP',
    '/v1/gold/latest',
    '/v1/gold/latest?ignored=1',
    '/v1/assets',
    '/v1/assets?type=metal',
    `/v1/rates/history?currency=EUR&from=${from}&to=${to}&limit=7`,
    `/v1/gold/history?from=${from}&to=${to}&limit=5`,
  ];
  const encodings: Array<Record<string, string>> = [
    {},
    { 'accept-encoding': 'gzip' },
    { 'accept-encoding': 'br, gzip' },
  ];

  it.each(urls)('answers %s as Fastify does, byte for byte, compressed or not', async (url) => {
    // The first answer of a history page prepares it; from then on it is served fast.
    expect((await general(url)).statusCode).toBe(200);
    for (const headers of encodings) {
      const viaFastify = comparable(await general(url, headers));
      const viaFastPath = comparable(await fast(url, headers));
      expect(viaFastPath).toEqual(viaFastify);
      expect(viaFastPath.status).toBe(200);
    }
  });

  it('follows a history cursor on the raw entrance once the page is prepared', async () => {
    const first = await general(`/v1/rates/history?currency=USD&from=${from}&to=${to}&limit=5`);
    const cursor = first.json().meta.nextCursor as string;
    const url = `/v1/rates/history?currency=USD&from=${from}&to=${to}&limit=5&cursor=${encodeURIComponent(cursor)}`;
    const viaFastify = comparable(await general(url));
    expect(comparable(await fast(url))).toEqual(viaFastify);
  });

  it('counts every request it answers against the limits, and refuses the (L+1)th with the same 429', async () => {
    await withinOneMinute();
    const a = await h.newKey({ rpm: 2 });
    const b = await h.newKey({ rpm: 2 });
    expect((await h.get('/v1/me', a.key)).statusCode).toBe(200); // verifies a; uses 1 of 2
    expect((await h.app.inject({ url: '/v1/me', headers: { 'x-api-key': b.key } })).statusCode).toBe(200);
    await h.watcherCaughtUp(); // the watcher has seen the new keys: no cache drop below
    const okFast = await h.get('/v1/rates/latest', a.key);
    expect(okFast.headers['ratelimit-remaining']).toBe('0');
    const refusedFast = await h.get('/v1/rates/latest', a.key);
    expect(tookFast()).toBe(true);
    await h.app.inject({ url: '/v1/rates/latest', headers: { 'x-api-key': b.key } });
    nextThroughFastify();
    const refusedFastify = await h.app.inject({ url: '/v1/rates/latest', headers: { 'x-api-key': b.key } });
    expect(tookFast()).toBe(false);
    expect(refusedFast.statusCode).toBe(429);
    expect(refusedFast.json().error.code).toBe('rate_limited');
    expect(comparable(refusedFast)).toEqual(comparable(refusedFastify));
    expect(
      Math.abs(Number(refusedFast.headers['retry-after']) - Number(refusedFastify.headers['retry-after'])),
    ).toBeLessThanOrEqual(1);
    // Answered units are committed before the answer is sent: nothing to wait for.
    const period = new Date().toISOString().slice(0, 7);
    expect(await h.store.getUsage(a.grantId, period)).toBe(2); // /v1/me and one 200: a 429 does not count
  });

  it('a failure while answering is a 500 without quota headers, the unit given back, as on the Fastify path', async () => {
    const k = await h.newKey();
    await h.watcherCaughtUp(); // the watcher has seen the new key
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200); // verifies the key
    const first = await h.get('/v1/gold/latest', k.key);
    expect(tookFast()).toBe(true);
    const period = new Date().toISOString().slice(0, 7);
    const used = await h.store.getUsage(k.grantId, period);
    // The 200's head fails to go out once (an invalid header, a socket error…).
    const writeHead = vi.spyOn(ServerResponse.prototype, 'writeHead').mockImplementationOnce(() => {
      throw new Error('the head could not be written');
    });
    try {
      const failed = await h.get('/v1/gold/latest', k.key);
      expect(tookFast()).toBe(true);
      expect(failed.statusCode).toBe(500);
      expect(failed.json().error.code).toBe('internal_error');
      expect(failed.json().meta.requestId).toBe(failed.headers['x-request-id']);
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'x-monthly-quota-remaining']) {
        expect(failed.headers[name], name).toBeUndefined();
      }
    } finally {
      writeHead.mockRestore();
    }
    // The unit it consumed is given back: usage is as before it.
    await vi.waitFor(async () => expect(await h.store.getUsage(k.grantId, period)).toBe(used), {
      timeout: 3_000,
    });
    expect(first.statusCode).toBe(200);
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200); // and it keeps serving
  });

  it('takes every GET and HEAD to a /v1 operation whatever its headers, and leaves the rest to Fastify', async () => {
    const { key: unseen } = await h.newKey();
    const cases: Array<[string, Record<string, string>, boolean, string?]> = [
      ['/v1/rates/latest', { authorization: `Bearer ${unseen}` }, true], // not verified yet
      ['/v1/rates/latest', { authorization: `Bearer ${key}`, 'if-none-match': '*' }, true],
      ['/v1/rates/latest?currency=eur', { authorization: `Bearer ${key}` }, true], // 400
      ['/v1/rates/latest?limit=1', { authorization: `Bearer ${key}` }, true], // 400
      ['/v1/rates/historical?currency=EUR', { authorization: `Bearer ${key}` }, true], // alias with its own headers
      ['/v1/me', { authorization: `Bearer ${key}` }, true], // built per request
      ['/v1/rates/latest', { 'x-api-key': key }, true],
      ['/v1/rates/latest', { authorization: `bearer ${key}` }, true],
      ['/v1/rates/latest', {}, true], // 401
      ['/v1/rates/latest', { authorization: `Bearer ${key}` }, true, 'HEAD'],
      ['/v1/rates/latest/', { authorization: `Bearer ${key}` }, false], // the router's 404
      ['/v1/nothing', { authorization: `Bearer ${key}` }, false],
      ['/v1/rates/latest', { authorization: `Bearer ${key}` }, false, 'POST'], // the transport's 405
      [`/v1/rates/latest?currency=${'A'.repeat(5000)}`, { authorization: `Bearer ${key}` }, false], // 414
    ];
    for (const [url, headers, raw, method = 'GET'] of cases) {
      await h.app.inject({ method: method as 'GET', url, headers });
      expect(tookFast(), `${method} ${url.slice(0, 60)} ${JSON.stringify(headers)}`).toBe(raw);
    }
    const narrow = await h.newKey({ scopes: ['gold:latest:read'] });
    await h.get('/v1/gold/latest', narrow.key);
    const denied = await h.get('/v1/rates/latest', narrow.key);
    expect(tookFast()).toBe(true);
    expect(denied.statusCode).toBe(403);
  });

  it('stops serving a revoked key at once', async () => {
    const k = await h.newKey();
    await h.watcherCaughtUp(); // the watcher has seen the new key
    await h.get('/v1/gold/latest', k.key);
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200);
    expect(tookFast()).toBe(true);
    await h.revoke(k.publicId);
    const res = await h.get('/v1/gold/latest', k.key);
    expect(res.statusCode).toBe(401);
  });
});
