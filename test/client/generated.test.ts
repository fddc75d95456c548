/**
 * The generated part of the client (packages/client/src/generated.ts) cannot
 * drift from the API: the committed file must be byte for byte what the
 * current OpenAPI document generates, its types must be the very types of the
 * server's schemas (checked by the compiler in `npm run typecheck`, which runs
 * before the build regenerates the file), and the client must expose every
 * /v1 operation of the document except the deprecated alias, as a method named
 * after its operationId.
 */
import { readFileSync } from 'node:fs';
import type { Static } from '@sinclair/typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as G from '../../packages/client/src/generated.js';
import { OPERATIONS } from '../../packages/client/src/generated.js';
import { MdsClient } from '../../packages/client/src/index.js';
import {
  GENERATED_PATH,
  generateClientSource,
  type JsonSchema,
  loadOpenApiDocument,
  type OpenApiDocument,
} from '../../scripts/client-codegen.js';
import type { ErrorBody } from '../../src/schemas/errors.js';
import type * as M from '../../src/schemas/market.js';
import type { MeResponse } from '../../src/schemas/me.js';
import type { DailyUsageQuery, DailyUsageResponse } from '../../src/schemas/usage.js';

// ---- Compile-time: the generated types are exactly the server's types -------

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Extends<A, B> = [A] extends [B] ? true : false;

/** A stale generated.ts fails `tsc` here: each entry must be `true`. */
const sameTypes: [
  Equal<G.AssetsResponse, Static<typeof M.AssetsResponse>>,
  Equal<G.RatesLatestResponse, Static<typeof M.RatesLatestResponse>>,
  Equal<G.RatesHistoryResponse, Static<typeof M.RatesHistoryResponse>>,
  Equal<G.MarketPremiumResponse, Static<typeof M.PremiumResponse>>,
  Equal<G.MarketPremiumHistoryResponse, Static<typeof M.PremiumHistoryResponse>>,
  Equal<G.GoldLatestResponse, Static<typeof M.GoldLatestResponse>>,
  Equal<G.GoldHistoryResponse, Static<typeof M.GoldHistoryResponse>>,
  Equal<G.MeResponse, Static<typeof MeResponse>>,
  Equal<G.UsageDailyResponse, Static<typeof DailyUsageResponse>>,
  Equal<G.UsageDailyQuery, Static<typeof DailyUsageQuery>>,
  Equal<G.ErrorResponse, Static<typeof ErrorBody>>,
  Equal<G.RatesLatestQuery, Static<typeof M.RatesLatestQuery>>,
  Equal<G.RatesHistoryQuery, Static<typeof M.RatesHistoryQuery>>,
  Equal<G.MarketPremiumQuery, Static<typeof M.PremiumQuery>>,
  Equal<G.MarketPremiumHistoryQuery, Static<typeof M.PremiumHistoryQuery>>,
  Equal<G.GoldHistoryQuery, Static<typeof M.GoldHistoryQuery>>,
  // The server types `type` as string; the document (and so the client) names the three values.
  Extends<G.AssetsQuery, Static<typeof M.AssetsQuery>>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

describe('generated client types', () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    doc = await loadOpenApiDocument();
  });

  it('packages/client/src/generated.ts is what the current OpenAPI document generates', () => {
    const committed = readFileSync(GENERATED_PATH, 'utf8');
    const fresh = generateClientSource(doc);
    expect(committed, 'generated.ts is out of date: run `npm run generate:client`').toBe(fresh);
    expect(sameTypes.every(Boolean)).toBe(true);
  });

  it('lists every operation of the document with its operationId and query parameters', () => {
    const expected = Object.entries(doc.paths).map(([path, item]) => {
      const op = item.get!;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      return {
        operationId: op.operationId,
        method: 'GET',
        path,
        query: query.map((p) => p.name),
        requiredQuery: query.filter((p) => p.required).map((p) => p.name),
        deprecated: op.deprecated === true,
      };
    });
    expect(OPERATIONS.map(({ name: _name, ...rest }) => rest)).toEqual(expected);
    expect(OPERATIONS.filter((o) => o.deprecated).map((o) => o.path)).toEqual(['/v1/rates/historical']);
  });

  it('the client calls every /v1 operation but the deprecated alias, by operationId, with the key as a Bearer token', async () => {
    const calls: Array<{ url: URL; auth: string | null }> = [];
    const client = new MdsClient({
      baseUrl: 'http://api.test/prefix/',
      apiKey: 'mds_test_key',
      fetch: async (input, init) => {
        calls.push({ url: new URL(String(input)), auth: new Headers(init?.headers).get('authorization') });
        return new Response(JSON.stringify({ data: [], meta: { requestId: 'r', nextCursor: null } }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    const exposed = OPERATIONS.filter((o) => !o.deprecated && o.path.startsWith('/v1/'));
    // Every exposed operationId is a method of the client; nothing else of the document is.
    for (const { operationId } of exposed)
      expect(typeof Reflect.get(client, operationId), operationId).toBe('function');
    for (const { operationId } of OPERATIONS.filter((o) => !exposed.includes(o))) {
      expect(operationId in client, operationId).toBe(false);
    }
    await client.listAssets({ type: 'metal' });
    await client.getLatestRates({ currency: 'EUR,USD', source: 'official' });
    await client.getRatesHistory({ currency: 'EUR', from: '2026-01-01', to: '2026-01-31', limit: 10 });
    await client.convertAmount({ from: 'EUR', to: 'DZD', amount: '100.5' });
    await client.getMarketPremium({ currency: 'EUR' });
    await client.getPremiumHistory({ currency: 'EUR', limit: 7 });
    await client.getLatestGold();
    await client.getGoldHistory({ limit: 5 });
    await client.getMe();
    await client.getDailyUsage({ from: '2026-01-01', to: '2026-01-31' });
    expect(calls.map((c) => c.url.pathname.replace('/prefix', ''))).toEqual(exposed.map((o) => o.path));
    expect(calls.map((c) => c.url.search)).toEqual([
      '?type=metal',
      '?currency=EUR%2CUSD&source=official',
      '?currency=EUR&from=2026-01-01&to=2026-01-31&limit=10',
      '?from=EUR&to=DZD&amount=100.5',
      '?currency=EUR',
      '?currency=EUR&limit=7',
      '',
      '?limit=5',
      '',
      '?from=2026-01-01&to=2026-01-31',
    ]);
    expect(new Set(calls.map((c) => c.auth))).toEqual(new Set(['Bearer mds_test_key']));
    expect('ratesHistorical' in client).toBe(false);
    expect('historical' in client).toBe(false);

    // The method names of client 1.0 still call the same operations.
    calls.length = 0;
    await client.assets({ type: 'metal' });
    await client.latestRates({ currency: 'EUR,USD', source: 'official' });
    await client.rateHistory({ currency: 'EUR', from: '2026-01-01', to: '2026-01-31', limit: 10 });
    await client.premium({ currency: 'EUR' });
    await client.goldLatest();
    await client.goldHistory({ limit: 5 });
    await client.me();
    // (The premium history, daily usage and convert came after client 1.0: they have no old name.)
    const since1 = new Set(['getPremiumHistory', 'getDailyUsage', 'convertAmount']);
    expect(calls.map((c) => c.url.pathname.replace('/prefix', ''))).toEqual(
      exposed.filter((o) => !since1.has(o.operationId)).map((o) => o.path),
    );
  });
});

describe('the generator', () => {
  const errorEnvelope = (codes: string[]): JsonSchema => ({
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code'],
        properties: { code: { type: 'string', enum: codes } },
      },
    },
  });
  const doc = (components: Record<string, JsonSchema>, data: JsonSchema): OpenApiDocument => ({
    openapi: '3.1.0',
    info: { title: 'T', version: '9.9.9' },
    components: { schemas: components },
    paths: {
      '/v1/things-here': {
        get: {
          operationId: 'listThings',
          summary: 'Things',
          parameters: [
            { name: 'kind', in: 'query', required: true, schema: { type: 'string', enum: ['a', "b'c"] } },
            { name: 'X-Header', in: 'header', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { data, meta: { type: 'object' } } },
                },
              },
            },
            '404': {
              content: {
                'application/json': {
                  schema: errorEnvelope(['not_found']),
                },
              },
            },
          },
        },
      },
    },
  });

  it('renders refs, constants, nullables, type lists, maps, intersections and quoted keys', () => {
    const source = generateClientSource(
      doc(
        { 'def-0': { title: 'Thing', type: 'object', required: ['id'], properties: { id: { const: 7 } } } },
        {
          type: 'object',
          required: ['list', 'maybe'],
          properties: {
            list: {
              type: 'array',
              items: { anyOf: [{ $ref: '#/components/schemas/def-0' }, { type: 'null' }] },
            },
            maybe: { type: ['integer', 'null'] },
            old: { type: 'string', nullable: true },
            'odd-key': { type: 'boolean' },
            map: { type: 'object', additionalProperties: { type: 'number' } },
            both: {
              allOf: [{ $ref: '#/components/schemas/def-0' }, { type: 'object', properties: { x: {} } }],
            },
          },
        },
      ),
    );
    expect(source).toContain("export const API_VERSION = '9.9.9';");
    expect(source).toContain('export interface Thing {\n  id: 7;\n}');
    expect(source).toContain("export interface ThingsHereQuery {\n  kind: 'a' | \"b'c\";\n}");
    expect(source).toContain('  list: (Thing | null)[];\n');
    expect(source).toContain('  maybe: number | null;\n');
    expect(source).toContain('  old?: string | null;\n');
    expect(source).toContain("  'odd-key'?: boolean;\n");
    expect(source).toContain('  map?: Record<string, number>;\n');
    expect(source).toContain('  both?: Thing & {\n    x?: unknown;\n  };\n');
    expect(source).toContain('export type ThingsHereMeta = Record<string, unknown>;');
    expect(source).toContain("export interface ErrorResponse {\n  error: {\n    code: 'not_found';\n  };\n}");
    expect(source).toContain("    query: ['kind'],\n    requiredQuery: ['kind'],\n");
    expect(source).toContain('export type DeprecatedPath = never;');
  });

  it('refuses what it cannot translate faithfully', () => {
    expect(() => generateClientSource(doc({}, { $ref: '#/components/schemas/nope' }))).toThrow(
      'unresolved $ref #/components/schemas/nope',
    );
    const twoErrors = doc({}, { type: 'string' });
    const op = twoErrors.paths['/v1/things-here']!.get!;
    op.responses!['429'] = {
      content: {
        'application/json': {
          schema: { type: 'object', properties: { error: { type: 'object', properties: { other: {} } } } },
        },
      },
    };
    expect(() => generateClientSource(twoErrors)).toThrow('GET /v1/things-here 429: error body differs');

    const anonymous = doc({}, { type: 'string' });
    delete anonymous.paths['/v1/things-here']!.get!.operationId;
    expect(() => generateClientSource(anonymous)).toThrow('GET /v1/things-here: operationId undefined');
    anonymous.paths['/v1/things-here']!.get!.operationId = 'list-things';
    expect(() => generateClientSource(anonymous)).toThrow('operationId "list-things" is not an identifier');
  });

  it('lists the error codes of every status in one enum, in status order', () => {
    const twoStatuses = doc({}, { type: 'string' });
    const op = twoStatuses.paths['/v1/things-here']!.get!;
    op.responses!['400'] = { content: { 'application/json': { schema: errorEnvelope(['bad', 'worse']) } } };
    const source = generateClientSource(twoStatuses);
    expect(source).toContain("    code: 'bad' | 'worse' | 'not_found';\n");
    expect(source).toContain("    operationId: 'listThings',\n");
    expect(source).toContain("export interface OperationIds {\n  listThings: '/v1/things-here';\n}");
  });
});
