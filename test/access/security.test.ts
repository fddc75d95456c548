/**
 * Access control on every /v1 route (specification "Authentication";
 * decisions §1 steps 1–5, §3, §4): one shared suite of refusals, each checked
 * for status, error code, the request id and the absence of every quota header,
 * plus the two key headers, legacy umbrella scopes and the order of the steps.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS, type Entitlement } from '../../src/domain/scopes.js';
import { type AdminHarness, servedAdminOpenApi, startAdminHarness } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { DAY, type Harness, servedOpenApi, startHarness } from '../support/harness.js';
import { adminRequests, securedRequests } from '../support/openapi.js';
import { waitFor, withinOneMinute } from '../support/wait.js';

const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
];

/**
 * Every secured /v1 operation of the served OpenAPI document, one request per
 * entitlement it can need (openapi.ts, `securedRequests`): a route added to
 * the API is under this suite without anyone editing a list.
 */
const served = await servedOpenApi();
const ROUTES = securedRequests(served);

/**
 * The requests the suite covered when its list was written by hand: the list
 * read from the document must still hold each of them (a route that vanished
 * from the document would otherwise drop out of the suite unnoticed).
 */
const KNOWN: Array<{ url: string; entitlement: Entitlement }> = [
  { url: '/v1/assets', entitlement: 'assets:read' },
  { url: '/v1/rates/latest', entitlement: 'rates:parallel:latest:read' },
  { url: '/v1/rates/latest?source=official', entitlement: 'rates:official:latest:read' },
  { url: '/v1/rates/latest?source=transfer', entitlement: 'rates:transfer:latest:read' },
  { url: '/v1/rates/history?currency=EUR', entitlement: 'rates:parallel:history:read' },
  { url: '/v1/rates/history?currency=EUR&source=official', entitlement: 'rates:official:history:read' },
  { url: '/v1/rates/history?currency=EUR&source=transfer', entitlement: 'rates:transfer:history:read' },
  { url: '/v1/rates/historical?currency=EUR', entitlement: 'rates:parallel:history:read' },
  {
    url: '/v1/rates/historical?currency=EUR&source=official',
    entitlement: 'rates:official:history:read',
  },
  {
    url: '/v1/rates/historical?currency=EUR&source=transfer',
    entitlement: 'rates:transfer:history:read',
  },
  { url: '/v1/market/premium', entitlement: 'market:premium:read' },
  { url: '/v1/market/premium/history?currency=EUR', entitlement: 'market:premium:history:read' },
  { url: '/v1/gold/latest', entitlement: 'gold:latest:read' },
  { url: '/v1/gold/history', entitlement: 'gold:history:read' },
  { url: '/v1/me', entitlement: 'usage:read' },
];

const ALL = [...ENTITLEMENTS];
const without = (e: string) => ALL.filter((x) => x !== e);

/** Status, code, envelope, request id, and none of the quota headers (decisions §1). */
function expectRefused(res: LightMyRequestResponse, status: number, code: string) {
  expect({ status: res.statusCode, body: res.body }).toMatchObject({ status });
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(body.error.status).toBe(status);
  expect(body.data).toBeNull();
  expect(typeof res.headers['x-request-id']).toBe('string');
  expect(body.meta.requestId).toBe(res.headers['x-request-id']);
  for (const h of QUOTA_HEADERS) expect(res.headers[h], h).toBeUndefined();
  expect(res.headers['retry-after']).toBeUndefined();
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return body;
}

function expectQuotaHeaders(res: LightMyRequestResponse) {
  for (const h of QUOTA_HEADERS) expect(res.headers[h], h).toBeDefined();
}

function badChecksum(key: string): string {
  const last = key.at(-1);
  return key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe('the routes under this suite', () => {
  it('are read from the served OpenAPI document: every known /v1 operation, each entitlement it needs', () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    expect(ROUTES.map(({ url, entitlement }) => ({ url, entitlement }))).toEqual(
      expect.arrayContaining(KNOWN),
    );
    const v1 = Object.keys(served.paths).filter((p) => p.startsWith('/v1/'));
    expect(new Set(ROUTES.map((r) => r.path))).toEqual(new Set(v1));
    for (const r of ROUTES) expect(ALL, `${r.operationId}: ${r.entitlement}`).toContain(r.entitlement);
  });
});

describe.each(backends())('access control on $name', (backend) => {
  let h: Harness;
  // Every request from its own address: the failed-attempt throttle (30 per
  // address per minute) must not turn the many invalid keys below into 429s.
  let address = 0;
  const callWith = (url: string, headers: Record<string, string>, method: string) => {
    address++;
    return h.app.inject({
      method: method as InjectOptions['method'],
      url,
      headers,
      remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    });
  };
  const call = (url: string, headers: Record<string, string> = {}) => callWith(url, headers, 'GET');
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  let valid: { key: string; publicId: string; grantId: string; accountId: string };
  const keys: Record<string, string> = {};
  const lackingKey = new Map<string, string>();
  const lackingGrant = new Map<string, string>();

  beforeAll(async () => {
    h = await startHarness(backend);
    // The routes were read from a document served before this harness existed.
    expect(h.doc).toEqual(served);
    valid = await h.newKey();

    const revoked = await h.newKey();
    expect((await call('/v1/assets', bearer(revoked.key))).statusCode).toBe(200);
    await h.revoke(revoked.publicId);
    keys.revoked = revoked.key;

    const expiresAt = Date.now() + 600;
    const expiring = await h.newKey({ expiresAt });
    expect((await call('/v1/assets', bearer(expiring.key))).statusCode).toBe(200);
    keys.expired = expiring.key;

    const suspended = await h.newKey();
    expect((await call('/v1/assets', bearer(suspended.key))).statusCode).toBe(200);
    await h.updateGrant(suspended.grantId, { status: 'suspended' });
    keys.suspended = suspended.key;

    const cancelled = await h.newKey();
    expect((await call('/v1/assets', bearer(cancelled.key))).statusCode).toBe(200);
    await h.updateGrant(cancelled.grantId, { status: 'cancelled' });
    keys.cancelled = cancelled.key;

    keys.notYetValid = (await h.newKey({ validFrom: Date.now() + DAY })).key;
    keys.ended = (await h.newKey({ validFrom: Date.now() - 2 * DAY, validUntil: Date.now() - 1000 })).key;

    for (const e of new Set(ROUTES.flatMap((r) => (r.entitlement ? [r.entitlement] : [])))) {
      lackingKey.set(e, (await h.newKey({ scopes: without(e) })).key);
      lackingGrant.set(e, (await h.newKey({ scopes: ALL, grantScopes: without(e) })).key);
    }
    await waitFor(async () => (await call('/v1/assets', bearer(expiring.key))).statusCode === 401, {
      what: 'the key expiring',
      timeout: 5_000,
    });
  });
  afterAll(async () => h?.close());

  describe.each(ROUTES)('$operationId $url', ({ url, method, entitlement }) => {
    const call = (u: string, headers: Record<string, string> = {}) => callWith(u, headers, method);
    it('answers 200 with the Bearer key and with the X-API-Key header alone', async () => {
      const a = await call(url, bearer(valid.key));
      expect(a.statusCode, a.body).toBe(200);
      expectQuotaHeaders(a);
      const b = await call(url, { 'x-api-key': valid.key });
      expect(b.statusCode, b.body).toBe(200);
      expectQuotaHeaders(b);
      expect(b.json().meta.requestId).toBe(b.headers['x-request-id']);
    });

    it('accepts both headers when they carry the same key', async () => {
      const res = await call(url, { ...bearer(valid.key), 'x-api-key': valid.key });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('refuses two different keys: 401 invalid_api_key', async () => {
      const other = (await h.newKey()).key;
      expectRefused(await call(url, { ...bearer(valid.key), 'x-api-key': other }), 401, 'invalid_api_key');
    });

    it('refuses a missing key: 401 missing_api_key with WWW-Authenticate: Bearer', async () => {
      const res = await call(url);
      expectRefused(res, 401, 'missing_api_key');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses a malformed key: 401 invalid_api_key', async () => {
      expectRefused(await call(url, bearer('not-a-key')), 401, 'invalid_api_key');
      expectRefused(await call(url, { 'x-api-key': 'mds_live_abc' }), 401, 'invalid_api_key');
    });

    it('refuses a well-formed key with a bad checksum: 401 invalid_api_key', async () => {
      expectRefused(await call(url, bearer(badChecksum(valid.key))), 401, 'invalid_api_key');
    });

    it('refuses the wrong secret for an existing public id: 401 invalid_api_key', async () => {
      const forged = generateKey('live', valid.publicId).key;
      expect(forged.startsWith(`mds_live_${valid.publicId}_`)).toBe(true);
      expectRefused(await call(url, bearer(forged)), 401, 'invalid_api_key');
    });

    it('refuses a revoked key: 401 revoked_api_key', async () => {
      expectRefused(await call(url, bearer(keys.revoked!)), 401, 'revoked_api_key');
    });

    it('refuses an expired key: 401 expired_api_key', async () => {
      expectRefused(await call(url, bearer(keys.expired!)), 401, 'expired_api_key');
    });

    it('refuses a key of a suspended grant: 403 grant_inactive', async () => {
      expectRefused(await call(url, bearer(keys.suspended!)), 403, 'grant_inactive');
    });

    it('refuses a key of a cancelled grant: 403 grant_inactive', async () => {
      expectRefused(await call(url, bearer(keys.cancelled!)), 403, 'grant_inactive');
    });

    it('refuses a key of a grant not yet valid: 403 grant_inactive', async () => {
      expectRefused(await call(url, bearer(keys.notYetValid!)), 403, 'grant_inactive');
    });

    it('refuses a key of a grant whose validUntil has passed: 403 grant_inactive', async () => {
      expectRefused(await call(url, bearer(keys.ended!)), 403, 'grant_inactive');
    });

    // Scope refusals apply where the operation names an entitlement.
    if (entitlement) {
      it(`refuses a key lacking ${entitlement}: 403 insufficient_scope naming it`, async () => {
        const body = expectRefused(
          await call(url, bearer(lackingKey.get(entitlement)!)),
          403,
          'insufficient_scope',
        );
        expect(body.error.details).toEqual([{ entitlement }]);
      });

      it(`refuses a grant lacking ${entitlement} though the key has it: 403 insufficient_scope`, async () => {
        const body = expectRefused(
          await call(url, bearer(lackingGrant.get(entitlement)!)),
          403,
          'insufficient_scope',
        );
        expect(body.error.details).toEqual([{ entitlement }]);
      });
    }
  });

  describe('key syntax', () => {
    it.each([
      ['garbage', 'garbage'],
      ['another environment', (k: string) => k.replace('mds_live_', 'mds_prod_')],
      ['a truncated key', (k: string) => k.slice(0, -1)],
      ['an extended key', (k: string) => `${k}x`],
      [
        'an upper-case public id',
        (k: string) => k.replace(/^mds_live_([a-z0-9]{12})/, (m) => m.toUpperCase()),
      ],
      [
        'a changed secret character',
        (k: string) => k.slice(0, 30) + (k[30] === 'a' ? 'b' : 'a') + k.slice(31),
      ],
    ])('%s is 401 invalid_api_key', async (_name, make) => {
      const presented = typeof make === 'string' ? make : make(valid.key);
      expect(presented).not.toBe(valid.key);
      expectRefused(await call('/v1/assets', bearer(presented)), 401, 'invalid_api_key');
    });

    it('a non-Bearer Authorization scheme is 401 invalid_api_key', async () => {
      expectRefused(
        await call('/v1/assets', { authorization: `Basic ${valid.key}` }),
        401,
        'invalid_api_key',
      );
    });

    it('never echoes the presented key in an error body', async () => {
      const forged = generateKey('live', valid.publicId).key;
      const res = await call('/v1/assets', bearer(forged));
      expect(res.body).not.toContain(forged);
      expect(res.body).not.toContain(valid.publicId);
    });
  });

  describe('legacy umbrella scopes', () => {
    it('`read` on grant and key authorises every route; /v1/me lists canonical entitlements only', async () => {
      const k = await h.newKey({ grantScopes: ['read'], scopes: ['read'] });
      for (const { url } of ROUTES) {
        const res = await call(url, bearer(k.key));
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      }
      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.grant.scopes).toEqual(ALL);
      expect(me.data.key.scopes).toEqual(ALL);
    });

    it('umbrellas on grant and key expand, authorise exactly their entitlements, and are never shown', async () => {
      const k = await h.newKey({
        grantScopes: ['rates:read', 'gold:read', 'market:read', 'usage:read'],
        scopes: ['usage:read', 'rates:latest:read', 'gold:read', 'market:read'],
      });
      const ok = [
        '/v1/rates/latest',
        '/v1/rates/latest?source=official',
        '/v1/rates/latest?source=transfer',
        '/v1/gold/latest',
        '/v1/gold/history',
        '/v1/market/premium',
        '/v1/market/premium/history?currency=EUR',
      ];
      for (const url of ok) expect((await call(url, bearer(k.key))).statusCode, url).toBe(200);
      // The key's rates:latest:read does not cover history; the grant has no assets:read.
      const history = expectRefused(
        await call('/v1/rates/history?currency=EUR&source=official', bearer(k.key)),
        403,
        'insufficient_scope',
      );
      expect(history.error.details).toEqual([{ entitlement: 'rates:official:history:read' }]);
      const assets = expectRefused(await call('/v1/assets', bearer(k.key)), 403, 'insufficient_scope');
      expect(assets.error.details).toEqual([{ entitlement: 'assets:read' }]);

      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.grant.scopes).toEqual([
        'gold:history:read',
        'gold:latest:read',
        'market:premium:history:read',
        'market:premium:read',
        'rates:official:history:read',
        'rates:official:latest:read',
        'rates:parallel:history:read',
        'rates:parallel:latest:read',
        'rates:transfer:history:read',
        'rates:transfer:latest:read',
        'usage:read',
      ]);
      expect(me.data.key.scopes).toEqual([
        'gold:history:read',
        'gold:latest:read',
        'market:premium:history:read',
        'market:premium:read',
        'rates:official:latest:read',
        'rates:parallel:latest:read',
        'rates:transfer:latest:read',
        'usage:read',
      ]);
    });

    it('rates:history:read expands to the three history entitlements', async () => {
      const k = await h.newKey({ grantScopes: ['rates:history:read', 'usage:read'] });
      expect((await call('/v1/rates/history?currency=EUR&source=transfer', bearer(k.key))).statusCode).toBe(
        200,
      );
      expectRefused(await call('/v1/rates/latest', bearer(k.key)), 403, 'insufficient_scope');
      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.key.scopes).toEqual([
        'rates:official:history:read',
        'rates:parallel:history:read',
        'rates:transfer:history:read',
        'usage:read',
      ]);
    });

    it('an unknown scope found in the store is ignored, not shown and not an error', async () => {
      const k = await h.newKey({ grantScopes: ['usage:read', 'assets:read', 'bogus:scope'] });
      expect((await call('/v1/assets', bearer(k.key))).statusCode).toBe(200);
      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.grant.scopes).toEqual(['assets:read', 'usage:read']);
    });
  });

  describe('precedence of the pipeline steps (decisions §1)', () => {
    it('unknown route without a key: 404 route_not_found, no quota headers', async () => {
      expectRefused(await call('/v1/nope'), 404, 'route_not_found');
      expectRefused(await call('/v1/rates'), 404, 'route_not_found');
    });

    it('unknown route with a valid key: 404 route_not_found, nothing consumed', async () => {
      const k = await h.newKey();
      expectRefused(await call('/v1/nope', bearer(k.key)), 404, 'route_not_found');
      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.usage.requestsUsed).toBe(1);
    });

    it('a method other than GET without a key: 405 method_not_allowed', async () => {
      const res = await h.app.inject({ method: 'POST', url: '/v1/assets' });
      expectRefused(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('invalid query + missing key: 401 missing_api_key', async () => {
      expectRefused(await call('/v1/assets?type=bogus'), 401, 'missing_api_key');
      expectRefused(await call('/v1/rates/history?limit=0'), 401, 'missing_api_key');
    });

    it('invalid query + invalid key: 401 invalid_api_key', async () => {
      expectRefused(await call('/v1/assets?type=bogus', bearer('garbage')), 401, 'invalid_api_key');
    });

    it('invalid query + revoked key: 401 revoked_api_key', async () => {
      expectRefused(await call('/v1/assets?type=bogus', bearer(keys.revoked!)), 401, 'revoked_api_key');
    });

    it('revoked key on a suspended grant: 401 revoked_api_key (step 2 before step 3)', async () => {
      const k = await h.newKey();
      await h.updateGrant(k.grantId, { status: 'suspended' });
      await h.revoke(k.publicId);
      expectRefused(await call('/v1/assets', bearer(k.key)), 401, 'revoked_api_key');
    });

    it('invalid query + inactive grant: 403 grant_inactive', async () => {
      expectRefused(await call('/v1/assets?type=bogus', bearer(keys.suspended!)), 403, 'grant_inactive');
      expectRefused(
        await call('/v1/rates/history?currency=eur', bearer(keys.notYetValid!)),
        403,
        'grant_inactive',
      );
    });

    it('inactive grant + key lacking the scope: 403 grant_inactive (step 3 before step 5)', async () => {
      const k = await h.newKey({ scopes: ['usage:read'] });
      await h.updateGrant(k.grantId, { status: 'suspended' });
      expectRefused(await call('/v1/assets', bearer(k.key)), 403, 'grant_inactive');
    });

    it('invalid query + valid key lacking the scope: 400, with quota headers, nothing consumed', async () => {
      const k = await h.newKey({ scopes: ['usage:read'], rpm: 9, monthly: 99 });
      for (const url of [
        '/v1/assets?type=bogus',
        '/v1/rates/latest?source=bogus',
        '/v1/rates/history?currency=EUR&limit=0',
        '/v1/market/premium?currency=eur',
        '/v1/gold/history?from=2025-02-30',
      ]) {
        const res = await call(url, bearer(k.key));
        expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
        expect(res.json().error.code).toBe('invalid_parameter');
        expect(res.json().meta.requestId).toBe(res.headers['x-request-id']);
        expect(res.headers['ratelimit-limit']).toBe('9');
        expect(res.headers['ratelimit-remaining']).toBe('9');
        expect(res.headers['x-monthly-quota-limit']).toBe('99');
        expect(res.headers['x-monthly-quota-remaining']).toBe('99');
      }
      const me = (await call('/v1/me', bearer(k.key))).json();
      expect(me.data.usage.requestsUsed).toBe(1);
    });

    it('exhausted minute + key lacking the scope: 403 insufficient_scope (step 5 before step 6)', async () => {
      await withinOneMinute();
      const k = await h.newKey({ scopes: ['usage:read'], rpm: 1 });
      let limited = false;
      for (let i = 0; i < 3 && !limited; i++)
        limited = (await call('/v1/me', bearer(k.key))).statusCode === 429;
      expect(limited).toBe(true);
      const body = expectRefused(await call('/v1/assets', bearer(k.key)), 403, 'insufficient_scope');
      expect(body.error.details).toEqual([{ entitlement: 'assets:read' }]);
    });

    it('exhausted minute + invalid query: 400 (step 4 before step 6)', async () => {
      await withinOneMinute();
      const k = await h.newKey({ rpm: 1 });
      expect((await call('/v1/assets', bearer(k.key))).statusCode).toBe(200);
      const res = await call('/v1/assets?type=bogus', bearer(k.key));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_parameter');
      expect(res.headers['ratelimit-remaining']).toBe('0');
    });

    it('gold latest and /v1/me ignore a query string, even a bogus one', async () => {
      expect((await call('/v1/gold/latest?x=1&x=2', bearer(valid.key))).statusCode).toBe(200);
      expect((await call('/v1/me?limit=abc', bearer(valid.key))).statusCode).toBe(200);
    });
  });
});

/**
 * Every admin operation of /admin/openapi.json (openapi.ts, `adminRequests`),
 * with the scope it requires (docs/decisions.md 58): refused without a token,
 * with a wrong, malformed or revoked one, with an API key (401), with a token
 * lacking its scope (403); let through with a token that has only that scope.
 */
const servedAdmin = await servedAdminOpenApi();
const ADMIN_ROUTES = adminRequests(servedAdmin);
const ADMIN_SCOPES = [
  'accounts:read',
  'accounts:write',
  'keys:write',
  'usage:read',
  'data:write',
  'audit:read',
  'webhooks:write',
  'reporters:write',
  'admin-tokens:write',
];

describe('the admin routes under this suite', () => {
  it('are every operation of the admin document, each with one of the admin scopes', () => {
    const paths = Object.keys(servedAdmin.paths).filter((p) => p.startsWith('/admin/v1/'));
    expect(paths.length).toBeGreaterThan(0);
    expect(new Set(ADMIN_ROUTES.map((r) => r.path))).toEqual(new Set(paths));
    for (const r of ADMIN_ROUTES) expect(ADMIN_SCOPES, r.operationId).toContain(r.scope);
  });
});

describe.each(backends())('admin access control on $name', (backend) => {
  let h: AdminHarness;
  let address = 0;
  const tokens: Record<string, string> = {};
  const only = new Map<string, string>();
  const lacking = new Map<string, string>();
  let apiKey: string;

  beforeAll(async () => {
    h = await startAdminHarness(backend);
    expect(h.adminDoc).toEqual(servedAdmin);
    const revoked = await h.token();
    await h.revokeToken(revoked.publicId);
    tokens.revoked = revoked.token;
    const forged = await h.token();
    // Well formed, and the checksum of another: never a token the store knows.
    tokens.wrong = `${forged.token.slice(0, -1)}${forged.token.endsWith('A') ? 'B' : 'A'}`;
    for (const scope of ADMIN_SCOPES) {
      only.set(scope, (await h.token([scope])).token);
      lacking.set(scope, (await h.token(ADMIN_SCOPES.filter((s) => s !== scope))).token);
    }
    apiKey = (await h.newKey()).key;
  });
  afterAll(async () => h?.close());

  const call = (method: string, url: string, authorization?: string) => {
    address++;
    return h.admin.inject({
      method: method as InjectOptions['method'],
      url,
      headers: authorization === undefined ? {} : { authorization },
      remoteAddress: `10.200.${(address >> 8) & 255}.${address & 255}`,
    });
  };
  const refused = (res: LightMyRequestResponse, status: number, code: string) => {
    expect({ status: res.statusCode, body: res.body }).toMatchObject({ status });
    const body = res.json();
    expect(body.error).toMatchObject({ status, code });
    expect(body.data).toBeNull();
    expect(body.meta.requestId).toBe(res.headers['x-request-id']);
    return res;
  };

  describe.each(ADMIN_ROUTES)('$operationId $method $url', ({ method, url, scope }) => {
    it('refuses no token: 401 missing_admin_token with WWW-Authenticate: Bearer', async () => {
      const res = refused(await call(method, url), 401, 'missing_admin_token');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses a wrong, a malformed and a revoked token: 401 invalid_admin_token', async () => {
      for (const presented of [tokens.wrong!, 'mdsadm_', 'garbage', tokens.revoked!]) {
        refused(await call(method, url, `Bearer ${presented}`), 401, 'invalid_admin_token');
      }
      refused(await call(method, url, `Basic ${tokens.revoked}`), 401, 'invalid_admin_token');
    });

    it('refuses an API key: 401 invalid_admin_token', async () => {
      refused(await call(method, url, `Bearer ${apiKey}`), 401, 'invalid_admin_token');
    });

    it(`refuses a token without ${scope}: 403 insufficient_admin_scope naming it`, async () => {
      const res = refused(
        await call(method, url, `Bearer ${lacking.get(scope)}`),
        403,
        'insufficient_admin_scope',
      );
      expect(res.json().error.message).toContain(scope);
    });

    it(`lets a token with only ${scope} through`, async () => {
      const res = await call(method, url, `Bearer ${only.get(scope)}`);
      expect([401, 403, 429], res.body).not.toContain(res.statusCode);
    });
  });

  it('an admin token on /v1 is 401 invalid_api_key', async () => {
    const res = await h.get('/v1/assets', only.get('accounts:read'));
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
  });
});
