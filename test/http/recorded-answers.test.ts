/**
 * The public answers, recorded: a fixed sequence of requests sent over a real
 * socket to a listening server (not `inject`: the path a connection takes
 * through Node is part of what is recorded), and their answers compared with
 * test/http/recorded/public-answers.json. A change of any public answer fails
 * here, whichever code path serves it.
 *
 * Covered: every /v1 path of the served OpenAPI document (read from it: a path
 * with no query in QUERIES fails the first test, and a path absent from the
 * recording fails the second) in GET and HEAD, JSON and CSV (`Accept`), gzip
 * and br, 304 by If-None-Match, both credential headers, and each refusal of a
 * key; pagination by cursor and Link; every status the document gives a /v1
 * operation but 500 (checked), with 405, 431 and the failed-attempt throttle;
 * a limiter that does not answer (503) and a draining server; /healthz,
 * /readyz, /status, /llms.txt, /openapi.json, /docs and the favicon.
 *
 * What is compared: the status; every header, with the values of `Date` and
 * `X-Request-Id` masked (their presence kept), and `Content-Length` masked on
 * a compressed answer only (its size varies with the random request id
 * inside); the decoded body, with the request id (the header's value, wherever
 * it appears) masked. A body longer than BODY_LIMIT is kept as its digest, and
 * a body equal to an earlier entry's as `{ "sameAs": <entry> }` (shareBodies).
 *
 * Deterministic by construction rather than by masking: a fixed clock (NOW),
 * the sample data set ending the day before, a fixed cursor secret, a fixed
 * Host, and accounts, grants and keys written with fixed ids (only the key
 * secrets are random, and they appear in requests only, as `{key:<name>}`).
 * Requests go one at a time, in order, so the usage counters, the limiter and
 * the failed-attempt throttle see the same sequence on every run.
 *
 * Request templates: `{key:<name>}` is a key's secret, `{etag:<entry>}` the
 * ETag an earlier entry answered, `{cursor:<entry>}` the cursor of its
 * `rel="next"` Link, and a path `{next:<entry>}` that Link's target.
 *
 * To re-record after an intended change of the public answers (then review
 * the diff of the JSON file before committing it):
 *
 *   MDS_RECORD=1 npx vitest run test/http/recorded-answers.test.ts
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import BetterSqlite from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { generateKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { type Limiter, LimiterUnavailableError } from '../../src/limits/limiter.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import type { Services } from '../../src/runtime/services.js';
import { generateSample } from '../../src/sample/generate.js';
import type { GrantStatus } from '../../src/storage/admin-records.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase } from '../support/backends.js';

const RECORDING = join(dirname(fileURLToPath(import.meta.url)), 'recorded', 'public-answers.json');
const RECORD = process.env.MDS_RECORD === '1';

const DAY = 86_400_000;
/** The fixed clock: every answer is computed as of this instant. */
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const SAMPLE_END = '2026-11-27';
const day = (offset: number) =>
  new Date(Date.parse(`${SAMPLE_END}T00:00:00Z`) + offset * DAY).toISOString().slice(0, 10);
const CURSOR_SECRET = 'recorded-answers-fixed-cursor-secret';
/** Sent as Host on every request: answers that name the origin must not name the test's port. */
const HOST = 'api.example.test';
/** Bodies longer than this are recorded by their digest (the OpenAPI document, the docs page). */
const BODY_LIMIT = 20_000;

// ---------------------------------------------------------------------------
// The keys: one account and grant each, fixed ids (docs/decisions.md §3: the
// public id is part of the key; the secret is random and never answered).

interface KeySpec {
  scopes?: string[];
  grantScopes?: string[];
  rpm?: number;
  monthly?: number;
  status?: GrantStatus;
  validFrom?: number;
  expiresAt?: number;
  revoked?: boolean;
  environment?: 'live' | 'test';
}

const KEYS: Record<string, KeySpec> = {
  main: {},
  second: {},
  testenv: { environment: 'test' },
  narrow: { scopes: ['rates:official:latest:read'] },
  usageonly: { grantScopes: ['usage:read'] },
  revoked: { revoked: true },
  expired: { expiresAt: NOW - 60_000 },
  suspended: { status: 'suspended' },
  notyet: { validFrom: NOW + DAY },
  rpm: { rpm: 2 },
  monthly: { monthly: 2 },
};
/** 12 characters of [a-z0-9], as a generated public id. */
const publicIdOf = (name: string) => `rec${name}`.padEnd(12, '0').slice(0, 12);

async function writeKeys(store: Store): Promise<Record<string, string>> {
  const secrets: Record<string, string> = {};
  const created = NOW - 30 * DAY;
  for (const [name, spec] of Object.entries(KEYS)) {
    const id = publicIdOf(name);
    await store.access.createAccount({
      id: `acc_${id}`,
      name: `Recorded ${name}`,
      email: null,
      createdAt: created,
    });
    await store.access.createGrant({
      id: `grt_${id}`,
      accountId: `acc_${id}`,
      provider: 'manual',
      plan: 'recorded',
      status: 'active',
      scopes: spec.grantScopes ?? [...ENTITLEMENTS],
      validFrom: spec.validFrom ?? created,
      validUntil: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      monthlyRequestLimit: spec.monthly ?? 1_000_000,
      requestsPerMinute: spec.rpm ?? 100_000,
      createdAt: created,
      updatedAt: created,
    });
    const environment = spec.environment ?? 'live';
    const generated = generateKey(environment, id);
    await store.access.createKey({
      publicId: id,
      grantId: `grt_${id}`,
      environment,
      digest: generated.digest,
      label: name,
      scopes: spec.scopes ?? null,
      status: 'active',
      expiresAt: spec.expiresAt ?? null,
      lastUsedAt: null,
      createdAt: created,
      revokedAt: null,
    });
    if (spec.status) await store.access.updateGrant(`grt_${id}`, { status: spec.status }, created + DAY);
    if (spec.revoked) await store.access.revokeKey(id, created + DAY);
    secrets[name] = generated.key;
  }
  // Well-formed (checksum and all) but never issued.
  secrets.unknown = generateKey('live', publicIdOf('unknown')).key;
  return secrets;
}

// ---------------------------------------------------------------------------
// The requests.

type Headers = Array<[string, string]>;

interface Request {
  method: string;
  path: string;
  headers: Headers;
}

interface Step {
  name: string;
  request: Request;
  /** Sent before the step and not recorded, until `until` holds of the answer (at most 100 times). */
  repeatUntil?: { request: Request; status: number };
  /** Runs before the step is sent. */
  before?: () => void;
  /** Runs once its answer is in. */
  after?: () => void;
}

const bearer = (key: string): Headers => [['authorization', `Bearer {key:${key}}`]];

/** A valid query for each /v1 path of the document; a path missing here fails the coverage test. */
const QUERIES: Record<string, string> = {
  '/v1/assets': '',
  '/v1/rates/latest': '?currency=EUR',
  '/v1/rates/history': `?currency=EUR&source=official&from=${day(-9)}&to=${SAMPLE_END}`,
  '/v1/rates/historical': `?currency=EUR&source=official&from=${day(-9)}&to=${SAMPLE_END}`,
  '/v1/convert': '?from=EUR&to=USD&amount=100',
  '/v1/market/premium': '?currency=EUR',
  '/v1/market/premium/history': `?currency=EUR&from=${day(-9)}&to=${SAMPLE_END}`,
  '/v1/gold/latest': '',
  '/v1/gold/history': `?from=${day(-4)}&to=${SAMPLE_END}`,
  '/v1/me': '',
  '/v1/usage/daily': `?from=${day(-2)}&to=${day(1)}`,
};

/**
 * Makes every call to the limiter fail as a limiter that does not answer fails
 * (LimiterUnavailableError), until the function returned is called.
 */
function limiterAway(limiter: Limiter): () => void {
  const away = new LimiterUnavailableError(new Error('away'));
  const target = limiter as unknown as Record<string, unknown>;
  const saved = new Map<string, unknown>();
  const replace = (name: string, fn: (...args: never[]) => unknown) => {
    if (typeof target[name] !== 'function') return;
    saved.set(name, target[name]);
    target[name] = fn;
  };
  replace('consume', () => Promise.reject(away));
  replace('ping', () => Promise.reject(away));
  return () => {
    for (const [name, fn] of saved) target[name] = fn;
  };
}

function steps(v1Paths: string[], services: Services): Step[] {
  const out: Step[] = [];
  const add = (
    name: string,
    method: string,
    path: string,
    headers: Headers = [],
    extra: Partial<Step> = {},
  ) => out.push({ name, request: { method, path, headers }, ...extra });

  // Outside /v1: no key.
  for (const path of ['/healthz', '/readyz', '/status', '/llms.txt', '/openapi.json', '/docs', '/docs/']) {
    add(`GET ${path}`, 'GET', path);
  }
  add('HEAD /healthz', 'HEAD', '/healthz');
  add('GET /status gzip', 'GET', '/status', [['accept-encoding', 'gzip']]);
  add('GET /llms.txt br', 'GET', '/llms.txt', [['accept-encoding', 'br']]);
  add('GET /openapi.json gzip', 'GET', '/openapi.json', [['accept-encoding', 'gzip']]);
  add('GET /openapi.json br', 'GET', '/openapi.json', [['accept-encoding', 'br']]);
  add('HEAD /openapi.json', 'HEAD', '/openapi.json');
  add('GET /favicon.ico', 'GET', '/favicon.ico');
  add('GET unknown route outside /v1', 'GET', '/nowhere');
  add('POST /healthz', 'POST', '/healthz');

  // Every /v1 path: each format and encoding, HEAD, the conditional request, the refusals of a key.
  for (const path of v1Paths) {
    const url = path + (QUERIES[path] ?? '');
    const main = bearer('main');
    add(`${path} json`, 'GET', url, main);
    add(`${path} head`, 'HEAD', url, main);
    add(`${path} csv`, 'GET', url, [...main, ['accept', 'text/csv']]);
    add(`${path} head csv`, 'HEAD', url, [...main, ['accept', 'text/csv']]);
    add(`${path} gzip`, 'GET', url, [...main, ['accept-encoding', 'gzip']]);
    add(`${path} br`, 'GET', url, [...main, ['accept-encoding', 'br']]);
    add(`${path} br csv`, 'GET', url, [...main, ['accept', 'text/csv'], ['accept-encoding', 'gzip, br']]);
    add(`${path} if-none-match`, 'GET', url, [...main, ['if-none-match', `{etag:${path} json}`]]);
    add(`${path} if-none-match csv`, 'GET', url, [
      ...main,
      ['accept', 'text/csv'],
      ['if-none-match', `{etag:${path} csv}`],
    ]);
    add(`${path} head if-none-match`, 'HEAD', url, [...main, ['if-none-match', `{etag:${path} json}`]]);
    add(`${path} if-none-match gzip`, 'GET', url, [
      ...main,
      ['accept-encoding', 'gzip'],
      ['if-none-match', `{etag:${path} json}`],
    ]);
    add(`${path} x-api-key`, 'GET', url, [['x-api-key', '{key:second}']]);
    add(`${path} test key`, 'GET', url, bearer('testenv'));
    add(`${path} missing key`, 'GET', url);
    add(`${path} head missing key`, 'HEAD', url);
    add(`${path} invalid key`, 'GET', url, [['authorization', 'Bearer not-a-key']]);
    add(`${path} revoked key`, 'GET', url, bearer('revoked'));
    add(`${path} expired key`, 'GET', url, bearer('expired'));
    add(`${path} grant suspended`, 'GET', url, bearer('suspended'));
    add(`${path} narrow key`, 'GET', url, bearer('narrow'));
    add(`${path} usage-only grant`, 'GET', url, bearer('usageonly'));
    add(`${path} POST`, 'POST', url, main);
  }

  const main = bearer('main');
  const rates = `/v1/rates/history?currency=EUR&source=official&from=${day(-9)}&to=${SAMPLE_END}`;
  // Pagination: a cursor in meta and in Link, followed to the end.
  add('rates history page 1', 'GET', `${rates}&limit=4`, main);
  add('rates history page 2', 'GET', '{next:rates history page 1}', main);
  add('rates history page 3', 'GET', '{next:rates history page 2}', main);
  add('rates history page 1 csv', 'GET', `${rates}&limit=4`, [...main, ['accept', 'text/csv']]);
  add('rates history page 2 csv', 'GET', '{next:rates history page 1 csv}', [
    ...main,
    ['accept', 'text/csv'],
  ]);
  add('rates history page 2 gzip', 'GET', '{next:rates history page 1}', [
    ...main,
    ['accept-encoding', 'gzip'],
  ]);
  add('rates history page 2 if-none-match', 'GET', '{next:rates history page 1}', [
    ...main,
    ['if-none-match', '{etag:rates history page 2}'],
  ]);
  const alias = `/v1/rates/historical?currency=EUR&source=official&from=${day(-9)}&to=${SAMPLE_END}`;
  add('rates historical page 1', 'GET', `${alias}&limit=3`, main);
  add('rates historical page 2', 'GET', '{next:rates historical page 1}', main);
  add('rates historical page 1 csv', 'GET', `${alias}&limit=3`, [...main, ['accept', 'text/csv']]);
  const premium = `/v1/market/premium/history?currency=EUR&from=${day(-9)}&to=${SAMPLE_END}`;
  add('premium history page 1', 'GET', `${premium}&limit=3`, main);
  add('premium history page 2', 'GET', '{next:premium history page 1}', main);
  add('premium history page 2 csv', 'GET', '{next:premium history page 1}', [
    ...main,
    ['accept', 'text/csv'],
  ]);
  const gold = `/v1/gold/history?from=${day(-4)}&to=${SAMPLE_END}`;
  add('gold history page 1', 'GET', `${gold}&limit=3`, main);
  add('gold history page 2', 'GET', '{next:gold history page 1}', main);
  add('gold history page 1 csv', 'GET', `${gold}&limit=3`, [...main, ['accept', 'text/csv']]);
  add('rates history default window', 'GET', '/v1/rates/history?currency=USD', main);
  add(
    'rates history empty window',
    'GET',
    '/v1/rates/history?currency=EUR&from=2001-01-01&to=2001-01-31',
    main,
  );
  add(
    'rates history empty window csv',
    'GET',
    '/v1/rates/history?currency=EUR&from=2001-01-01&to=2001-01-31',
    [...main, ['accept', 'text/csv']],
  );

  // Variants of the parameters and of negotiation.
  add('rates latest all', 'GET', '/v1/rates/latest', main);
  add('rates latest parallel', 'GET', '/v1/rates/latest?currency=USD&source=parallel', main);
  add('rates latest two currencies', 'GET', '/v1/rates/latest?currency=EUR,USD', main);
  add('assets by type', 'GET', '/v1/assets?type=currency', main);
  add('premium all', 'GET', '/v1/market/premium', main);
  add('accept csv below json', 'GET', `${rates}&limit=2`, [
    ...main,
    ['accept', 'text/csv;q=0.5, application/json'],
  ]);
  add('accept csv above json', 'GET', `${rates}&limit=2`, [
    ...main,
    ['accept', 'application/json;q=0.5, text/csv'],
  ]);
  add('accept text/*', 'GET', `${rates}&limit=2`, [...main, ['accept', 'text/*']]);
  add('accept nothing acceptable', 'GET', `${rates}&limit=2`, [...main, ['accept', 'image/png']]);
  add('accept-encoding identity', 'GET', '/v1/rates/latest', [...main, ['accept-encoding', 'identity']]);
  add('accept-encoding gzip refused', 'GET', '/v1/rates/latest', [
    ...main,
    ['accept-encoding', 'gzip;q=0, br'],
  ]);
  add('accept-encoding deflate only', 'GET', '/v1/rates/latest', [...main, ['accept-encoding', 'deflate']]);
  add('accept-encoding star', 'GET', '/v1/rates/latest', [...main, ['accept-encoding', '*']]);
  add('if-none-match other', 'GET', '/v1/rates/latest?currency=EUR', [
    ...main,
    ['if-none-match', 'W/"other"'],
  ]);
  add('if-none-match list', 'GET', '/v1/rates/latest?currency=EUR', [
    ...main,
    ['if-none-match', 'W/"other", {etag:/v1/rates/latest json}'],
  ]);
  add('if-none-match star', 'GET', '/v1/rates/latest?currency=EUR', [...main, ['if-none-match', '*']]);

  // 400.
  add('invalid parameter: limit 0', 'GET', `${rates}&limit=0`, main);
  add('invalid parameter: limit too large', 'GET', `${rates}&limit=100000`, main);
  add('invalid parameter: source', 'GET', '/v1/rates/latest?source=bogus', main);
  add('invalid parameter: unknown parameter', 'GET', '/v1/rates/latest?colour=blue', main);
  add('invalid parameter: several', 'GET', '/v1/rates/history?currency=EUR&from=yesterday&limit=-1', main);
  add('invalid parameter: missing currency', 'GET', '/v1/rates/history', main);
  add(
    'invalid parameter: window too long',
    'GET',
    '/v1/rates/history?currency=EUR&from=2020-01-01&to=2026-01-01',
    main,
  );
  add(
    'invalid parameter: from after to',
    'GET',
    `/v1/rates/history?currency=EUR&from=${SAMPLE_END}&to=${day(-5)}`,
    main,
  );
  add('invalid parameter: usage window', 'GET', '/v1/usage/daily?from=bad', main);
  add('invalid parameter: csv', 'GET', `${rates}&limit=0`, [...main, ['accept', 'text/csv']]);
  add('invalid parameter: head', 'HEAD', `${rates}&limit=0`, main);
  add('invalid parameter: repeated parameter', 'GET', '/v1/rates/latest?currency=EUR&currency=USD', main);
  add('invalid cursor', 'GET', `${rates}&cursor=abc`, main);
  add(
    'invalid cursor: of another request',
    'GET',
    `/v1/rates/history?currency=USD&source=official&from=${day(-9)}&to=${SAMPLE_END}&cursor={cursor:rates history page 1}`,
    main,
  );
  add('invalid cursor and another problem', 'GET', `${rates}&cursor=abc&limit=0`, main);

  // 401.
  add('missing key', 'GET', '/v1/rates/latest');
  add('empty bearer', 'GET', '/v1/rates/latest', [['authorization', 'Bearer ']]);
  add('basic scheme', 'GET', '/v1/rates/latest', [['authorization', 'Basic dXNlcjpwYXNz']]);
  add('lower-case bearer scheme', 'GET', '/v1/rates/latest', [['authorization', 'bearer {key:main}']]);
  add('key without scheme', 'GET', '/v1/rates/latest', [['authorization', '{key:main}']]);
  add('empty x-api-key', 'GET', '/v1/rates/latest', [['x-api-key', '']]);
  add('malformed key', 'GET', '/v1/rates/latest', [['x-api-key', 'mds_live_abc']]);
  add('unknown well-formed key', 'GET', '/v1/rates/latest', bearer('unknown'));
  add('key in query string', 'GET', '/v1/rates/latest?api_key={key:main}');
  add('revoked key', 'GET', '/v1/me', bearer('revoked'));
  add('expired key', 'GET', '/v1/me', bearer('expired'));
  add('revoked key head', 'HEAD', '/v1/rates/latest', bearer('revoked'));

  // Repeated and conflicting credentials.
  add('authorization twice, same key', 'GET', '/v1/rates/latest', [...main, ...main]);
  add('authorization twice, second invalid', 'GET', '/v1/rates/latest', [
    ...main,
    ['authorization', 'Bearer xxx'],
  ]);
  add('x-api-key twice', 'GET', '/v1/rates/latest', [
    ['x-api-key', '{key:main}'],
    ['x-api-key', '{key:main}'],
  ]);
  add('authorization and x-api-key, same key', 'GET', '/v1/rates/latest', [
    ...main,
    ['x-api-key', '{key:main}'],
  ]);
  add('authorization and x-api-key, different keys', 'GET', '/v1/rates/latest', [
    ...main,
    ['x-api-key', '{key:second}'],
  ]);

  // 403.
  add('grant suspended', 'GET', '/v1/me', bearer('suspended'));
  add('grant not yet valid', 'GET', '/v1/rates/latest', bearer('notyet'));
  add('insufficient scope: history', 'GET', rates, bearer('narrow'));
  add('insufficient scope: other source', 'GET', '/v1/rates/latest?source=parallel', bearer('narrow'));
  add('insufficient scope: allowed source', 'GET', '/v1/rates/latest?source=official', bearer('narrow'));
  add('insufficient scope: csv', 'GET', rates, [...bearer('narrow'), ['accept', 'text/csv']]);
  add('insufficient scope and invalid parameter', 'GET', `${rates}&limit=0`, bearer('narrow'));

  // 404.
  add('not found: unknown currency', 'GET', '/v1/rates/history?currency=ZZZ', main);
  add('not found: no series for the source', 'GET', '/v1/rates/history?currency=CNY&source=transfer', main);
  add('not found: premium history', 'GET', '/v1/market/premium/history?currency=ZZZ', main);
  add('not found: premium history csv', 'GET', '/v1/market/premium/history?currency=ZZZ', [
    ...main,
    ['accept', 'text/csv'],
  ]);
  add('route not found', 'GET', '/v1/nope', main);
  add('route not found without key', 'GET', '/v1/nope');
  add('route not found: /v1', 'GET', '/v1', main);
  add('route not found: trailing slash', 'GET', '/v1/rates/latest/', main);
  add('route not found: case', 'GET', '/v1/Rates/latest', main);
  add('route not found head', 'HEAD', '/v1/nope', main);

  // 405.
  add('method not allowed: POST', 'POST', '/v1/rates/latest', main);
  add('method not allowed: PUT', 'PUT', '/v1/me', main);
  add('method not allowed: DELETE', 'DELETE', '/v1/me', main);
  add('method not allowed: OPTIONS', 'OPTIONS', '/v1/rates/latest', main);
  add('method not allowed without key', 'POST', '/v1/rates/latest');

  // 414, and 431 once the request line passes the header limit.
  add('uri too long', 'GET', `/v1/rates/latest?currency=${'E'.repeat(5_000)}`, main);
  add('uri too long: outside /v1', 'GET', `/status?x=${'E'.repeat(5_000)}`);
  add('headers too large', 'GET', `/v1/rates/latest?currency=${'E'.repeat(20_000)}`, main);

  // 503: the limiter does not answer.
  let restore = () => {};
  const away = { before: () => (restore = limiterAway(services.limiter)), after: () => restore() };
  add('limiter away: rates latest', 'GET', '/v1/rates/latest?currency=EUR', main, away);
  add('limiter away: history csv', 'GET', rates, [...main, ['accept', 'text/csv']], away);
  add('limiter away: me head', 'HEAD', '/v1/me', main, away);
  add('limiter away: missing key', 'GET', '/v1/me', [], away);
  add('limiter away: readyz', 'GET', '/readyz', [], away);

  // 429: the per-minute limit (2), then the monthly quota (2). The clock does not move.
  add('rate limited: 1', 'GET', '/v1/rates/latest', bearer('rpm'));
  add('rate limited: 2', 'GET', '/v1/me', bearer('rpm'));
  add('rate limited: 3', 'GET', '/v1/rates/latest', bearer('rpm'));
  add('rate limited: head', 'HEAD', '/v1/rates/latest', bearer('rpm'));
  add('rate limited: csv', 'GET', rates, [...bearer('rpm'), ['accept', 'text/csv']]);
  add('rate limited: invalid parameter', 'GET', `${rates}&limit=0`, bearer('rpm'));
  add('quota exceeded: 1', 'GET', '/v1/rates/latest', bearer('monthly'));
  add('quota exceeded: 2', 'GET', '/v1/me', bearer('monthly'));
  add('quota exceeded: 3', 'GET', '/v1/rates/latest', bearer('monthly'));
  add('quota exceeded: me', 'GET', '/v1/me', bearer('monthly'));

  // The usage the sequence above left, as the key's owner reads it.
  add('me after the sequence', 'GET', '/v1/me', main);
  add('usage after the sequence', 'GET', `/v1/usage/daily?from=${day(-2)}&to=${day(1)}`, main);

  // The failed-attempt throttle: invalid keys until the address is blocked, then one more; a valid key still passes.
  const invalid: Request = { method: 'GET', path: '/v1/rates/latest', headers: bearer('unknown') };
  add('too many invalid attempts', 'GET', '/v1/rates/latest', bearer('unknown'), {
    repeatUntil: { request: invalid, status: 429 },
  });
  add('too many invalid attempts: malformed key', 'GET', '/v1/rates/latest', [['x-api-key', 'nope']]);
  add('too many invalid attempts: valid key', 'GET', '/v1/rates/latest', main);

  // Draining (a SIGTERM): /readyz fails, answers close their connection.
  add('draining: readyz', 'GET', '/readyz', [], {
    before: () => {
      services.lifecycle.draining = true;
    },
  });
  add('draining: healthz', 'GET', '/healthz');
  add('draining: v1', 'GET', '/v1/rates/latest?currency=EUR', main);
  add('draining: v1 missing key', 'GET', '/v1/rates/latest?currency=EUR');
  return out;
}

// ---------------------------------------------------------------------------
// Sending and recording.

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

interface Entry {
  name: string;
  request: Request;
  status: number;
  headers: Record<string, string | string[]>;
  body: unknown;
}

function send(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  headers: Headers,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const raw: string[] = ['Host', HOST];
    for (const [name, value] of headers) raw.push(name, value);
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: raw });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const out: Record<string, string[]> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          out[name] = [...(out[name] ?? []), res.rawHeaders[i + 1]!];
        }
        const flat = Object.fromEntries(Object.entries(out).map(([n, v]) => [n, v.length === 1 ? v[0]! : v]));
        resolve({ status: res.statusCode!, headers: flat, body: Buffer.concat(chunks) });
      });
    });
    req.end();
  });
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function nextOf(answer: Answer): string {
  const link = one(answer.headers.link);
  const m = link && /<([^>]+)>;\s*rel="next"/.exec(link);
  if (!m) throw new Error('no rel="next" Link in the answer');
  const u = new URL(m[1]!, `http://${HOST}`);
  return u.pathname + u.search;
}

/** What the recording keeps of an answer: request ids and dates masked, the body decoded. */
function entryOf(name: string, request: Request, answer: Answer): Entry {
  const encoding = one(answer.headers['content-encoding']);
  // The compressed length varies with the (random) request id the body holds; the decoded body is compared.
  const masked: Record<string, string> = {
    date: '<date>',
    'x-request-id': '<request-id>',
    ...(encoding ? { 'content-length': '<compressed length>' } : {}),
  };
  const headers: Record<string, string | string[]> = {};
  for (const n of Object.keys(answer.headers).sort()) headers[n] = masked[n] ?? answer.headers[n]!;
  let bytes = answer.body;
  if (bytes.length > 0 && encoding === 'gzip') bytes = gunzipSync(bytes);
  else if (bytes.length > 0 && encoding === 'br') bytes = brotliDecompressSync(bytes);
  let text = bytes.toString('utf8');
  const requestId = one(answer.headers['x-request-id']);
  if (requestId) text = text.split(requestId).join('<request-id>');
  const type = one(answer.headers['content-type']) ?? '';
  let body: unknown;
  if (bytes.length === 0) body = null;
  else if (bytes.length > BODY_LIMIT)
    body = { bytes: bytes.length, sha256: createHash('sha256').update(text).digest('hex') };
  else if (/json/.test(type)) body = JSON.parse(text);
  else if (/^(text\/|application\/javascript)/.test(type)) body = text;
  else body = { base64: bytes.toString('base64') };
  return { name, request, status: answer.status, headers, body };
}

/**
 * A body equal to an earlier entry's (over 200 characters) is written as
 * `{ "sameAs": <that entry> }`: the recording stays readable, and the
 * comparison as exact (a body that differs from the earlier one is kept whole,
 * and then differs from the recorded reference).
 */
function shareBodies(entries: Entry[]): void {
  const seen = new Map<string, string>();
  for (const entry of entries) {
    if (entry.body === null) continue;
    const text = JSON.stringify(entry.body);
    if (text.length <= 200) continue;
    const first = seen.get(text);
    if (first === undefined) seen.set(text, entry.name);
    else entry.body = { sameAs: first };
  }
}

describe('the recorded public answers (SQLite, fixed clock)', () => {
  let db: Database;
  let runtime: Runtime;
  let app: FastifyInstance;
  let port: number;
  let secrets: Record<string, string>;
  let v1Paths: string[];
  let document: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    const store = db.open();
    await store.migrate();
    // The cursor secret is random per store (migrations.ts): fixed here, so cursors are the same every run.
    const file = new BetterSqlite(db.url);
    file.prepare("update settings set value = ? where name = 'cursor_secret'").run(CURSOR_SECRET);
    file.close();
    await seedSample(store, generateSample({ endDate: SAMPLE_END }));
    secrets = await writeKeys(store);
    runtime = await assemble({ store, now: () => NOW, pollMs: 60_000 });
    app = await buildApp(runtime.services, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    const served = await send(port, agent, 'GET', '/openapi.json', []);
    document = JSON.parse(served.body.toString('utf8'));
    v1Paths = Object.keys(document.paths).filter((p) => p.startsWith('/v1/'));
  });

  afterAll(async () => {
    agent.destroy();
    await app?.close();
    await runtime?.close();
    await db?.drop();
  });

  it('every /v1 path of the served document has a query here', () => {
    expect(v1Paths.length).toBeGreaterThan(0);
    expect(v1Paths.filter((p) => !(p in QUERIES))).toEqual([]);
  });

  it('answers as recorded', async () => {
    const answers = new Map<string, Answer>();
    const resolve = (text: string) =>
      text
        .replace(/\{key:([^}]+)\}/g, (_m, k: string) => secrets[k] ?? `<no key ${k}>`)
        .replace(
          /\{etag:([^}]+)\}/g,
          (_m, n: string) => one(answers.get(n)?.headers.etag) ?? `<no etag ${n}>`,
        )
        .replace(/\{cursor:([^}]+)\}/g, (_m, n: string) => {
          const next = nextOf(answers.get(n)!);
          return new URLSearchParams(next.slice(next.indexOf('?'))).get('cursor')!;
        });
    const entries: Entry[] = [];
    for (const step of steps(v1Paths, runtime.services)) {
      const { request } = step;
      const go = (r: Request) => {
        const m = /^\{next:(.+)\}$/.exec(r.path);
        const path = m ? nextOf(answers.get(m[1]!)!) : resolve(r.path);
        return send(
          port,
          agent,
          r.method,
          path,
          r.headers.map(([n, v]) => [n, resolve(v)]),
        );
      };
      if (step.repeatUntil) {
        for (let i = 0; ; i++) {
          if (i === 100) throw new Error(`${step.name}: never answered ${step.repeatUntil.status}`);
          if ((await go(step.repeatUntil.request)).status === step.repeatUntil.status) break;
        }
      }
      step.before?.();
      const answer = await go(request).finally(() => step.after?.());
      answers.set(step.name, answer);
      entries.push(entryOf(step.name, request, answer));
    }
    expect(new Set(entries.map((e) => e.name)).size, 'entry names are unique').toBe(entries.length);
    // Every status a /v1 operation documents is answered by some entry, but a 500 (a bug by definition).
    const documented = new Set(
      v1Paths.flatMap((p) =>
        Object.values(document.paths[p]!).flatMap((op) => Object.keys(op.responses ?? {})),
      ),
    );
    documented.delete('500');
    const answered = new Set(
      entries
        .filter((e) => /^\/v1\//.test(e.request.path) || e.request.path.startsWith('{next:'))
        .map((e) => String(e.status)),
    );
    expect([...documented].filter((s) => !answered.has(s))).toEqual([]);
    shareBodies(entries);

    if (RECORD) {
      mkdirSync(dirname(RECORDING), { recursive: true });
      writeFileSync(RECORDING, `${JSON.stringify(entries, null, 2)}\n`);
      return;
    }
    expect(existsSync(RECORDING), `no recording: run MDS_RECORD=1 npx vitest run ${RECORDING}`).toBe(true);
    const recorded = JSON.parse(readFileSync(RECORDING, 'utf8')) as Entry[];
    // Every /v1 path of the document was requested when the recording was made.
    const recordedPaths = new Set(recorded.map((e) => e.request.path.split('?')[0]));
    expect(v1Paths.filter((p) => !recordedPaths.has(p))).toEqual([]);
    expect(entries.map((e) => e.name)).toEqual(recorded.map((e) => e.name));
    for (const [i, entry] of entries.entries()) expect.soft(entry, entry.name).toEqual(recorded[i]);
  });
});
