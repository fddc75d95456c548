/**
 * The typed admin client (packages/client/src/admin.ts over the generated
 * admin-generated.ts): the committed file is what /admin/openapi.json
 * generates today, it has a method for every admin operation, its types are
 * the server's, and its transport sends the admin token and Idempotency-Key,
 * retries only what is safe to retry, and throws MdsAdminError. Against a real
 * admin app (inject through a fetch), its answers are the API's.
 */
import { readFileSync } from 'node:fs';
import type { Static } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as A from '../../packages/client/src/admin.js';
import {
  ADMIN_OPERATIONS,
  MdsError as AdminEntryMdsError,
  MdsAdminClient,
  MdsAdminError,
} from '../../packages/client/src/admin.js';
import { MdsApiError, MdsClient, MdsError } from '../../packages/client/src/index.js';
import {
  ADMIN_GENERATED_PATH,
  generateAdminClientSource,
  loadAdminOpenApiDocument,
} from '../../scripts/admin-client-codegen.js';
import type { OpenApiDocument } from '../../scripts/client-codegen.js';
import type { StatementLine } from '../../src/schemas/admin-usage.js';
import type { DailyUsage } from '../../src/schemas/usage.js';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** A stale admin-generated.ts fails `tsc` here. */
const sameTypes: [
  Equal<A.GetGrantDailyUsageData, Static<typeof DailyUsage>>,
  Equal<A.GetUsageStatementItem, Static<typeof StatementLine>>,
] = [true, true];

type Seen = { method: string; url: string; headers: Headers; body: string | undefined };

/** A fetch answering from a list, recording each request. */
function scripted(answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }>) {
  const seen: Seen[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      method: String(init?.method),
      url: String(input),
      headers: new Headers(init?.headers),
      body: init?.body as string | undefined,
    });
    const a = answers.shift() ?? { status: 500, body: {} };
    return new Response(typeof a.body === 'string' ? a.body : JSON.stringify(a.body), {
      status: a.status,
      headers: { 'content-type': 'application/json', ...a.headers },
    });
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const ok = (data: unknown, status = 200) => ({ status, body: { data, meta: { requestId: 'r1' } } });
const refused = (status: number, code: string, headers?: Record<string, string>) => ({
  status,
  headers,
  body: { data: null, error: { status, code, message: 'no' }, meta: { requestId: 'r2' } },
});

describe('the generated admin client', () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    doc = await loadAdminOpenApiDocument();
  });

  it('packages/client/src/admin-generated.ts is what the current admin document generates', () => {
    expect(readFileSync(ADMIN_GENERATED_PATH, 'utf8'), 'run `npm run generate:client`').toBe(
      generateAdminClientSource(doc),
    );
    expect(sameTypes.every(Boolean)).toBe(true);
  });

  it('has a method for every admin operation, named after its operationId, with its scope', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        scope: (op as { 'x-scope'?: string })['x-scope'],
      })),
    );
    expect(
      ADMIN_OPERATIONS.map(({ operationId, method, path, scope }) => ({ operationId, method, path, scope })),
    ).toEqual(documented);
    const client = new MdsAdminClient({ baseUrl: 'http://admin.test', token: 'mdsadm_x' });
    for (const { operationId } of ADMIN_OPERATIONS)
      expect(typeof Reflect.get(client, operationId), operationId).toBe('function');
    expect(typeof client.getUsageStatementCsv).toBe('function');
  });
});

describe('the admin client’s transport', () => {
  it('sends the token, the JSON body and the Idempotency-Key; fills path and query', async () => {
    const { seen, fetch } = scripted([ok({ id: 'acc_1' }, 201), ok({ grantId: 'g/1' })]);
    const client = new MdsAdminClient({ baseUrl: 'http://admin.test/base/', token: ' mdsadm_tok ', fetch });
    await client.createAccount({ externalId: 'cus_1' }, { idempotencyKey: 'evt_1:account' });
    await client.getGrantDailyUsage('g/1', { from: '2026-11-01', to: '2026-11-30' });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST http://admin.test/base/admin/v1/accounts',
      'GET http://admin.test/base/admin/v1/grants/g%2F1/usage/daily?from=2026-11-01&to=2026-11-30',
    ]);
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer mdsadm_tok');
    expect(seen[0]!.headers.get('idempotency-key')).toBe('evt_1:account');
    expect(seen[0]!.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(seen[0]!.body!)).toEqual({ externalId: 'cus_1' });
    expect(seen[1]!.headers.get('idempotency-key')).toBeNull();
    expect(JSON.stringify(client)).not.toContain('mdsadm_tok');
  });

  it('shares one transport with the public client: one MdsError base, each its own name and messages', async () => {
    // Both entry points export the same class: one instanceof catches either client's errors.
    expect(AdminEntryMdsError).toBe(MdsError);
    const html = { status: 502, body: '<html>bad gateway</html>', headers: { 'content-type': 'text/html' } };
    const admin = new MdsAdminClient({ baseUrl: 'http://a', token: 't', fetch: scripted([html]).fetch });
    const publicClient = new MdsClient({ baseUrl: 'http://p', apiKey: 'k', fetch: scripted([html]).fetch });
    const adminErr = await admin.listAccounts().catch((e: unknown) => e);
    const publicErr = await publicClient.getMe().catch((e: unknown) => e);
    expect(adminErr).toBeInstanceOf(MdsAdminError);
    expect(adminErr).toBeInstanceOf(MdsError);
    expect(adminErr).not.toBeInstanceOf(MdsApiError);
    expect(adminErr).toMatchObject({
      name: 'MdsAdminError',
      status: 502,
      code: 'unexpected_response',
      message: "Unexpected 502 answer: not the admin API's JSON envelope.",
    });
    expect(publicErr).toBeInstanceOf(MdsApiError);
    expect(publicErr).toBeInstanceOf(MdsError);
    expect(publicErr).toMatchObject({
      name: 'MdsApiError',
      code: 'unexpected_response',
      message: "Unexpected 502 answer: not the API's JSON envelope.",
    });
    // Each names itself and its credential when an option is wrong.
    expect(() => new MdsAdminClient({ baseUrl: 'http://a', token: ' ' })).toThrow(
      'MdsAdminClient: token is required (an admin token, mdsadm_…)',
    );
    expect(() => new MdsClient({ baseUrl: 'http://p', apiKey: '' })).toThrow('MdsClient: apiKey is required');
    expect(() => new MdsClient({ baseUrl: '', apiKey: 'k' })).toThrow('MdsClient: baseUrl is required');
    expect(() => new MdsAdminClient({ baseUrl: 'http://a', token: 't', maxRetries: 1.5 })).toThrow(
      'MdsAdminClient: maxRetries must be a whole number ≥ 0',
    );
    expect(() => new MdsClient({ baseUrl: 'http://p', apiKey: 'k', maxRetryDelayMs: -1 })).toThrow(
      'MdsClient: maxRetryDelayMs must be ≥ 0',
    );
  });

  it('retries a write only with an Idempotency-Key, a GET always, and throws MdsAdminError', async () => {
    const inProgress = refused(409, 'idempotency_key_in_progress', { 'retry-after': '0' });
    const a = scripted([
      inProgress,
      refused(503, 'service_unavailable', { 'retry-after': '0' }),
      ok({}, 201),
    ]);
    const keyed = new MdsAdminClient({ baseUrl: 'http://a', token: 't', fetch: a.fetch });
    await keyed.createGrant({ accountId: 'acc_1', plan: 'pro' }, { idempotencyKey: 'k' });
    expect(a.seen).toHaveLength(3);

    const b = scripted([refused(503, 'service_unavailable', { 'retry-after': '0' })]);
    const unkeyed = new MdsAdminClient({ baseUrl: 'http://a', token: 't', fetch: b.fetch });
    const err = await unkeyed.createGrant({ accountId: 'acc_1', plan: 'pro' }).catch((e: unknown) => e);
    expect(b.seen).toHaveLength(1);
    expect(err).toBeInstanceOf(MdsAdminError);
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', requestId: 'r2', retryAfter: 0 });

    const c = scripted([refused(429, 'too_many_requests', { 'retry-after': '0' }), ok([])]);
    const reader = new MdsAdminClient({ baseUrl: 'http://a', token: 't', fetch: c.fetch });
    await reader.listAccounts();
    expect(c.seen).toHaveLength(2);

    const d = scripted([refused(409, 'idempotency_key_reused')]);
    const reused = new MdsAdminClient({ baseUrl: 'http://a', token: 't', fetch: d.fetch });
    const conflict = await reused.createAccount({}, { idempotencyKey: 'k' }).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
    expect(d.seen).toHaveLength(1);
  });
});

describe('the admin client against the admin app', () => {
  let h: AdminHarness;
  let client: MdsAdminClient;
  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    const { token } = await h.token();
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      const res = await h.admin.inject({
        method: init?.method as 'GET',
        url: url.pathname + url.search,
        headers: Object.fromEntries(new Headers(init?.headers)),
        payload: init?.body as string | undefined,
      });
      return new Response(res.body, {
        status: res.statusCode,
        headers: res.headers as Record<string, string>,
      });
    };
    client = new MdsAdminClient({
      baseUrl: 'http://admin.test',
      token,
      fetch: fetch as typeof globalThis.fetch,
    });
  });
  afterAll(async () => h?.close());

  it('provisions, reads usage (JSON and CSV) and replays under an Idempotency-Key', async () => {
    const account = await client.createAccount({ externalId: 'cus_client' }, { idempotencyKey: 'evt:a' });
    const again = await client.createAccount({ externalId: 'cus_client' }, { idempotencyKey: 'evt:a' });
    expect(again.data.id).toBe(account.data.id);
    const grant = await client.createGrant({ accountId: account.data.id, plan: 'pro', provider: 'stripe' });
    const key = await client.createKey({ grantId: grant.data.id });
    expect(key.data.key.startsWith(key.data.apiKey.prefix)).toBe(true);
    const daily = await client.getGrantDailyUsage(grant.data.id);
    expect(daily.data).toMatchObject({ grantId: grant.data.id, requests: 0 });
    const month = new Date().toISOString().slice(0, 7);
    const statement = await client.getUsageStatement({ month });
    expect(statement.meta.month).toBe(month);
    expect(statement.data.map((l) => l.grant.id)).toContain(grant.data.id);
    const csv = await client.getUsageStatementCsv({ month });
    expect(csv.split('\r\n')[0]).toBe(
      'account_id,account_externalId,grant_id,grant_plan,grant_provider,grant_externalId,grant_status,grant_cancelledAt,requestsUsed,monthlyRequestLimit',
    );
    const err = await client.getGrant('grt_nope').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MdsAdminError', status: 404, code: 'not_found' });
  });
});
