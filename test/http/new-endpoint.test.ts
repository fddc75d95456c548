/**
 * A new /v1 endpoint is its route module (with its schema) and nothing else
 * (docs/architecture.md, "Where to add…"): a throwaway operation, given to the
 * app beside the real ones, is served through the pipeline (key, entitlement,
 * validation, quota), listed in the OpenAPI document, in /llms.txt, among the
 * MCP tools and in the generated client, and every answer it gives conforms
 * to the document (the harness checks each one), with no other file touched.
 */
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsFrom } from '../../packages/mcp/src/tools.js';
import { generateClientSource } from '../../scripts/client-codegen.js';
import { operations } from '../../src/http/operations/index.js';
import { type Operation, operation } from '../../src/http/pipeline/operation.js';
import { Envelope } from '../../src/schemas/common.js';
import { responses } from '../../src/schemas/responses.js';
import { type Harness, startHarness } from '../support/harness.js';
import { withinOneMinute } from '../support/wait.js';

const ThrowawayQuery = Type.Object(
  {
    code: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'An ISO 4217 code, upper case.', examples: ['EUR'] }),
    ),
  },
  { additionalProperties: false },
);
const ThrowawayResponse = Envelope(
  Type.Array(Type.Object({ code: Type.String(), length: Type.Integer() }, { additionalProperties: false })),
  Type.Object({ requestId: Type.String() }, { additionalProperties: false }),
);

/** What a new route module would export. */
const throwaway = () =>
  operation({
    url: '/throwaway',
    schema: {
      operationId: 'listThrowaway',
      summary: 'A throwaway operation',
      description: 'Echoes the asset code it is given. Requires `assets:read`.',
      tags: ['Assets'],
      querystring: ThrowawayQuery,
      response: responses(ThrowawayResponse, 'The code, echoed', [400, 401, 403, 429, 503], false),
    },
    entitlement: () => 'assets:read',
    answer: (q) => ({ data: [{ code: q.code ?? 'DZD', length: (q.code ?? 'DZD').length }] }),
  });

describe('a new /v1 endpoint needs only its route module', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(
      { name: 'sqlite' },
      { operations: (s) => [...operations(s), throwaway() as Operation] },
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is served through the whole pipeline', async () => {
    await withinOneMinute();
    const { key } = await h.newKey({ rpm: 2 });
    const ok = await h.get('/v1/throwaway?code=EUR', key);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toEqual([{ code: 'EUR', length: 3 }]);
    expect(ok.json().meta.requestId).toBe(ok.headers['x-request-id']);
    const remaining = Number(ok.headers['x-monthly-quota-remaining']);

    expect((await h.get('/v1/throwaway')).statusCode).toBe(401);
    const bad = await h.get('/v1/throwaway?code=euro', key);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].parameter).toBe('code');
    expect(Number(bad.headers['x-monthly-quota-remaining'])).toBe(remaining); // a 400 costs nothing
    expect((await h.get('/v1/throwaway', key)).statusCode).toBe(200);
    expect((await h.get('/v1/throwaway', key)).statusCode).toBe(429);

    const { key: narrow } = await h.newKey({ scopes: ['rates:parallel:latest:read'] });
    const denied = await h.get('/v1/throwaway', narrow);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('insufficient_scope');
  });

  it('is in the document, /llms.txt, the MCP tools and the generated client', async () => {
    const op = h.doc.paths['/v1/throwaway']?.get as Record<string, unknown> | undefined;
    expect(op?.operationId).toBe('listThrowaway');
    expect(Object.keys(op?.responses as object).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '414',
      '429',
      '500',
      '503',
    ]);
    const llms = await h.app.inject({ url: '/llms.txt' });
    expect(llms.body).toContain('/v1/throwaway');
    expect(toolsFrom(h.doc as never).map((t) => t.tool.name)).toContain('listThrowaway');
    expect(generateClientSource(h.doc as never)).toContain("listThrowaway: '/v1/throwaway'");
  });
});
