/**
 * `GET /llms.txt` (decisions §12): plain text for language models, served
 * without a key and consuming nothing, with one line per /v1 operation of the
 * served OpenAPI document and the entitlement it needs, and links to the
 * document and the reference.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { SOURCES } from '../../src/domain/types.js';
import { type Document, entitlementOf, llmsText, type Operation } from '../../src/http/routes/llms.js';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';

const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
];

/** The canonical entitlements an entitlement as documented stands for: a `<source>` template is three. */
const expand = (documented: string) =>
  documented.includes('<source>') ? SOURCES.map((s) => documented.replace('<source>', s)) : [documented];

function v1Operations(doc: Document): Array<{ path: string; method: string; op: Operation }> {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
}

describe.each(sqliteOnly())('/llms.txt on $name', (backend) => {
  let h: Harness;
  let doc: Document;
  let text: string;
  beforeAll(async () => {
    h = await startHarness(backend);
    doc = (await h.get('/openapi.json')).json() as Document;
    text = (await h.get('/llms.txt')).body;
  });
  afterAll(async () => h?.close());

  it('is plain UTF-8 text, without a key and without quota headers', async () => {
    for (const headers of [{}, { authorization: 'Bearer mds_live_nonsense' }, { 'x-api-key': 'nonsense' }]) {
      const res = await h.app.inject({ method: 'GET', url: '/llms.txt', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      for (const name of QUOTA_HEADERS) expect(res.headers[name], name).toBeUndefined();
      expect(res.body).toBe(text);
    }
    const head = await h.app.inject({ method: 'HEAD', url: '/llms.txt' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('consumes nothing, even when a valid key is sent', async () => {
    const { key } = await h.newKey();
    const used = async () => (await h.get('/v1/me', key)).json().data.usage.requestsUsed as number;
    expect(await used()).toBe(1);
    for (let i = 0; i < 3; i++) expect((await h.get('/llms.txt', key)).statusCode).toBe(200);
    expect(await used()).toBe(2);
  });

  it('describes the service and how to authenticate', () => {
    expect(text.startsWith(`# ${doc.info.title}\n\n> `)).toBe(true);
    expect(text).toContain('Algerian dinar');
    expect(text).toContain('`Authorization: Bearer <key>`');
    expect(text).toContain('`X-API-Key: <key>`');
  });

  it('lists every /v1 operation of /openapi.json once, with its entitlement', () => {
    const lines = text.split('\n').filter((l) => l.startsWith('- `'));
    const endpointLines = lines.filter((l) => /^- `[A-Z]+ \//.test(l));
    const operations = v1Operations(doc);
    expect(operations.length).toBeGreaterThanOrEqual(8);
    expect(endpointLines).toHaveLength(operations.length);
    for (const { path, method, op } of operations) {
      const matching = endpointLines.filter((l) => l.startsWith(`- \`${method.toUpperCase()} ${path}\``));
      expect(matching, path).toHaveLength(1);
      const entitlement = entitlementOf(op);
      expect(entitlement, `${path} states its entitlement`).toBeDefined();
      for (const canonical of expand(entitlement!)) expect(ENTITLEMENTS).toContain(canonical);
      expect(matching[0]).toContain(`Entitlement: \`${entitlement}\``);
      if (op.summary) expect(matching[0]).toContain(op.summary);
    }
    expect(text).toContain(
      '- `GET /v1/rates/latest` (query: `currency`, `source`, `at`): Latest rates. Entitlement: ' +
        '`rates:<source>:latest:read`; `source`: parallel (default), official, transfer. ' +
        'With `at`: `rates:<source>:history:read`.',
    );
    expect(text).toMatch(
      /- `GET \/v1\/rates\/historical` .* Deprecated\. Entitlement: `rates:<source>:history:read`/,
    );
  });

  it('agrees with the descriptions where an operation also has `x-entitlement`', () => {
    for (const { path, op } of v1Operations(doc)) {
      const stated = /Requires `([^`]+)`/.exec(op.description ?? '')?.[1];
      if (op['x-entitlement'] !== undefined && stated !== undefined)
        expect(op['x-entitlement'], path).toBe(stated);
    }
  });

  it('links to /openapi.json and /docs/, which answer without a key', async () => {
    expect(text).toMatch(/\[[^\]]+\]\(\/openapi\.json\)/);
    expect(text).toMatch(/\[[^\]]+\]\(\/docs\/\)/);
    for (const url of ['/openapi.json', '/docs/']) expect((await h.get(url)).statusCode, url).toBe(200);
  });

  it('follows the document: an operation added to it gets its line', () => {
    const extended: Document = {
      ...doc,
      paths: {
        ...doc.paths,
        '/v1/example/new': {
          get: {
            summary: 'A new endpoint',
            description: 'Something. Requires `gold:history:read`.',
            parameters: [{ name: 'day', in: 'query', required: true }],
          },
        },
        '/v1/example/declared': { get: { summary: 'Declared', 'x-entitlement': 'assets:read' } },
      },
    };
    const out = llmsText(extended);
    expect(out).toContain(
      '- `GET /v1/example/new` (query: `day` required): A new endpoint. Entitlement: `gold:history:read`.',
    );
    expect(out).toContain('- `GET /v1/example/declared`: Declared. Entitlement: `assets:read`.');
  });

  it('is compressed like the other documents', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/llms.txt',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(res.rawPayload).toString('utf8')).toBe(text);
  });
});
