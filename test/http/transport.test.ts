import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  type Call,
  conformingGet,
  conformingHead,
  expectErrorBody,
  expectQuotaHeaders,
  JSON_CONTENT_TYPE,
} from '../support/openapi.js';
import { withinOneMinute } from '../support/wait.js';

const ENDPOINTS = [
  '/v1/assets',
  '/v1/rates/latest',
  '/v1/rates/history?currency=EUR',
  '/v1/rates/historical?currency=EUR',
  '/v1/market/premium',
  '/v1/market/premium/history?currency=EUR',
  '/v1/gold/latest',
  '/v1/gold/history',
  '/v1/me',
];

/** Headers that legitimately differ between two answers to the same request. */
const VOLATILE = new Set([
  'x-request-id',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-monthly-quota-remaining',
  'date',
  'content-length',
]);
const stable = (res: LightMyRequestResponse) =>
  Object.fromEntries(Object.entries(res.headers).filter(([k]) => !VOLATILE.has(k)));

/** Runs `fn` inside one UTC minute, so per-minute counters are comparable. */
async function inOneMinute<T>(fn: () => Promise<T>): Promise<T> {
  await withinOneMinute(5_000);
  return fn();
}

const quota = (res: LightMyRequestResponse) => ({
  minute: Number(res.headers['ratelimit-remaining']),
  month: Number(res.headers['x-monthly-quota-remaining']),
});

describe.each(sqliteOnly())('transport and envelope on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  let head: Call;

  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
    call = await conformingGet(h);
    head = await conformingHead(h);
  });
  afterAll(async () => h?.close());

  it('every 200 is JSON with X-Request-Id equal to meta.requestId, each one unique', async () => {
    const ids = new Set<string>();
    for (const url of ENDPOINTS) {
      const res = await call(url, key);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe(JSON_CONTENT_TYPE);
      const id = res.headers['x-request-id'] as string;
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(res.json().meta.requestId).toBe(id);
      ids.add(id);
    }
    expect(ids.size).toBe(ENDPOINTS.length);
  });

  it('400: the exact error envelope', async () => {
    const res = await call('/v1/rates/history?currency=EUR&limit=0', key);
    const body = expectErrorBody(res, 400, 'invalid_parameter', [
      { parameter: 'limit', message: 'must be an integer from 1 to 1000' },
    ]);
    expect(body.error.message).toBe('One or more query parameters are invalid.');
    expectQuotaHeaders(res, true);
  });

  it('401 on every endpoint without a key: error envelope, WWW-Authenticate, X-Request-Id, no quota headers', async () => {
    for (const url of ENDPOINTS) {
      const res = await call(url);
      expectErrorBody(res, 401, 'missing_api_key');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectQuotaHeaders(res, false);
    }
  });

  it('401 for an invalid key, without echoing the key', async () => {
    const bogus = `${key.slice(0, -8)}AAAAAAAA`;
    const res = await call('/v1/assets', bogus);
    const body = expectErrorBody(res, 401, 'invalid_api_key');
    expect(res.body).not.toContain(bogus);
    expect(res.body).not.toContain(key.slice(0, 20));
    expect(body.error.message).not.toMatch(/mds_/);
    expectQuotaHeaders(res, false);
  });

  it('a 400 from a request without a key is a 401 first', async () => {
    const res = await call('/v1/rates/history?currency=eur');
    expectErrorBody(res, 401, 'missing_api_key');
  });

  it('403 insufficient_scope: details name the entitlement, no quota headers', async () => {
    const { grantId } = await h.newKey();
    const narrow = (await h.keyFor(grantId, { scopes: ['usage:read'] })).key;
    const res = await call('/v1/rates/latest?source=official', narrow);
    expectErrorBody(res, 403, 'insufficient_scope', [{ entitlement: 'rates:official:latest:read' }]);
    expectQuotaHeaders(res, false);
  });

  it.each(['/v1/nope', '/v1', '/v2/assets', '/v1/assets/EUR', '/v1/rates', '/'])(
    'GET %s is 404 route_not_found, with or without a key, and no quota headers',
    async (url) => {
      for (const k of [undefined, key]) {
        const res = await h.get(url, k);
        expectErrorBody(res, 404, 'route_not_found');
        expectQuotaHeaders(res, false);
      }
    },
  );

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
    '%s on a /v1 route is 405 method_not_allowed with Allow: GET, HEAD',
    async (method) => {
      for (const url of ['/v1/assets', '/v1/rates/latest?currency=EUR', '/v1/me']) {
        for (const headers of [{}, { authorization: `Bearer ${key}` }]) {
          const res = await h.app.inject({ method, url, headers });
          expectErrorBody(res, 405, 'method_not_allowed');
          expect(res.headers.allow).toBe('GET, HEAD');
          expectQuotaHeaders(res, false);
        }
      }
      const unknown = await h.app.inject({ method, url: '/v1/nope' });
      expectErrorBody(unknown, 404, 'route_not_found');
    },
  );

  it('a 405 consumes no quota', async () => {
    const { key: k } = await h.newKey({ rpm: 1000, monthly: 500 });
    await inOneMinute(async () => {
      const a = await call('/v1/assets', k);
      await h.app.inject({ method: 'POST', url: '/v1/assets', headers: { authorization: `Bearer ${k}` } });
      const b = await call('/v1/assets', k);
      expect(quota(b)).toEqual({ minute: quota(a).minute - 1, month: quota(a).month - 1 });
    });
  });

  it.each([
    '/v1/assets',
    '/v1/rates/latest?currency=EUR,USD',
    '/v1/rates/history?currency=EUR',
    '/v1/rates/historical?currency=EUR',
    '/v1/market/premium',
    '/v1/market/premium/history?currency=EUR',
    '/v1/market/premium/history?currency=EUR&limit=2',
    '/v1/gold/latest',
    '/v1/gold/history',
    '/v1/me',
  ])('HEAD %s behaves as GET without a body', async (url) => {
    const get = await call(url, key);
    const res = await head(url, key);
    expect(res.statusCode).toBe(get.statusCode);
    expect(res.body).toBe('');
    expect(stable(res)).toEqual(stable(get));
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.headers['x-request-id']).not.toBe(get.headers['x-request-id']);
    if (res.headers['content-length'] !== undefined) {
      const getId = get.headers['x-request-id'] as string;
      const headId = res.headers['x-request-id'] as string;
      expect(Number(res.headers['content-length'])).toBe(
        Buffer.byteLength(get.body) - getId.length + headId.length,
      );
    }
  });

  it.each([
    ['/v1/assets?type=x', undefined, 400],
    ['/v1/rates/history?currency=ZZZ', undefined, 404],
    ['/v1/assets', 'none', 401],
  ] as const)('HEAD %s answers the GET status (%s) without a body', async (url, _k, status) => {
    const k = _k === 'none' ? undefined : key;
    const get = await call(url, k);
    const res = await head(url, k);
    expect(get.statusCode).toBe(status);
    expect(res.statusCode).toBe(status);
    expect(res.body).toBe('');
    expect(stable(res)).toEqual(stable(get));
  });

  it('HEAD consumes a unit like GET', async () => {
    const { key: k } = await h.newKey({ rpm: 1000, monthly: 500 });
    await inOneMinute(async () => {
      const a = await call('/v1/gold/latest', k);
      const b = await head('/v1/gold/latest', k);
      expect(quota(b)).toEqual({ minute: quota(a).minute - 1, month: quota(a).month - 1 });
    });
  });

  it('an over-long URL (> 4096 characters) is a 414 with the error envelope', async () => {
    const at = (n: number) => {
      const prefix = '/v1/assets?type=';
      return prefix + 'a'.repeat(n - prefix.length);
    };
    expect(at(4097)).toHaveLength(4097);
    for (const k of [undefined, key]) {
      const res = await h.get(at(4097), k);
      expectErrorBody(res, 414, 'uri_too_long');
      expectQuotaHeaders(res, false);
      const long = await h.get(`/v1/nope/${'x'.repeat(5000)}`, k);
      expectErrorBody(long, 414, 'uri_too_long');
    }
    // At the limit, the URL is read: here a 400 for the bad `type`.
    const edge = await call(at(4096), key);
    expectErrorBody(edge, 400, 'invalid_parameter', [{ parameter: 'type', message: expect.any(String) }]);
  });

  it('quota headers: present on 200, 400, 404; a 400 consumes nothing, a 200 and a 404 one unit each', async () => {
    const { key: k, grantId } = await h.newKey({ rpm: 50, monthly: 1000 });
    const narrow = (await h.keyFor(grantId, { scopes: ['assets:read'] })).key;
    await inOneMinute(async () => {
      const first = await call('/v1/rates/latest?currency=eur', k);
      expect(first.statusCode).toBe(400);
      expectQuotaHeaders(first, true);
      // Current values, nothing consumed yet.
      expect(first.headers['ratelimit-limit']).toBe('50');
      expect(first.headers['ratelimit-remaining']).toBe('50');
      expect(first.headers['ratelimit-policy']).toBe('50;w=60');
      expect(first.headers['x-monthly-quota-limit']).toBe('1000');
      expect(first.headers['x-monthly-quota-remaining']).toBe('1000');
      const now = new Date();
      expect(first.headers['x-monthly-quota-reset']).toBe(
        new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      );
      const reset = Number(first.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);

      const ok = await call('/v1/rates/latest?currency=EUR', k);
      expect(ok.statusCode).toBe(200);
      expectQuotaHeaders(ok, true);
      expect(quota(ok)).toEqual({ minute: 49, month: 999 });

      const bad = await call('/v1/rates/history?currency=EUR&limit=1e2', k);
      expect(bad.statusCode).toBe(400);
      expect(quota(bad)).toEqual({ minute: 49, month: 999 });

      const badCursor = await call('/v1/rates/history?currency=EUR&cursor=zz', k);
      expect(badCursor.statusCode).toBe(400);
      expect(quota(badCursor)).toEqual({ minute: 49, month: 999 });

      const missing = await call('/v1/rates/history?currency=ZZZ', k);
      expectErrorBody(missing, 404, 'not_found');
      expectQuotaHeaders(missing, true);
      expect(quota(missing)).toEqual({ minute: 48, month: 998 });

      const unauthenticated = await call('/v1/assets');
      expectQuotaHeaders(unauthenticated, false);
      const forbidden = await call('/v1/rates/latest', narrow);
      expect(forbidden.statusCode).toBe(403);
      expectQuotaHeaders(forbidden, false);
      const unknownRoute = await h.get('/v1/nope', k);
      expectQuotaHeaders(unknownRoute, false);

      // The 401, 403 and 404 route_not_found consumed nothing; the same grant's other key shares the counters.
      const again = await call('/v1/assets', narrow);
      expect(again.statusCode).toBe(200);
      expect(quota(again)).toEqual({ minute: 47, month: 997 });
      const peek = await call('/v1/assets?type=nope', k);
      expect(quota(peek)).toEqual({ minute: 47, month: 997 });
    });
  });
});
