/**
 * A duplicate that arrives while the first request under its Idempotency-Key
 * still runs (docs/decisions.md 58): it waits, then replays the first answer,
 * or answers 409 `idempotency_key_in_progress` with Retry-After: 1 once its
 * deadline passes. The store's records are stood in for and the clock moves
 * one second per reading, so nothing here waits for real time.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../../src/admin-app.js';
import { canonical, fingerprint, type IdempotencyRecords } from '../../../src/http/admin/idempotency.js';
import { createAdminToken } from '../../../src/use-cases/admin-tokens.js';
import { ALL_ADMIN_SCOPES, TEST_ACTOR } from '../../support/admin.js';
import { type Harness, startHarness } from '../../support/harness.js';
import { expectErrorBody, validateResponses } from '../../support/openapi.js';

let clock = Date.now();
let h: Harness;
let admin: FastifyInstance;
let token: string;
let claims: Array<(fingerprint: string) => Awaited<ReturnType<IdempotencyRecords['claim']>>> = [];
const completed: unknown[] = [];

beforeAll(async () => {
  h = await startHarness({ name: 'sqlite' }, { seed: false, now: () => (clock += 1_000) });
  const records: IdempotencyRecords = {
    claim: async (_actor, _key, print) => (claims.shift() ?? (() => ({ state: 'claimed' as const })))(print),
    complete: async (...args) => void completed.push(args),
    release: async () => undefined,
  };
  admin = await buildAdminApp(h.runtime.services, { logger: false, idempotency: records });
  await admin.ready();
  await validateResponses(admin, '/admin/openapi.json');
  const created = await createAdminToken(h.store, TEST_ACTOR, {
    label: 'in progress',
    scopes: ALL_ADMIN_SCOPES,
  });
  if (!created.ok) throw new Error(JSON.stringify(created.error));
  token = created.value.token;
});
afterAll(async () => {
  await admin?.close();
  await h?.close();
});

const post = () =>
  admin.inject({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: {
      authorization: `Bearer ${token}`,
      'idempotency-key': 'dup',
      'content-type': 'application/json',
    },
    payload: JSON.stringify({ name: 'Dup' }),
  });

describe('a duplicate of a request still running', () => {
  it('answers 409 idempotency_key_in_progress with Retry-After: 1 once its deadline passes', async () => {
    claims = Array.from({ length: 50 }, () => (print: string) => ({
      state: 'in_progress' as const,
      fingerprint: print,
    }));
    const res = await post();
    expectErrorBody(res, 409, 'idempotency_key_in_progress');
    expect(res.headers['retry-after']).toBe('1');
    expect(claims.length).toBeGreaterThan(0); // it gave up before the claims ran out
  });

  it('waits for the first answer and replays it', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const account = {
      id: 'acc_first',
      name: 'Dup',
      email: null,
      externalId: null,
      createdAt: at,
      updatedAt: at,
    };
    const first = JSON.stringify({ data: account, meta: { requestId: 'req_first' } });
    claims = [
      (print) => ({ state: 'in_progress', fingerprint: print }),
      (print) => ({ state: 'in_progress', fingerprint: print }),
      (print) => ({ state: 'done', fingerprint: print, status: 201, body: first }),
    ];
    const res = await admin.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: {
        authorization: `Bearer ${token}`,
        'idempotency-key': 'dup',
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ name: 'Dup' }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe(first);
    expect(res.headers['idempotent-replayed']).toBe('true');
  });

  it('is another request when its body differs: 409 idempotency_key_reused at once', async () => {
    claims = [() => ({ state: 'in_progress', fingerprint: 'another request' })];
    expectErrorBody(await post(), 409, 'idempotency_key_reused');
  });
});

describe('the fingerprint', () => {
  it('is the method, the path with its query and the body in canonical form', () => {
    expect(canonical({ b: [1, { d: 2, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":2}]}');
    const one = fingerprint('POST', '/admin/v1/accounts', { a: 1, b: 2 });
    expect(fingerprint('POST', '/admin/v1/accounts', { b: 2, a: 1 })).toBe(one);
    expect(fingerprint('PATCH', '/admin/v1/accounts', { a: 1, b: 2 })).not.toBe(one);
    expect(fingerprint('POST', '/admin/v1/accounts?x=1', { a: 1, b: 2 })).not.toBe(one);
    expect(fingerprint('POST', '/admin/v1/data/rates', 'a,b\n1,2\n')).not.toBe(
      fingerprint('POST', '/admin/v1/data/rates', 'a,b\n1,3\n'),
    );
  });
});
