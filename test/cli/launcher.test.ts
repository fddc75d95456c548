/**
 * The `mds` executable lowers an import's priority before it loads the CLI
 * (src/cli/launch.ts, docs/decisions.md 76): V8 compiles the CLI's bundle for
 * about a quarter of a second before any of it runs, and that time should not
 * be taken from a server on the same core. Observed from outside: the shipped
 * launcher is copied beside a stand-in for the CLI's bundle that writes the
 * niceness the process had when it was loaded.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/server-process.js';

let dir: string;
// The niceness this test runs at (a CI runner may start it nicer): lowering never raises it.
const base = getPriority();
const low = Math.max(base, 10);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mds-launcher-'));
  copyFileSync(CLI, join(dir, 'mds.mjs'));
  // Field 19 of /proc/self/stat: the niceness of the thread that loads the CLI.
  writeFileSync(
    join(dir, 'mds-cli.mjs'),
    `import { readFileSync } from 'node:fs';
const stat = readFileSync('/proc/self/stat', 'utf8');
process.stdout.write(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The niceness the stand-in CLI was loaded at, for these arguments. */
const loadedAt = (args: string[]): number =>
  Number(execFileSync(process.execPath, [join(dir, 'mds.mjs'), ...args], { encoding: 'utf8' }));

describe('the mds executable', () => {
  it('loads the CLI at niceness 10 for an import at its default priority', () => {
    expect(loadedAt(['import', 'rates', 'file.ndjson'])).toBe(low);
    expect(loadedAt(['import', 'rates', 'file.ndjson', '--priority', 'low', '--json'])).toBe(low);
    expect(loadedAt(['import', 'gold', '-', '--priority=low'])).toBe(low);
    // After `--` nothing is an option, as the command's own parser reads it.
    expect(loadedAt(['import', 'rates', '--', '--priority', 'normal'])).toBe(low);
    // The global options may come first (decisions 90).
    expect(loadedAt(['--db', 'x.sqlite', '--json', 'import', 'rates', 'file.ndjson'])).toBe(low);
    expect(loadedAt(['--db=x.sqlite', 'import', 'rates', '--', '--priority', 'normal'])).toBe(low);
  });

  it('leaves the priority to the command otherwise: normal, a value it refuses, any other command', () => {
    expect(loadedAt(['import', 'rates', 'file.ndjson', '--priority', 'normal'])).toBe(base);
    expect(loadedAt(['import', 'rates', 'file.ndjson', '--priority=normal'])).toBe(base);
    expect(loadedAt(['import', 'rates', 'file.ndjson', '--priority', 'bogus'])).toBe(base);
    expect(loadedAt(['import', 'rates', 'file.ndjson', '--priority'])).toBe(base);
    expect(loadedAt(['serve'])).toBe(base);
    expect(loadedAt(['keys', 'list'])).toBe(base);
  });

  it('is a few lines, not the CLI: the CLI is its own file beside it', () => {
    expect(statSync(CLI).size).toBeLessThan(8 * 1024);
    expect(readFileSync(CLI, 'utf8')).toContain('mds-cli.mjs');
    expect(statSync(join(CLI, '..', 'mds-cli.mjs')).isFile()).toBe(true);
  });

  it('loads the HTTP server only for serve: the CLI and the chunks it imports statically hold none of it, nor its serializers', () => {
    const dist = dirname(CLI);
    const text = (file: string) => readFileSync(join(dist, file), 'utf8');
    // The files a command loads before it runs: mds-cli.mjs and its static imports, transitively.
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const m of text(file).matchAll(/^(?:import|export)\s[^;]*?from\s*"\.\/([^"]+)"/gm)) visit(m[1]!);
      for (const m of text(file).matchAll(/^import\s*"\.\/([^"]+)"/gm)) visit(m[1]!);
    };
    visit('mds-cli.mjs');
    const server = readdirSync(dist).filter((f) => f.startsWith('mds-cli-server-') && f.endsWith('.mjs'));
    expect(server).toHaveLength(1);
    expect(loaded.has(server[0]!)).toBe(false);
    // esbuild names each bundled module in a comment: Fastify is in the server's chunk, not before it.
    expect(text(server[0]!)).toContain('node_modules/fastify/');
    // Nor the serializers the routes compile (fast-json-stringify, and Ajv under it).
    for (const file of loaded) {
      for (const library of ['fastify', 'prom-client', 'fast-json-stringify', 'ajv'])
        expect(text(file)).not.toContain(`node_modules/${library}/`);
    }
    expect(text('mds-cli.mjs')).toContain(`import("./${server[0]}")`);
  });
});
