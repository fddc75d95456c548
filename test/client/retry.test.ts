/**
 * Retry behaviour of the client, against a tiny local HTTP server that answers
 * from a script (the real server's limits run on the wall clock of another
 * process, which a test cannot move): 429 and 503 are retried after
 * `Retry-After`, at most `maxRetries` times, never waiting longer than
 * `maxRetryDelayMs`; nothing else is retried.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MdsApiError,
  MdsClient,
  type MdsClientOptions,
  type RequestOptions,
} from '../../packages/client/src/index.js';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const KEY = 'mds_test_stubkey_0123456789';
const OK_BODY = { data: [{ purity: '18K' }], meta: { requestId: 'req_ok', count: 1 } };
const errorBody = (status: number, code: string, requestId = `req_${status}`) => ({
  data: null,
  error: { status, code, message: `${code} message` },
  meta: { requestId },
});
const tooMany = (retryAfter?: string): Scripted => ({
  status: 429,
  headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  body: errorBody(429, 'rate_limited'),
});
const unavailable = (retryAfter?: string): Scripted => ({
  status: 503,
  headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  body: errorBody(503, 'service_unavailable'),
});
const ok: Scripted = { status: 200, body: OK_BODY };
const CSV_TEXT = 'purity,quote,unit,buy,sell,updatedAt\r\n18K,DZD,gram,1,2,2026-11-23T09:30:00.000Z\r\n';
const csvOk: Scripted = {
  status: 200,
  headers: { 'content-type': 'text/csv; charset=utf-8' },
  body: CSV_TEXT,
};

describe('MdsClient retries (scripted server)', () => {
  let server: Server;
  let baseUrl: string;
  let script: Scripted[] = [];
  let requests: Array<{
    at: number;
    url: string;
    authorization: string | undefined;
    accept: string | undefined;
  }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push({
        at: performance.now(),
        url: req.url ?? '',
        authorization: req.headers.authorization,
        accept: req.headers.accept,
      });
      const next = script.shift() ?? { status: 500, body: errorBody(500, 'internal_error') };
      const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
      res.writeHead(next.status, {
        'content-type': typeof next.body === 'string' ? 'text/html' : 'application/json; charset=utf-8',
        'x-request-id': `hdr_${requests.length}`,
        ...next.headers,
      });
      res.end(text);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    script = [];
    requests = [];
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  const client = (options: Partial<MdsClientOptions> = {}) =>
    new MdsClient({ baseUrl, apiKey: KEY, ...options });
  const gaps = () => requests.slice(1).map((r, i) => r.at - requests[i]!.at);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => expect.fail('expected an MdsApiError'),
      (e: unknown) => {
        expect(e).toBeInstanceOf(MdsApiError);
        return e as MdsApiError;
      },
    );

  it('retries a 429 after its Retry-After and returns the answer', async () => {
    script = [tooMany('1'), ok];
    const res = await client().getLatestGold();
    expect(res).toEqual(OK_BODY);
    expect(requests).toHaveLength(2);
    expect(gaps()[0]).toBeGreaterThanOrEqual(990);
    expect(gaps()[0]).toBeLessThan(2000);
    // The same request both times, with the key as a Bearer token.
    expect(requests.map((r) => [r.url, r.authorization])).toEqual([
      ['/v1/gold/latest', `Bearer ${KEY}`],
      ['/v1/gold/latest', `Bearer ${KEY}`],
    ]);
  });

  it('retries 503 and 429 up to maxRetries times, then succeeds', async () => {
    script = [unavailable('0'), tooMany('0'), unavailable('0'), ok];
    const res = await client({ maxRetries: 3 }).getGoldHistory({ limit: 1 });
    expect(res).toEqual(OK_BODY);
    expect(requests.map((r) => r.url)).toEqual(Array(4).fill('/v1/gold/history?limit=1'));
  });

  it('gives up after maxRetries retries and throws the last error with its code and request id', async () => {
    script = [tooMany('0'), tooMany('0'), tooMany('0'), ok];
    const err = await failure(client({ maxRetries: 2 }).getMe());
    expect(err).toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: 'rate_limited message',
      requestId: 'req_429',
      retryAfter: 0,
    });
    expect(requests).toHaveLength(3);
  });

  it('does not retry at all with maxRetries = 0', async () => {
    script = [unavailable('0'), ok];
    const err = await failure(client({ maxRetries: 0 }).getMe());
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 0 });
    expect(requests).toHaveLength(1);
  });

  it('never waits longer than maxRetryDelayMs: a longer Retry-After is thrown at once', async () => {
    script = [tooMany('120'), ok];
    const started = performance.now();
    const err = await failure(client({ maxRetryDelayMs: 1000 }).getMarketPremium());
    expect(performance.now() - started).toBeLessThan(500);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 120, requestId: 'req_429' });
    expect(requests).toHaveLength(1);
  });

  it('caps the backoff used when no Retry-After is sent', async () => {
    // Unbounded, the backoff would be 0.5 s, 1 s, 2 s; capped, each wait is 100 ms.
    script = [unavailable(), unavailable(), unavailable(), ok];
    const res = await client({ maxRetries: 3, maxRetryDelayMs: 100 }).listAssets();
    expect(res).toEqual(OK_BODY);
    expect(requests).toHaveLength(4);
    for (const gap of gaps()) {
      expect(gap).toBeGreaterThanOrEqual(95);
      expect(gap).toBeLessThan(800);
    }
  });

  it('does not retry other errors', async () => {
    for (const [status, code] of [
      [400, 'invalid_parameter'],
      [401, 'invalid_api_key'],
      [403, 'insufficient_scope'],
      [404, 'not_found'],
      [500, 'internal_error'],
    ] as const) {
      requests = [];
      script = [{ status, body: errorBody(status, code) }, ok];
      const err = await failure(client().getLatestRates());
      expect(err).toMatchObject({ status, code, requestId: `req_${status}`, retryAfter: undefined });
      expect(requests).toHaveLength(1);
    }
  });

  it('an answer that is not the API envelope is an unexpected_response error', async () => {
    script = [{ status: 502, body: '<html>Bad gateway</html>' }];
    const err = await failure(client().getMe());
    expect(err).toMatchObject({ status: 502, code: 'unexpected_response', requestId: 'hdr_1' });
  });

  it('csv: true asks for text/csv, retries a 429 the same way and returns the text as sent', async () => {
    script = [tooMany('0'), csvOk];
    const text = await client().getGoldHistory({ limit: 1 }, { csv: true });
    expect(text).toBe(CSV_TEXT);
    expect(requests.map((r) => [r.url, r.accept])).toEqual([
      ['/v1/gold/history?limit=1', 'text/csv'],
      ['/v1/gold/history?limit=1', 'text/csv'],
    ]);
  });

  it('csv: true answered with anything but text/csv is an unexpected_response error', async () => {
    script = [ok];
    const err = await failure(client().getPremiumHistory({ currency: 'EUR' }, { csv: true }));
    expect(err).toMatchObject({ status: 200, code: 'unexpected_response', requestId: 'hdr_1' });
    expect(err.message).toBe("Unexpected 200 answer: not the API's CSV.");
  });

  it('the iterators and the 1.0 names read JSON even when their options carry csv: true', async () => {
    const sneaky = { csv: true } as RequestOptions;
    for (const pages of [
      client().paginateRateHistory({ currency: 'EUR' }, sneaky),
      client().paginateGoldHistory({}, sneaky),
      client().paginatePremiumHistory({ currency: 'EUR' }, sneaky),
    ]) {
      script = [ok];
      const items: unknown[] = [];
      for await (const item of pages) items.push(item);
      expect(items).toEqual(OK_BODY.data);
    }
    script = [ok, ok];
    expect(await client().rateHistory({ currency: 'EUR' }, sneaky)).toEqual(OK_BODY);
    expect(await client().goldHistory({}, sneaky)).toEqual(OK_BODY);
    expect(requests.map((r) => r.accept)).toEqual(Array(5).fill('application/json'));
  });

  it('an abort signal cancels the wait before a retry', async () => {
    script = [tooMany('5'), ok];
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const started = performance.now();
    await expect(client().getLatestGold({ signal: controller.signal })).rejects.toThrow('stop');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(requests).toHaveLength(1);
  });
});
