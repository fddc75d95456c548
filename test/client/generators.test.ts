/**
 * A customer's SDK generator gets named types (docs/decisions.md 64): clients
 * generated from the served /openapi.json by two generators from the npm
 * registry, @hey-api/openapi-ts (types, SDK and its fetch client) and orval
 * (a fetch client, a file per model), compile with the repository's `tsc`
 * under `strict`, and name their types after the document's components:
 * `Asset`, `LatestRate`, `RateHistoryRecord`, `Error`, the `meta` of each
 * operation…, never `Def0`, and no type per operation and status for an error
 * body or a `meta`. Both run offline from a file (devDependencies pinned to
 * their last releases that accept Node 20).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../scripts/client-codegen.js';

const run = promisify(execFile);
const BIN = resolve('node_modules/.bin');

/** Type names every generated client must declare, as the document's components name them. */
const NAMES = [
  'Asset',
  'LatestRate',
  'RateHistoryRecord',
  'PremiumItem',
  'PremiumHistoryItem',
  'GoldRecord',
  'Identity',
  'DailyUsage',
  'Error',
  'ErrorCode',
  'AssetsMeta',
  'RatesLatestMeta',
  'RatesHistoryMeta',
  'MarketPremiumMeta',
  'MarketPremiumHistoryMeta',
  'GoldLatestMeta',
  'GoldHistoryMeta',
  'RequestMeta',
];

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
  },
  include: ['hey/**/*.ts', 'orval/**/*.ts'],
};

/** orval's programmatic entry, in a process of its own, as its CLI would run. */
const ORVAL_SCRIPT = (document: string, out: string) => `
import { generate } from ${JSON.stringify(pathToFileURL(resolve('node_modules/orval/dist/index.js')).href)};
await generate({
  input: { target: ${JSON.stringify(document)} },
  output: { target: ${JSON.stringify(join(out, 'api.ts'))}, schemas: ${JSON.stringify(join(out, 'model'))}, client: 'fetch', mode: 'split' },
});
`;

describe('clients generated from the served document by third-party generators', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let orvalLog = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-generators-'));
    // The generators' own environment: a throw-away home, no colour, nothing of the machine's.
    env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1', CI: '1' };
    const document = join(dir, 'openapi.json');
    writeFileSync(document, JSON.stringify(await loadOpenApiDocument()));
    writeFileSync(join(dir, 'orval.mjs'), ORVAL_SCRIPT(document, join(dir, 'orval')));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const [, orval] = await Promise.all([
      run(join(BIN, 'openapi-ts'), ['-i', document, '-o', join(dir, 'hey')], {
        env,
        cwd: dir,
        timeout: 60_000,
      }),
      run(process.execPath, [join(dir, 'orval.mjs')], { env, cwd: dir, timeout: 60_000 }),
    ]);
    orvalLog = orval.stdout + orval.stderr;
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compile with tsc under strict', async () => {
    const res = await run(join(BIN, 'tsc'), ['-p', join(dir, 'tsconfig.json')], { timeout: 60_000 }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }),
    );
    expect(res.stdout).toBe('');
  }, 90_000);

  it('@hey-api/openapi-ts names its types after the components', () => {
    const types = readFileSync(join(dir, 'hey', 'types.gen.ts'), 'utf8');
    for (const name of NAMES) expect(types, name).toMatch(new RegExp(`^export type ${name} = `, 'm'));
    expect(types).not.toMatch(/\bDef\d/);
    // An error answer is `Error`, whatever the operation and status.
    expect(types).toMatch(/export type ListAssetsErrors = \{[^}]*?\b400: Error;/);
    expect(types).toMatch(
      /export type GetMeResponses = \{[^}]*?\b200: \{\s*data: Identity;\s*meta: RequestMeta;/,
    );
  });

  it('orval names its models after the components, with no model per operation for errors or meta', () => {
    expect(orvalLog).not.toMatch(/⚠|warn|error/i);
    const models = readdirSync(join(dir, 'orval', 'model'));
    const text = models.map((f) => readFileSync(join(dir, 'orval', 'model', f), 'utf8')).join('\n');
    for (const name of NAMES)
      expect(text, name).toMatch(new RegExp(`^export (interface ${name} \\{|type ${name} = )`, 'm'));
    expect(text).not.toMatch(/\b[Dd]ef\d/);
    // Before the components: getMe401Error, getMe401Meta, getLatestRates200Meta… for every operation.
    expect(models.filter((f) => /\d{3}(One)?(Error|Meta)/.test(f))).toEqual([]);
  });
});
