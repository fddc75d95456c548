/**
 * Property-based fuzzing of every /v1 route (part 1): random and
 * adversarial query strings through `app.inject`, thousands of cases per run.
 *
 * Invariants, on every case:
 * - never a 5xx;
 * - the status is one the OpenAPI document lists for the route (or 414 for an
 *   over-long URL), and the whole response conforms to the document (headers,
 *   body schema);
 * - the `{data, meta}` envelope, with `error` on every non-2xx and
 *   `X-Request-Id` equal to `meta.requestId`;
 * - quota: a 400 consumes nothing (its `X-Monthly-Quota-Remaining` equals the
 *   previous value), a 200/304/404 exactly one unit, and `/v1/me` agrees at the end.
 *
 * The seed is fixed and printed; replay a failure with MDS_FUZZ_SEED=<seed>.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { DAY, type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { expectConforms, loadOpenApi, type OpenApiDocument } from '../support/openapi.js';

const SEED =
  process.env.MDS_FUZZ_SEED !== undefined && process.env.MDS_FUZZ_SEED !== ''
    ? Number(process.env.MDS_FUZZ_SEED)
    : 20_261_106;
if (!Number.isSafeInteger(SEED)) throw new Error(`MDS_FUZZ_SEED must be an integer, got ${SEED}`);
console.log(
  `fuzz seed ${SEED} (replay with MDS_FUZZ_SEED=${SEED} npx vitest run test/hardening/fuzz.test.ts)`,
);

/** Cases per backend: SQLite always, PostgreSQL+Redis fewer (each case costs a network round trip). */
const RUNS = { sqlite: 3000, postgres: 600 } as const;
const MONTHLY = 1_000_000;

// ---- generators --------------------------------------------------------------

const PARAMS = ['currency', 'source', 'type', 'from', 'to', 'limit', 'cursor'] as const;
const ADVERSARIAL_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__proto__[currency]',
  '__proto__.currency',
  'constructor[prototype][currency]',
  'currency[]',
  'currency[0]',
  'limit[]',
  'a[b]',
  '',
  ' currency',
  'currency ',
  'CURRENCY',
  'Currency',
  'currency\u0000',
  'cursor\u200b',
  'ｃｕｒｒｅｎｃｙ',
];
const PERCENT_JUNK = [
  '%ZZ',
  '%C0%AF',
  '%C0%80',
  '%',
  '%%',
  '%2',
  '%E2%82',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%00',
  '%FF',
  '%FE%FF',
  '%u0041',
  '%252e',
  '%2e%2e%2f',
  '%26',
  '%3D',
  '%2C',
  '%0D%0A',
  '%23',
];
const NUMBERS = [
  '0',
  '1',
  '250',
  '1000',
  '1001',
  '-1',
  '-0',
  '+10',
  ' 10',
  '10 ',
  '10.0',
  '1e2',
  '1E3',
  '0x10',
  '0b11',
  '007',
  '00',
  'NaN',
  'Infinity',
  '-Infinity',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999999999999999',
  '1e308',
  '1e309',
  '١٠٠', // Arabic-Indic digits
  '１０', // full-width digits
];
/** Amounts to convert: in range at both ends and to 8 decimals, and just past each bound. */
const AMOUNTS = [
  '100',
  '0.01',
  '250.5',
  '0.00000001',
  '1000000000',
  '999999999.99999999',
  '1000000000.01',
  '0.000000001',
];
const CODES = ['EUR', 'USD', 'GBP', 'CAD', 'CHF', 'XAU', 'BTC', 'DZD', 'ZZZ', 'ZZZZZZZZZZ', 'A1', 'QQQ'];
const BAD_CODES = ['eur', 'E', 'EURO12345678', 'EU R', 'É', 'ЕUR', '€', '', 'EUR;', '💶', 'EUR\u0000'];
const SOURCES = ['parallel', 'official', 'transfer'];
const BAD_SOURCES = ['PARALLEL', 'black', 'parallel ', '', 'parallel,official', 'null', 'undefined'];
const TYPES = ['currency', 'metal', 'crypto'];

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const endMs = Date.parse(`${SAMPLE_END}T00:00:00.000Z`);

/** Dates: near the sample window (often valid), month ends, leap years, impossible dates, odd shapes. */
const dateArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -30, max: 800 }).map((k) => isoDay(endMs - k * DAY)) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.constantFrom(1900, 1970, 2000, 2023, 2024, 2025, 2026, 2027, 2028, 2100),
          fc.integer({ min: 0, max: 9999 }),
        ),
        fc.integer({ min: 0, max: 13 }),
        fc.oneof(fc.constantFrom(0, 1, 28, 29, 30, 31, 32), fc.integer({ min: 1, max: 31 })),
      )
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2024-02-29',
      '2023-02-29',
      '2000-02-29',
      '1900-02-29',
      '2025-04-31',
      '2025-12-31',
      '2026-01-01',
      '2025-1-1',
      '20250101',
      '2025/01/01',
      '2025-01-01T00:00:00Z',
      '2025-01-01 ',
      '+2025-01-01',
      '-2025-01-01',
      '٢٠٢٥-٠١-٠١',
      '0000-00-00',
      '9999-12-31',
      '275760-09-13',
    ),
  },
);

const codeListArb = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...CODES) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_CODES) },
    ),
    { minLength: 1, maxLength: 30 },
  )
  .map((codes) => codes.join(','));

const longArb = fc
  .tuple(fc.integer({ min: 200, max: 5000 }), fc.constantFrom('A', 'EUR,', '%41', 'é', '0', ','))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

/** Values, before URL encoding. `cursors` holds real cursors issued for other filters and endpoints. */
function valueArb(cursors: string[]): fc.Arbitrary<string> {
  const cursorArb = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...cursors) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...cursors), fc.nat(), fc.constantFrom('a', '~', '.', '-', '_', 'Z', '0'))
        .map(([c, at, ch]) => {
          const i = at % c.length;
          return c.slice(0, i) + ch + c.slice(i + 1);
        }),
    },
    { weight: 1, arbitrary: fc.constantFrom(...cursors).map((c) => c.slice(0, -1)) },
    { weight: 1, arbitrary: fc.constantFrom(...cursors).map((c) => `${c}${c}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('~', 'a~', '~a', '.~AAAAAAAAAAAAAAAAAAAAAA', 'zzzzzzzzzzzzzzzz~'),
    },
  );
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...CODES) },
    { weight: 3, arbitrary: codeListArb },
    { weight: 3, arbitrary: fc.constantFrom(...SOURCES, ...TYPES) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_SOURCES, ...BAD_CODES) },
    { weight: 4, arbitrary: dateArb },
    { weight: 3, arbitrary: fc.constantFrom(...NUMBERS) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 3, arbitrary: cursorArb },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
    { weight: 1, arbitrary: longArb },
    { weight: 1, arbitrary: fc.constant('') },
  );
}

type Encoding = 'component' | 'raw' | 'double' | 'junk';

/** encodeURIComponent, tolerating lone surrogates (left raw: the URL parser decides). */
function component(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

function encode(text: string, how: Encoding, junk: string): string {
  switch (how) {
    case 'component':
      return component(text);
    case 'raw':
      return text;
    case 'double':
      return component(component(text));
    case 'junk': {
      const at = Math.floor(text.length / 2);
      return component(text.slice(0, at)) + junk + component(text.slice(at));
    }
  }
}

const encodingArb = fc.constantFrom<Encoding>(
  'component',
  'component',
  'component',
  'component',
  'raw',
  'double',
  'junk',
);

interface Param {
  name: string;
  value: string;
  /** `name` alone, without `=`. */
  bare: boolean;
  nameEncoding: Encoding;
  valueEncoding: Encoding;
  junk: string;
}

function paramArb(names: readonly string[], cursors: string[]): fc.Arbitrary<Param> {
  return fc.record({
    name: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...names) },
      { weight: 2, arbitrary: fc.constantFrom(...PARAMS) },
      { weight: 2, arbitrary: fc.constantFrom(...ADVERSARIAL_NAMES) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    ),
    value: valueArb(cursors),
    bare: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
    nameEncoding: fc.constantFrom<Encoding>('component', 'component', 'component', 'raw', 'junk'),
    valueEncoding: encodingArb,
    junk: fc.constantFrom(...PERCENT_JUNK),
  });
}

/** A valid query for the route, from which small mutations reach the deeper rules (window, cursor, 404). */
function validParams(route: string, cursors: string[]): fc.Arbitrary<Array<[string, string]>> {
  const opt = (name: string, arb: fc.Arbitrary<string>) =>
    fc.option(
      arb.map((v) => [name, v] as [string, string]),
      { nil: undefined, freq: 2 },
    );
  const near = fc.integer({ min: 0, max: 500 }).map((k) => isoDay(endMs - k * DAY));
  const window = [
    opt('from', fc.oneof({ weight: 4, arbitrary: near }, { weight: 1, arbitrary: dateArb })),
    opt('to', fc.oneof({ weight: 4, arbitrary: near }, { weight: 1, arbitrary: dateArb })),
    opt('limit', fc.integer({ min: 1, max: 1000 }).map(String)),
    opt('cursor', fc.constantFrom(...cursors)),
  ];
  let parts: Array<fc.Arbitrary<[string, string] | undefined>>;
  switch (route) {
    case '/v1/assets':
      parts = [opt('type', fc.constantFrom(...TYPES))];
      break;
    case '/v1/rates/latest':
      parts = [opt('currency', codeListArb), opt('source', fc.constantFrom(...SOURCES))];
      break;
    case '/v1/market/premium':
      parts = [opt('currency', codeListArb)];
      break;
    case '/v1/rates/history':
    case '/v1/rates/historical':
      parts = [
        fc
          .constantFrom(...CODES, 'TND', 'JPY', 'XXX', 'AAAA')
          .map((c) => ['currency', c] as [string, string]),
        opt('source', fc.constantFrom(...SOURCES)),
        ...window,
      ];
      break;
    case '/v1/market/premium/history':
      parts = [
        fc
          .constantFrom(...CODES, 'TND', 'JPY', 'XXX', 'AAAA')
          .map((c) => ['currency', c] as [string, string]),
        ...window,
      ];
      break;
    case '/v1/gold/history':
      parts = window;
      break;
    case '/v1/convert':
      parts = [
        fc.constantFrom(...CODES).map((c) => ['from', c] as [string, string]),
        fc.constantFrom(...CODES).map((c) => ['to', c] as [string, string]),
        fc
          .oneof(
            { weight: 3, arbitrary: fc.constantFrom(...AMOUNTS) },
            { weight: 1, arbitrary: fc.constantFrom(...NUMBERS) },
          )
          .map((a) => ['amount', a] as [string, string]),
        opt('source', fc.constantFrom(...SOURCES)),
      ];
      break;
    default:
      parts = [];
  }
  return fc.tuple(...parts).map((ps) => ps.filter((p): p is [string, string] => p !== undefined));
}

type Auth = 'bearer' | 'x-api-key' | 'none' | 'garbage';

interface Case {
  route: string;
  method: 'GET' | 'HEAD';
  url: string;
  auth: Auth;
  ifNoneMatch: boolean;
  address: string;
}

function caseArb(routes: string[], names: Map<string, string[]>, cursors: string[]): fc.Arbitrary<Case> {
  return fc.constantFrom(...routes).chain((route) => {
    const ownNames = names.get(route)!;
    const nameList = ownNames.length > 0 ? ownNames : [...PARAMS];
    const randomQuery = fc
      .array(paramArb(nameList, cursors), { maxLength: 8 })
      .map((ps) =>
        ps.map((p) =>
          p.bare
            ? encode(p.name, p.nameEncoding, p.junk)
            : `${encode(p.name, p.nameEncoding, p.junk)}=${encode(p.value, p.valueEncoding, p.junk)}`,
        ),
      );
    const mutatedValid = fc
      .tuple(
        validParams(route, cursors),
        fc.option(paramArb(nameList, cursors), { nil: undefined, freq: 2 }),
        fc.boolean(),
      )
      .map(([valid, extra, duplicate]) => {
        const parts = valid.map(([n, v]) => `${n}=${component(v)}`);
        if (extra) {
          const part = `${encode(extra.name, extra.nameEncoding, extra.junk)}=${encode(extra.value, extra.valueEncoding, extra.junk)}`;
          // Replace a parameter or add one; sometimes repeat one that is there.
          if (parts.length > 0 && duplicate) parts.push(parts[0]!);
          else parts.push(part);
        }
        return parts;
      });
    const query = fc.oneof(
      { weight: 3, arbitrary: mutatedValid },
      { weight: 3, arbitrary: randomQuery },
      { weight: 1, arbitrary: fc.constant([] as string[]) },
    );
    return fc
      .record({
        query,
        separator: fc.constantFrom('&', '&', '&', '&', '&&', ';', '&amp;'),
        tail: fc.constantFrom('', '', '', '', '&', '#frag', '?', '=', '&='),
        method: fc.constantFrom<'GET' | 'HEAD'>('GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'HEAD'),
        auth: fc.constantFrom<Auth>(
          ...(Array(16).fill('bearer') as Auth[]),
          'x-api-key',
          'x-api-key',
          'none',
          'garbage',
        ),
        ifNoneMatch: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
        address: fc.integer({ min: 1, max: 250 }).map((n) => `10.9.0.${n}`),
      })
      .map(({ query: parts, separator, tail, method, auth, ifNoneMatch, address }) => ({
        route,
        method,
        url: parts.length === 0 && tail === '' ? route : `${route}?${parts.join(separator)}${tail}`,
        auth,
        ifNoneMatch,
        address,
      }));
  });
}

// ---- invariants ----------------------------------------------------------------

const CONSUMING = new Set([200, 304, 404]);

function expectEnvelope(c: Case, res: LightMyRequestResponse): void {
  const where = `${c.method} ${c.url} → ${res.statusCode}`;
  const id = res.headers['x-request-id'];
  expect(typeof id, `${where}: X-Request-Id`).toBe('string');
  expect(String(id).length, where).toBeGreaterThan(0);
  if (c.method === 'HEAD' || res.statusCode === 304) {
    expect(res.body, `${where}: no body`).toBe('');
    return;
  }
  expect(res.headers['content-type'], where).toBe('application/json; charset=utf-8');
  let body: {
    data: unknown;
    meta: { requestId: string };
    error: { status: number; code: string; message: string; details: Array<Record<string, unknown>> };
  };
  try {
    body = JSON.parse(res.body);
  } catch {
    expect.fail(`${where}: body is not JSON: ${res.body.slice(0, 200)}`);
  }
  expect(body, where).toHaveProperty('data');
  expect(body, where).toHaveProperty('meta');
  expect(body.meta.requestId, where).toBe(id);
  if (res.statusCode >= 400) {
    expect(Object.keys(body).sort(), where).toEqual(['data', 'error', 'meta']);
    expect(body.data, where).toBeNull();
    expect(body.error.status, where).toBe(res.statusCode);
    expect(typeof body.error.code, where).toBe('string');
    expect(typeof body.error.message, where).toBe('string');
  } else {
    expect(Object.keys(body).sort(), where).toEqual(['data', 'meta']);
  }
  if (res.statusCode === 400) {
    expect(['invalid_parameter', 'invalid_cursor'], where).toContain(body.error.code);
    expect(body.error.details.length, `${where}: a 400 names what is wrong`).toBeGreaterThan(0);
    for (const d of body.error.details) {
      expect(typeof d.parameter, where).toBe('string');
      expect(typeof d.message, where).toBe('string');
    }
  }
  if (res.statusCode === 414) expect(body.error.code, where).toBe('uri_too_long');
}

describe.each(backends())('fuzzing every /v1 route on $name', (backend) => {
  let h: Harness;
  let doc: OpenApiDocument;
  let key: string;
  let garbage: string;
  /** Another grant's key, for everything outside the property (its quota model counts one key). */
  let other: string;
  let routes: string[];
  const names = new Map<string, string[]>();
  const cursors: string[] = [];

  beforeAll(async () => {
    h = await startHarness(backend);
    doc = await loadOpenApi(h.app);
    routes = Object.keys(doc.paths)
      .filter((p) => p.startsWith('/v1/') && doc.paths[p]!.get)
      .sort();
    for (const r of routes) {
      names.set(
        r,
        (doc.paths[r]!.get!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      );
    }
    key = (await h.newKey({ monthly: MONTHLY })).key;
    // A key that parses but was never issued: a wrong checksum.
    garbage = `${key.slice(0, -6)}${key.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;

    // Real cursors, issued for many filters and both history endpoints, from another grant.
    other = (await h.newKey()).key;
    const filters = [
      '/v1/rates/history?currency=EUR&limit=1',
      '/v1/rates/history?currency=EUR&source=official&limit=1',
      '/v1/rates/history?currency=USD&limit=2',
      `/v1/rates/history?currency=EUR&from=${isoDay(endMs - 100 * DAY)}&to=${SAMPLE_END}&limit=1`,
      `/v1/rates/historical?currency=GBP&source=transfer&from=${isoDay(endMs - 300 * DAY)}&limit=1`,
      '/v1/gold/history?limit=1',
      `/v1/gold/history?from=${isoDay(endMs - 60 * DAY)}&limit=1`,
      `/v1/gold/history?to=${SAMPLE_END}&limit=5`,
      '/v1/market/premium/history?currency=EUR&limit=1',
      `/v1/market/premium/history?currency=USD&from=${isoDay(endMs - 200 * DAY)}&limit=3`,
    ];
    for (const url of filters) {
      const res = await h.get(url, other);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      const next = res.json().meta.nextCursor;
      expect(typeof next, url).toBe('string');
      cursors.push(next);
    }
  }, 60_000);
  afterAll(async () => h?.close());

  it('covers every /v1 route of the document', () => {
    expect(routes).toEqual([
      '/v1/assets',
      '/v1/convert',
      '/v1/gold/history',
      '/v1/gold/latest',
      '/v1/market/premium',
      '/v1/market/premium/history',
      '/v1/me',
      '/v1/rates/historical',
      '/v1/rates/history',
      '/v1/rates/latest',
      '/v1/usage/daily',
    ]);
  });

  it('adversarial examples answer exactly', async () => {
    const cases: Array<[string, number, Array<{ parameter: string; message: string }>?]> = [
      ['/v1/assets?__proto__=x', 400, [{ parameter: '__proto__', message: 'is not a supported parameter' }]],
      [
        '/v1/assets?constructor=x&__proto__[type]=currency',
        400,
        [
          { parameter: 'constructor', message: 'is not a supported parameter' },
          { parameter: '__proto__[type]', message: 'is not a supported parameter' },
        ],
      ],
      ['/v1/rates/latest?%ZZ=EUR', 400, [{ parameter: '%ZZ', message: 'is not a supported parameter' }]],
      [
        '/v1/rates/latest?currency=%ZZ',
        400,
        [
          {
            parameter: 'currency',
            message: 'must be a comma-separated list of uppercase asset codes (2 to 10 of A-Z, 0-9)',
          },
        ],
      ],
      [
        '/v1/rates/latest?currency=EUR%C0%AF',
        400,
        [
          {
            parameter: 'currency',
            message: 'must be a comma-separated list of uppercase asset codes (2 to 10 of A-Z, 0-9)',
          },
        ],
      ],
      [
        '/v1/rates/history?currency=EUR&limit=99999999999999999999',
        400,
        [{ parameter: 'limit', message: 'must be an integer from 1 to 1000' }],
      ],
      [
        '/v1/rates/history?currency=EUR&from=2023-02-29',
        400,
        [{ parameter: 'from', message: 'must be a real calendar date as YYYY-MM-DD' }],
      ],
      ['/v1/rates/history?currency=EUR&from=2024-02-29&to=2024-03-01', 200],
      ['/v1/rates/history?currency=EUR&from=2024-12-31&to=2025-12-31', 200],
      [
        '/v1/rates/history?currency=EUR&from=2024-01-01&to=2025-01-01',
        400,
        [{ parameter: 'from', message: 'the window from `from` to `to` must not exceed 366 days' }],
      ],
      [
        '/v1/rates/latest?currency=EUR&currency=USD',
        400,
        [{ parameter: 'currency', message: 'must not be repeated' }],
      ],
      ['/v1/assets?type', 400, [{ parameter: 'type', message: 'must not be empty' }]],
      ['/v1/assets?&&&', 200],
      ['/v1/rates/latest?currency=EUR%2CUSD', 200],
      ['/v1/gold/latest?__proto__=1&%ZZ', 200],
      ['/v1/me?constructor[prototype][admin]=true', 200],
    ];
    for (const [url, status, details] of cases) {
      const res = await h.get(url, other);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      if (details) expect(res.json().error.details, url).toEqual(details);
    }
    // A cursor issued for other filters or another endpoint is refused as such.
    for (const url of [
      `/v1/rates/history?currency=USD&cursor=${cursors[0]}`,
      `/v1/rates/history?currency=EUR&source=official&cursor=${cursors[0]}`,
      `/v1/gold/history?cursor=${cursors[0]}`,
      `/v1/rates/history?currency=EUR&cursor=${cursors[5]}`,
    ]) {
      const res = await h.get(url, other);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.details, url).toEqual([
        { parameter: 'cursor', message: 'must be a cursor returned in meta.nextCursor for the same filters' },
      ]);
    }
  });

  it(`${RUNS[backend.name]} random queries: no 5xx, the envelope, documented statuses, no quota for a 400`, async () => {
    let remaining = MONTHLY;
    let consumed = 0;

    const started = performance.now();
    const statuses = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(caseArb(routes, names, cursors), async (c) => {
        const headers: Record<string, string> = {};
        if (c.auth === 'bearer') headers.authorization = `Bearer ${key}`;
        if (c.auth === 'x-api-key') headers['x-api-key'] = key;
        if (c.auth === 'garbage') headers.authorization = `Bearer ${garbage}`;
        if (c.ifNoneMatch) headers['if-none-match'] = '*';
        const res = await h.app.inject({ method: c.method, url: c.url, headers, remoteAddress: c.address });
        const status = res.statusCode;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const where = `${c.method} ${c.url} → ${status}: ${res.body.slice(0, 300)}`;

        // Quota first, so a failed assertion below cannot desynchronise the model.
        const before = remaining;
        const header = res.headers['x-monthly-quota-remaining'];
        if (CONSUMING.has(status)) {
          consumed++;
          remaining--;
        }
        if (header !== undefined) {
          const now = Number(header);
          remaining = now;
          expect(now, `${where}: quota remaining (${before} before this request)`).toBe(
            CONSUMING.has(status) ? before - 1 : before,
          );
        }

        expect(status, where).toBeLessThan(500);
        const allowed =
          c.auth === 'bearer' || c.auth === 'x-api-key' ? [200, 304, 400, 404, 414] : [401, 414, 429];
        expect(allowed, where).toContain(status);
        expectEnvelope(c, res);
        // What reaches the server: the URL as the HTTP layer normalises it (non-ASCII percent-encoded).
        const parsed = new URL(c.url, 'http://localhost');
        const wire = parsed.pathname + parsed.search;
        if (status === 414) {
          expect(wire.length, where).toBeGreaterThan(4096);
          expect(header, `${where}: a 414 carries no quota headers`).toBeUndefined();
        } else if (status === 429) {
          // Only the per-address throttle on failed keys can refuse here (no grant: no quota headers).
          expect(c.auth, where).toBe('garbage');
          expect(Number(res.headers['retry-after']), where).toBeGreaterThanOrEqual(1);
        } else {
          expect(wire.length, where).toBeLessThanOrEqual(4096);
          // Documented status, headers and body schema, for this route.
          expectConforms(doc, c.method, c.route, res);
        }
        if (status === 400) expect(header, `${where}: a 400 carries the quota headers`).toBeDefined();
        if (status === 429) expect(res.json().error.code, where).toBe('too_many_requests');
        if (c.route === '/v1/gold/latest' || c.route === '/v1/me') {
          // No parameters: any query string is ignored (decisions §6), but gold's `at` (decisions 123).
          if (status === 400) {
            expect(c.route, where).toBe('/v1/gold/latest');
            // A HEAD answer has no body to name the parameter; a GET's names `at` alone.
            const details = res.body === '' ? [{ parameter: 'at' }] : res.json().error.details;
            const named = (details as { parameter?: string }[]).map((d) => d.parameter);
            expect(new Set(named), where).toEqual(new Set(['at']));
          } else expect([200, 304, 404, 414, 401, 429], where).toContain(status);
        }
      }),
      { seed: SEED, numRuns: RUNS[backend.name] },
    );

    // The grant's own account of its usage agrees with the model: one unit per 200/304/404.
    const me = await h.get('/v1/me', key);
    expect(me.statusCode).toBe(200);
    const usage = me.json().data.usage;
    expect(usage.requestsUsed).toBe(consumed + 1);
    expect(usage.requestsRemaining).toBe(MONTHLY - consumed - 1);
    const summary = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
    console.log(
      `fuzz on ${backend.name}, seed ${SEED}: ${summary.join(' ')} in ${Math.round(performance.now() - started)} ms`,
    );
    // The generators reach every outcome class, not only 400s.
    for (const s of [200, 304, 400, 401, 404, 414])
      expect(statuses.get(s) ?? 0, `status ${s}`).toBeGreaterThan(0);
  }, 60_000);
});
