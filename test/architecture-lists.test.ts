/**
 * docs/architecture.md, "Where to add…", lists the files that adding a /v1
 * endpoint, an admin use-case with its CLI command, and a webhook event type
 * touch. This test holds each list to the code: every existing endpoint, use-case
 * and event type is found in every file its list names, so a list that names a
 * file the change does not need, or code that grew a place the list misses
 * (then found here as a missing mention), fails. What the lists say follows by
 * itself (the OpenAPI documents, /llms.txt, the MCP tools, the generated
 * clients) is held by test/http/new-endpoint.test.ts and the documents' tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/domain/webhooks.js';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const filesIn = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);

/** Whether `text` names the function `name` (a call, or the function passed as a value). */
const calls = (text: string, name: string) => new RegExp(`\\b${name}\\b(?!['"])`).test(text);

/** The section of docs/architecture.md that names one change's files. */
function listOf(title: string): string {
  const doc = read('docs/architecture.md');
  const start = doc.indexOf(`**${title}**`);
  expect(start, `docs/architecture.md has no "**${title}**" list`).toBeGreaterThan(-1);
  const end = doc.indexOf('\n**', start + title.length + 4);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe('adding a /v1 endpoint (docs/architecture.md)', () => {
  const routes = filesIn('src/http/operations').filter((f) => !f.endsWith('/index.ts'));
  const endpoints = routes.flatMap((file) => {
    const text = read(file);
    const urls = [...text.matchAll(/url: '([^']+)'/g)].map((m) => m[1]!);
    const ids = [...text.matchAll(/operationId: '([^']+)'/g)].map((m) => m[1]!);
    expect(ids.length, file).toBe(urls.length);
    return urls.map((url, i) => ({ file, path: `/v1${url}`, operationId: ids[i]! }));
  });
  const list = listOf('An endpoint under /v1');

  it('finds the endpoints', () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(10);
  });

  // A deprecated alias (its operationId ends so) keeps the clients' method of
  // the operation it aliases (docs/decisions.md 63).
  const current = (e: (typeof endpoints)[number]) => !e.operationId.endsWith('Deprecated');
  const places: [string, (e: (typeof endpoints)[number]) => boolean][] = [
    [
      'src/http/operations/index.ts',
      (e) => read('src/http/operations/index.ts').includes(e.file.split('/').pop()!.replace('.ts', '.js')),
    ],
    [
      'packages/client/src/index.ts',
      (e) => !current(e) || read('packages/client/src/index.ts').includes(`${e.operationId}(`),
    ],
    [
      'packages/python/src/mds_client/client.py',
      (e) =>
        !current(e) || read('packages/python/src/mds_client/client.py').includes(`(\`${e.operationId}\`)`),
    ],
    [
      'test/http/recorded-answers.test.ts',
      (e) => read('test/http/recorded-answers.test.ts').includes(`'${e.path}'`),
    ],
    ['README.md', (e) => read('README.md').includes(`GET ${e.path}`)],
  ];
  for (const [place, has] of places) {
    it(`names ${place}, and every endpoint is there`, () => {
      expect(list).toContain(place);
      expect(endpoints.filter((e) => !has(e)).map((e) => e.path)).toEqual([]);
    });
  }

  it('names its test file, and every endpoint has one', () => {
    expect(list).toContain('test/http/<name>.test.ts');
    const tests = filesIn('test/http').map(read).join('\n');
    expect(endpoints.filter((e) => !tests.includes(`/v1${e.path.slice(3)}`)).map((e) => e.path)).toEqual([]);
  });
});

describe('adding an admin use-case with its CLI command (docs/architecture.md)', () => {
  const useCaseFiles = filesIn('src/use-cases').filter((f) => !/\/(rules|views|contract)\.ts$/.test(f));
  const useCases = useCaseFiles.flatMap((file) =>
    // A use-case is `(store, actor, input) → Result` (docs/decisions.md 57); helpers beside them are not.
    [...read(file).matchAll(/^export (?:async )?function (\w+)\(\s*\w+: Store,\s*_?actor: Actor\b/gm)].map(
      (m) => ({
        file,
        name: m[1]!,
      }),
    ),
  );
  const admin = filesIn('src/http/admin').map(read).join('\n');
  const cli = filesIn('src/cli/commands').map(read).join('\n');
  const list = listOf('An admin use-case with its CLI command');

  it('finds the use-cases', () => {
    expect(useCases.length).toBeGreaterThanOrEqual(15);
  });

  it('names src/use-cases/, src/http/admin/, src/cli/commands/ and src/schemas/admin.ts', () => {
    for (const place of [
      'src/use-cases/<aggregate>.ts',
      'src/http/admin/<aggregate>.ts',
      'src/cli/commands/<name>.ts',
      'src/schemas/admin',
    ]) {
      expect(list).toContain(place);
    }
  });

  /** Use-cases the admin API does not offer, each with its reason. */
  const CLI_ONLY: Record<string, string> = {
    createAdminToken:
      "admin tokens are the admin API's credentials: made on the operator's machine, never by the API itself",
    listAdminTokens: 'as createAdminToken',
    revokeAdminToken: 'as createAdminToken',
  };
  /** Use-cases the command line does not offer, each with its reason. */
  const API_ONLY: Record<string, string> = {
    getAccount: 'the CLI shows accounts in lists (mds accounts list); one by id is for programs',
    getKey: 'as getAccount (mds keys list)',
    getWebhook: 'as getAccount (mds webhooks list)',
    getReporter: 'as getAccount (mds reporters list)',
  };

  it('every use-case is called by an admin route, but those listed with their reason', () => {
    expect(useCases.filter((u) => !CLI_ONLY[u.name] && !calls(admin, u.name)).map((u) => u.name)).toEqual([]);
  });

  it('every use-case is called by a CLI command, but those listed with their reason', () => {
    expect(useCases.filter((u) => !API_ONLY[u.name] && !calls(cli, u.name)).map((u) => u.name)).toEqual([]);
  });

  it('lists no exception that is not a use-case or is no longer one', () => {
    const names = new Set(useCases.map((u) => u.name));
    expect([...Object.keys(CLI_ONLY), ...Object.keys(API_ONLY)].filter((n) => !names.has(n))).toEqual([]);
    expect(Object.keys(CLI_ONLY).filter((n) => calls(admin, n))).toEqual([]);
    expect(Object.keys(API_ONLY).filter((n) => calls(cli, n))).toEqual([]);
  });

  it('names the refusal table that drives both callers', () => {
    expect(list).toContain('test/use-cases/refusals.test.ts');
  });
});

describe('adding a webhook event type (docs/architecture.md)', () => {
  const list = listOf('A webhook event type');
  const places = [
    'src/domain/webhooks.ts',
    'src/domain/webhook-events.ts',
    'src/domain/webhook-builders.ts',
    'docs/webhooks.md',
  ];
  for (const place of places) {
    it(`names ${place}, and every event type is there`, () => {
      expect(list).toContain(place);
      const text = read(place);
      expect(EVENT_TYPES.filter((t) => !text.includes(t))).toEqual([]);
    });
  }

  const builders = [...read('src/domain/webhook-builders.ts').matchAll(/^export function (\w+)/gm)].map(
    (m) => m[1]!,
  );

  it('names test/webhooks/event-schemas.test.ts, and every builder is checked there', () => {
    expect(list).toContain('test/webhooks/event-schemas.test.ts');
    const text = read('test/webhooks/event-schemas.test.ts');
    expect(builders.filter((b) => !calls(text, b))).toEqual([]);
  });

  it("names the builder's caller, and every builder has one outside domain/", () => {
    expect(list).toContain('src/webhooks/worker.ts');
    expect(builders.length).toBeGreaterThanOrEqual(7);
    const callers = [...filesIn('src/webhooks'), ...filesIn('src/storage'), ...filesIn('src/storage/kysely')]
      .map(read)
      .join('\n');
    expect(builders.filter((b) => !calls(callers, b))).toEqual([]);
  });
});
