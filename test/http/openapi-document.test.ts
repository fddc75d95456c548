import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/schemas/errors.js';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  expectConforms,
  JSON_CONTENT_TYPE,
  loadOpenApi,
  type OpenApiDocument,
  QUOTA_HEADER_NAMES,
} from '../support/openapi.js';

const V1_PATHS = [
  '/v1/assets',
  '/v1/rates/latest',
  '/v1/rates/history',
  '/v1/rates/historical',
  '/v1/convert',
  '/v1/market/premium',
  '/v1/market/premium/history',
  '/v1/gold/latest',
  '/v1/gold/history',
  '/v1/me',
  '/v1/usage/daily',
];

/**
 * Stable: generated clients name their methods after these. A new operation
 * adds its own; none of these may change or go.
 */
const OPERATION_IDS = {
  '/healthz': 'getHealth',
  '/readyz': 'getReadiness',
  '/status': 'getStatus',
  '/v1/assets': 'listAssets',
  '/v1/rates/latest': 'getLatestRates',
  '/v1/rates/history': 'getRatesHistory',
  '/v1/rates/historical': 'getRatesHistoricalDeprecated',
  '/v1/convert': 'convertAmount',
  '/v1/market/premium': 'getMarketPremium',
  '/v1/market/premium/history': 'getPremiumHistory',
  '/v1/gold/latest': 'getLatestGold',
  '/v1/gold/history': 'getGoldHistory',
  '/v1/me': 'getMe',
  '/v1/usage/daily': 'getDailyUsage',
};

describe.each(sqliteOnly())('OpenAPI document on $name', (backend) => {
  let h: Harness;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await startHarness(backend, { seed: false });
    doc = await loadOpenApi(h.app);
  });
  afterAll(async () => h?.close());

  it('is served without a key as JSON', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(doc);
  });

  it('is OpenAPI 3.1.x, version 1.0.0', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe('1.0.0');
    expect(typeof doc.info.title).toBe('string');
  });

  it('lists every /v1 path with a GET operation, and nothing else under /v1', () => {
    const v1 = Object.keys(doc.paths).filter((p) => p.startsWith('/v1'));
    expect(v1.sort()).toEqual([...V1_PATHS].sort());
    for (const p of V1_PATHS) {
      expect(Object.keys(doc.paths[p]!)).toEqual(['get']);
      const responses = doc.paths[p]!.get!.responses;
      for (const status of ['200', '401', '403', '414', '429', '500', '503'])
        expect(responses[status], `${p} ${status}`).toBeDefined();
    }
  });

  it('declares the bearer and X-API-Key security schemes, as alternatives', () => {
    const schemes = Object.values(doc.components?.securitySchemes ?? {});
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(schemes).toContainEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    );
    const names = Object.fromEntries(
      Object.entries(doc.components?.securitySchemes ?? {}).map(([n, s]) => [
        s.type === 'http' ? 'bearer' : 'apiKey',
        n,
      ]),
    );
    // Two requirement objects, each naming one scheme: either one suffices.
    expect(doc.security).toEqual(expect.arrayContaining([{ [names.bearer!]: [] }, { [names.apiKey!]: [] }]));
    expect(doc.security).toHaveLength(2);
  });

  it('names every operation with its stable operationId', () => {
    const ids = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [p, item.get!.operationId]));
    expect(ids).toMatchObject(OPERATION_IDS);
    for (const [path, id] of Object.entries(ids)) expect(id, path).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(Object.values(ids)).size).toBe(Object.keys(ids).length);
  });

  it('says whom to contact, under which licence, on which server, and what each tag holds', () => {
    expect(doc.info.contact).toEqual(expect.objectContaining({ name: expect.any(String) }));
    expect(doc.info.license).toEqual({ name: expect.any(String), identifier: 'LicenseRef-Proprietary' });
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const tags = doc.tags as { name: string; description: string }[];
    const used = new Set(Object.values(doc.paths).flatMap((item) => item.get!.tags as string[]));
    expect(tags.map((t) => t.name).sort()).toEqual([...used].sort());
    for (const tag of tags) expect(tag.description.length, tag.name).toBeGreaterThan(20);
  });

  it("lists each status's error codes as its x-error-codes, the body being the Error component", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [status, response] of Object.entries(item.get!.responses)) {
        if (Number(status) < 400 || (path === '/readyz' && status === '503')) continue;
        expect(response.content?.['application/json']?.schema, `${path} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
        expect(response['x-error-codes'], `${path} ${status}`).toEqual(
          ERROR_CODES[Number(status) as keyof typeof ERROR_CODES],
        );
      }
    }
    // error.code is the enum of every code the statuses list (docs/decisions.md 64).
    const schemas = doc.components!.schemas as Record<string, { properties?: Record<string, unknown> }>;
    expect(schemas.ErrorInfo!.properties!.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(schemas.ErrorCode).toEqual({
      type: 'string',
      enum: [...new Set(Object.values(ERROR_CODES).flat())],
      description: expect.any(String),
    });
    expect(ERROR_CODES[400]).toEqual(['invalid_parameter', 'invalid_cursor']);
    expect(ERROR_CODES[429]).toEqual(['rate_limited', 'quota_exceeded', 'too_many_requests']);
    expect(ERROR_CODES[500]).toEqual(['internal_error']);
  });

  it('documents a 500 internal_error on every operation, open ones included, with X-Request-Id only', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const failure = item.get!.responses['500'];
      expect(failure, `${path} 500`).toBeDefined();
      expect(Object.keys(failure!.headers ?? {}), `${path} 500`).toEqual(['X-Request-Id']);
      expect(failure!.headers!['X-Request-Id']!.required, `${path} 500`).not.toBe(false);
    }
  });

  it('documents the quota headers of a 429 as sent with rate_limited and quota_exceeded, not too_many_requests', () => {
    const quota = QUOTA_HEADER_NAMES.map((n) => n.toLowerCase());
    for (const p of V1_PATHS) {
      const headers = doc.paths[p]!.get!.responses['429']!.headers!;
      for (const [name, header] of Object.entries(headers)) {
        if (quota.includes(name.toLowerCase() as (typeof quota)[number])) {
          expect(header.required, `${p} 429 ${name}`).toBe(false);
          expect(header['x-sent-with-error-codes'], `${p} 429 ${name}`).toEqual([
            'rate_limited',
            'quota_exceeded',
          ]);
        } else {
          // X-Request-Id and Retry-After: on every 429.
          expect(header.required, `${p} 429 ${name}`).not.toBe(false);
          expect(header['x-sent-with-error-codes'], `${p} 429 ${name}`).toBeUndefined();
        }
      }
      // The deprecated alias adds Deprecation, Sunset and Link to every answer (docs/decisions.md 63).
      const alias = p === '/v1/rates/historical' ? 3 : 0;
      expect(Object.keys(headers).length, p).toBe(quota.length + 2 + alias);
      // Elsewhere (200, 304, 400, 404) they are always sent.
      const ok = doc.paths[p]!.get!.responses['200']!.headers!['RateLimit-Limit']!;
      expect(ok.required, p).not.toBe(false);
      expect(ok['x-sent-with-error-codes'], p).toBeUndefined();
    }
  });

  it('asks no key for /healthz and /readyz, and one for every /v1 operation', () => {
    expect(doc.paths['/healthz']!.get!.security).toEqual([]);
    expect(doc.paths['/readyz']!.get!.security).toEqual([]);
    for (const p of V1_PATHS) expect(doc.paths[p]!.get!.security, p).toBeUndefined();
  });

  it('marks /v1/rates/historical, and only it, deprecated', () => {
    expect(doc.paths['/v1/rates/historical']!.get!.deprecated).toBe(true);
    for (const p of V1_PATHS.filter((x) => x !== '/v1/rates/historical')) {
      expect(doc.paths[p]!.get!.deprecated, p).not.toBe(true);
    }
  });

  it('documents 400 except on /v1/me, and 404 on rate and premium history, the alias, convert and gold latest', () => {
    const has = (p: string, s: string) => s in doc.paths[p]!.get!.responses;
    for (const p of V1_PATHS) {
      // Gold latest's 400 is its `at` (decisions 123).
      expect(has(p, '400'), `${p} 400`).toBe(p !== '/v1/me');
      expect(has(p, '404'), `${p} 404`).toBe(
        [
          '/v1/rates/history',
          '/v1/rates/historical',
          '/v1/convert',
          '/v1/market/premium/history',
          '/v1/gold/latest',
        ].includes(p),
      );
    }
  });

  it('documents CSV (with an example) and Link on the history pages, and the premium history operation', () => {
    const pages = [
      '/v1/rates/history',
      '/v1/rates/historical',
      '/v1/gold/history',
      '/v1/market/premium/history',
    ];
    for (const p of V1_PATHS) {
      const ok = doc.paths[p]!.get!.responses['200']!;
      const csv = ok.content?.['text/csv'] as { schema?: { type?: string }; example?: string } | undefined;
      expect(Boolean(csv), `${p} text/csv`).toBe(pages.includes(p));
      expect(Boolean(ok.headers?.Link), `${p} Link`).toBe(pages.includes(p));
      if (!csv) continue;
      expect(csv.schema?.type).toBe('string');
      expect(csv.example).toMatch(/^[a-z_A-Z,]+\r\n([^\r\n]+\r\n)+$/);
      expect(ok.headers!.Link!.required).toBe(false);
      expect(ok.content?.['application/json']?.schema).toBeDefined();
    }
    const op = doc.paths['/v1/market/premium/history']!.get!;
    expect(op.operationId).toBe('getPremiumHistory');
    expect(op.tags).toEqual(doc.paths['/v1/market/premium']!.get!.tags);
    expect(
      doc.paths['/v1/market/premium/history']!.get!.responses['200']!.content!['text/csv'],
    ).toMatchObject({
      example: expect.stringMatching(/^date,currency,quote,parallel_buy,.*,premium_sell_percent\r\n/),
    });
  });

  it('the conformance check accepts a real answer and rejects an undocumented status, body or header', async () => {
    const { key } = await h.newKey();
    const real = await h.get('/v1/assets', key);
    expect(real.statusCode).toBe(200);
    expectConforms(doc, 'get', '/v1/assets', real);
    const variant = (patch: Partial<typeof real>) => ({ ...real, ...patch }) as typeof real;
    // A 404 is not documented for /v1/assets.
    expect(() => expectConforms(doc, 'get', '/v1/assets', variant({ statusCode: 404 }))).toThrow(
      /not documented/,
    );
    // A body without meta, or with a wrongly typed field.
    expect(() => expectConforms(doc, 'get', '/v1/assets', variant({ body: '{"data":[]}' }))).toThrow(
      /documented schema/,
    );
    const wrong = real.json();
    wrong.meta.count = 'many';
    expect(() => expectConforms(doc, 'get', '/v1/assets', variant({ body: JSON.stringify(wrong) }))).toThrow(
      /documented schema/,
    );
    // A documented quota header missing, or malformed.
    const { 'ratelimit-remaining': _dropped, ...fewer } = real.headers;
    expect(() => expectConforms(doc, 'get', '/v1/assets', variant({ headers: fewer }))).toThrow(
      /RateLimit-Remaining/,
    );
    expect(() =>
      expectConforms(
        doc,
        'get',
        '/v1/assets',
        variant({ headers: { ...real.headers, 'ratelimit-limit': '1.5' } }),
      ),
    ).toThrow(/RateLimit-Limit/);
    // Quota headers on a 401, whose documentation lists none.
    const unauthorized = await h.get('/v1/assets');
    expectConforms(doc, 'get', '/v1/assets', unauthorized);
    expect(() =>
      expectConforms(doc, 'get', '/v1/assets', {
        ...unauthorized,
        headers: { ...unauthorized.headers, 'ratelimit-limit': '5' },
      } as typeof unauthorized),
    ).toThrow(/not documented/);
    expect(() => expectConforms(doc, 'get', '/v1/unknown', real)).toThrow(/not in the OpenAPI document/);
  });

  it('the conformance check holds a 429 to its code: quota headers with rate_limited, none with too_many_requests', async () => {
    const { key } = await h.newKey();
    const real = await h.get('/v1/assets', key);
    const quota = Object.fromEntries(QUOTA_HEADER_NAMES.map((n) => [n, real.headers[n]]));
    const refusal = (code: string, headers: Record<string, unknown>) =>
      ({
        ...real,
        statusCode: 429,
        headers: {
          'x-request-id': 'req_1',
          'retry-after': '7',
          'content-type': JSON_CONTENT_TYPE,
          ...headers,
        },
        body: JSON.stringify({
          data: null,
          error: { status: 429, code, message: 'm' },
          meta: { requestId: 'req_1' },
        }),
      }) as typeof real;
    expectConforms(doc, 'get', '/v1/assets', refusal('rate_limited', quota));
    expectConforms(doc, 'get', '/v1/assets', refusal('quota_exceeded', quota));
    expectConforms(doc, 'get', '/v1/assets', refusal('too_many_requests', {}));
    const { 'ratelimit-limit': _dropped, ...fewer } = quota;
    expect(() => expectConforms(doc, 'get', '/v1/assets', refusal('rate_limited', fewer))).toThrow(
      /RateLimit-Limit is missing/,
    );
    expect(() =>
      expectConforms(
        doc,
        'get',
        '/v1/assets',
        refusal('too_many_requests', { 'x-monthly-quota-limit': '5' }),
      ),
    ).toThrow(/X-Monthly-Quota-Limit is documented for rate_limited, quota_exceeded only/);
    // Retry-After is on every 429.
    expect(() =>
      expectConforms(doc, 'get', '/v1/assets', refusal('too_many_requests', { 'retry-after': undefined })),
    ).toThrow(/Retry-After is missing/);
  });

  it('the conformance check accepts a 500 internal_error anywhere, without quota headers', async () => {
    const { key } = await h.newKey();
    const real = await h.get('/v1/assets', key);
    const failure = (path: string, code: string, headers: Record<string, unknown> = {}) => {
      const res = {
        ...real,
        statusCode: 500,
        headers: { 'x-request-id': 'req_1', 'content-type': JSON_CONTENT_TYPE, ...headers },
        body: JSON.stringify({
          data: null,
          error: { status: 500, code, message: 'm' },
          meta: { requestId: 'req_1' },
        }),
      } as typeof real;
      return () => expectConforms(doc, 'get', path, res);
    };
    for (const path of Object.keys(doc.paths)) failure(path, 'internal_error')();
    expect(failure('/v1/assets', 'service_unavailable')).toThrow(/x-error-codes/);
    expect(failure('/v1/assets', 'no_such_code')).toThrow(/documented schema/);
    expect(failure('/v1/assets', 'internal_error', { 'ratelimit-limit': '5' })).toThrow(/not documented/);
  });
});
