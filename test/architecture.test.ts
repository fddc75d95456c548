/**
 * The shape of src/ (docs/decisions.md 79), read by madge from the
 * imports themselves (type-only and dynamic ones included):
 *
 * - no import cycle;
 * - layers point one way: domain/ imports only domain/; config/ (the MDS_*
 *   schemas) imports nothing of src/ but config/, so any layer may read a
 *   variable through it; storage/ imports nothing above it but config/;
 *   access/, limits/ and runtime/ do not import http/;
 *   a route file does not import another route file;
 * - no file over 300 lines without a reason at its top: a line of its first
 *   comment block starting "Longer than 300 lines because".
 *
 * What breaks a rule today is listed in KNOWN_VIOLATIONS, entry by entry. The
 * list can only shrink: a listed violation that no longer exists fails the test
 * too, so whoever removes one also removes its entry. `npm run graph` and
 * `npm run --silent sizes` print the graph and the file sizes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const MAX_LINES = 300;
const REASON = /^\s*(?:\*|\/\/)?\s*Longer than 300 lines because\b/m;

/**
 * Violations allowed for now, each with why; paths relative to src/. The
 * restructuring (docs/decisions.md, "The restructuring") emptied the list written at commit a87826e (five
 * cycles, seven imports against the layers, seven oversize files).
 */
const KNOWN_VIOLATIONS: Record<'cycles' | 'imports' | 'oversize', string[]> = {
  /** Import cycles, each from its alphabetically first module. */
  cycles: [],
  /** Imports against the layering, `from -> to`. */
  imports: [],
  /** Files over 300 lines with no reason at their top. */
  oversize: [],
};

/** The layering rules: why an import `from -> to` is not allowed, or undefined when it is. */
function layerViolation(from: string, to: string): string | undefined {
  const under = (file: string, ...dirs: string[]) => dirs.some((d) => file.startsWith(`${d}/`));
  if (under(from, 'domain') && !under(to, 'domain')) return 'domain/ imports only domain/';
  if (under(from, 'config') && !under(to, 'config')) return 'config/ imports only config/';
  if (
    under(from, 'storage') &&
    (!under(to, 'storage', 'domain', 'config') || to === 'app.ts' || to === 'server.ts')
  )
    return 'storage/ imports only storage/, domain/ and config/';
  if (under(from, 'access', 'limits', 'runtime') && under(to, 'http'))
    return 'access/, limits/ and runtime/ do not import http/';
  if (
    under(from, 'access', 'limits') &&
    (under(to, 'runtime', 'cli') || to === 'app.ts' || to === 'server.ts')
  )
    return 'access/ and limits/ do not import the layers that assemble them';
  // A routes index that registers every route is the one file allowed to import them.
  if (
    (under(from, 'http/routes') && under(to, 'http/routes') && !from.endsWith('/index.ts')) ||
    (under(from, 'http/operations') && under(to, 'http/operations') && !from.endsWith('/index.ts'))
  )
    return 'a route file does not import another route file';
  return undefined;
}

interface MadgeResult {
  obj(): Record<string, string[]>;
  circular(): string[][];
  warnings(): { skipped: string[] };
}
type Madge = (path: string, config: { fileExtensions: string[]; tsConfig: string }) => Promise<MadgeResult>;

const madge = createRequire(import.meta.url)('madge') as Madge;
const graph = madge(SRC, { fileExtensions: ['ts'], tsConfig: join(SRC, '..', 'tsconfig.json') });

/** A cycle written from its alphabetically first module, so the same cycle reads the same. */
function cycleName(cycle: string[]): string {
  const first = cycle.indexOf([...cycle].sort()[0]!);
  return [...cycle.slice(first), ...cycle.slice(0, first)].join(' > ');
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** The file's first comment block: a leading /* … *\/ or run of // lines. */
function firstComment(text: string): string {
  const body = text.replace(/^#!.*\n/, '').trimStart();
  if (body.startsWith('/*')) return body.slice(0, body.indexOf('*/') + 2);
  return (/^(?:\/\/.*\n)+/.exec(body) ?? [''])[0];
}

/** Lines as `wc -l` counts them. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Found against known: what is new (a regression) and what is listed but gone (a stale entry). */
function compare(found: string[], known: string[]) {
  return {
    new: found.filter((f) => !known.includes(f)).sort(),
    stale: known.filter((k) => !found.includes(k)).sort(),
  };
}

describe('architecture of src/', () => {
  it('madge resolves every import', async () => {
    expect((await graph).warnings().skipped).toEqual([]);
  });

  it('has no import cycle but the known ones', async () => {
    const found = (await graph).circular().map(cycleName);
    expect(compare(found, KNOWN_VIOLATIONS.cycles)).toEqual({ new: [], stale: [] });
  });

  it('imports only down the layers but the known exceptions', async () => {
    const found: string[] = [];
    const why = new Map<string, string>();
    for (const [from, imports] of Object.entries((await graph).obj())) {
      for (const to of imports) {
        const rule = layerViolation(from, to);
        if (rule) {
          found.push(`${from} -> ${to}`);
          why.set(`${from} -> ${to}`, rule);
        }
      }
    }
    const result = compare(found, KNOWN_VIOLATIONS.imports);
    expect({ ...result, new: result.new.map((v) => `${v} (${why.get(v)})`) }).toEqual({ new: [], stale: [] });
  });

  it(`has no file over ${MAX_LINES} lines without a reason at its top but the known ones`, () => {
    const found: string[] = [];
    for (const path of sourceFiles(SRC)) {
      const text = readFileSync(path, 'utf8');
      if (lineCount(text) > MAX_LINES && !REASON.test(firstComment(text))) found.push(relative(SRC, path));
    }
    expect(compare(found, KNOWN_VIOLATIONS.oversize)).toEqual({ new: [], stale: [] });
  });

  it('applies the layering rules as written', () => {
    expect(layerViolation('domain/history.ts', 'http/errors.ts')).toBeDefined();
    expect(layerViolation('domain/history.ts', 'domain/dates.ts')).toBeUndefined();
    expect(layerViolation('storage/sqlite.ts', 'domain/types.ts')).toBeUndefined();
    expect(layerViolation('storage/sqlite.ts', 'limits/memory.ts')).toBeDefined();
    expect(layerViolation('storage/sqlite.ts', 'http/errors.ts')).toBeDefined();
    expect(layerViolation('storage/sqlite.ts', 'config/setting.ts')).toBeUndefined();
    expect(layerViolation('storage/sqlite.ts', 'config.ts')).toBeDefined();
    expect(layerViolation('config/setting.ts', 'domain/types.ts')).toBeDefined();
    expect(layerViolation('runtime/snapshot.ts', 'http/respond.ts')).toBeDefined();
    expect(layerViolation('limits/redis.ts', 'runtime/services.ts')).toBeDefined();
    expect(layerViolation('http/operations/gold.ts', 'http/operations/rates.ts')).toBeDefined();
    expect(layerViolation('http/routes/index.ts', 'http/routes/rates.ts')).toBeUndefined();
    expect(layerViolation('http/operations/gold.ts', 'http/operations/rates.ts')).toBeDefined();
    expect(layerViolation('http/routes/rates.ts', 'http/pipeline/decide.ts')).toBeUndefined();
    expect(
      REASON.test(
        firstComment('/**\n * Longer than 300 lines because the scanner is one state machine.\n */\n'),
      ),
    ).toBe(true);
    expect(REASON.test(firstComment('/** A file. */\n// Longer than 300 lines because no\n'))).toBe(false);
  });
});
