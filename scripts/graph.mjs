/**
 * The shape of src/, from the project's own tooling (docs/decisions.md 79):
 *
 *   npm run graph            the import graph as madge reads it (type-only and
 *                            dynamic imports included): layer to layer with the
 *                            number of imports, every module's imports, the cycles
 *   npm run --silent sizes   lines per file of src/, largest last, and the total
 *
 * test/architecture.test.ts enforces the rules; this only prints.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

/** Folders that are layers of their own inside http/ (docs/decisions.md 79). */
const SUB_LAYERS = ['http/routes', 'http/operations', 'http/pipeline'];

/** The layer of a module: its folder under src/ (a file at the top is its own layer). */
export function layerOf(file) {
  const sub = SUB_LAYERS.find((l) => file.startsWith(`${l}/`));
  if (sub) return sub;
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

async function graph() {
  const madge = createRequire(import.meta.url)('madge');
  const result = await madge(SRC, { fileExtensions: ['ts'], tsConfig: join(ROOT, 'tsconfig.json') });
  const modules = result.obj();
  const edges = new Map();
  for (const [from, imports] of Object.entries(modules)) {
    for (const to of imports) {
      const key = `${layerOf(from)} -> ${layerOf(to)}`;
      if (layerOf(from) !== layerOf(to)) edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  const out = [`Import graph of src/ (${Object.keys(modules).length} modules; madge)`, '', 'Layers:'];
  for (const [edge, n] of [...edges].sort(([a], [b]) => a.localeCompare(b))) out.push(`  ${edge} (${n})`);
  out.push('', 'Modules:');
  for (const [from, imports] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`  ${from}${imports.length ? ` -> ${imports.join(', ')}` : ''}`);
  }
  const cycles = result.circular();
  out.push('', cycles.length ? `Cycles (${cycles.length}):` : 'Cycles: none');
  for (const cycle of cycles) out.push(`  ${[...cycle, cycle[0]].join(' -> ')}`);
  const skipped = result.warnings().skipped;
  if (skipped.length) out.push('', `Imports madge could not resolve: ${skipped.join(', ')}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Lines as `wc -l` counts them. */
export const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function sizes() {
  const rows = [...files(SRC)]
    .map((path) => ({ file: relative(ROOT, path), lines: lineCount(readFileSync(path, 'utf8')) }))
    .sort((a, b) => a.lines - b.lines || a.file.localeCompare(b.file));
  const width = Math.max(...rows.map((r) => String(r.lines).length), 5);
  const total = rows.reduce((n, r) => n + r.lines, 0);
  const over = rows.filter((r) => r.lines > 300).length;
  const out = rows.map((r) => `${String(r.lines).padStart(width)}  ${r.file}`);
  out.push(`${String(total).padStart(width)}  total, ${rows.length} files, ${over} over 300 lines`);
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--sizes')) sizes();
  else await graph();
}
