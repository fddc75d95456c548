/**
 * The `mds` executable: dist/mds.mjs, a few lines that run first
 * (src/cli/launch.ts: an import lowers its priority there), and the CLI
 * beside it, dist/mds-cli.mjs: tsc's output (dist/src/) bundled with the
 * libraries it loads, split at its dynamic imports into a few chunks beside it
 * (dist/mds-cli-*.mjs).
 *
 * Why a bundle (start to first 200 under a second): Node 20 loads an ES
 * module graph file by file, and Kysely, TypeBox, Fastify and prom-client are
 * several hundred files. Resolving and compiling them one at a time was about
 * half of the time from process start to the first answer; from a bundle it is
 * a fraction of that (docs/performance.md).
 *
 * Why chunks: V8 compiles every file it loads before running any of it. In one
 * 3.5 MB file, `mds keys list` compiled the HTTP server too (Fastify, Ajv's
 * and the OpenAPI document's code, prom-client), which only `mds serve` runs.
 * `serve` loads the server with `import()` (src/cli/commands/serve.ts), so
 * with splitting the other commands load about 1.4 MB: `mds keys list --json`
 * on a small SQLite file took a median of 285 ms against 460 ms from one file,
 * six alternated pairs, and `mds serve` reached its first 200 in 750 against
 * 847 ms (docs/performance-notes.md).
 *
 * Left outside the CLI's bundle, loaded from node_modules as before:
 * - better-sqlite3: a native addon;
 * - pg and ioredis: the scale-out backends, loaded only when configured;
 * - pino: its transports start worker threads from their own files;
 * - @scalar/fastify-api-reference: reads its browser bundle from its package,
 *   loaded on the first request for /docs;
 * - exceljs: a large library only a workbook's import loads (src/import/official-boa.ts).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url);
const dist = new URL('dist/', root).pathname;

/** Both outputs: one ES module for Node 20 and later, with its source map. */
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', sourcemap: true } as const;

// The chunks of an earlier build: their names carry a content hash, so a new build would leave them beside its own.
for (const name of readdirSync(dist)) if (name.startsWith('mds-cli-')) rmSync(join(dist, name));

// Split at the dynamic imports: what only `mds serve` loads is a chunk of its own (above).
await build({
  ...common,
  // The admin import's thread (src/import/threads.ts) is an entry of its own, sharing the chunks.
  entryPoints: {
    'mds-cli': new URL('dist/src/cli/run.js', root).pathname,
    'mds-import-thread': new URL('dist/src/import/thread.js', root).pathname,
  },
  outdir: dist,
  splitting: true,
  // Beside mds-cli.mjs, not in a folder: src/paths.ts finds the project root from there as from one file.
  chunkNames: 'mds-cli-[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  // esbuild: src/import/threads.ts loads it only when running from the sources.
  external: [
    'better-sqlite3',
    'pg',
    'pg-native',
    'ioredis',
    'pino',
    '@scalar/fastify-api-reference',
    'exceljs',
    'esbuild',
  ],
  // Bundled CommonJS code calls require(); an ES module has none of its own. Every chunk gets it.
  banner: {
    js: "import { createRequire as __mdsRequire } from 'node:module'; const require = __mdsRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// The executable itself: launch.ts and the one module it needs (src/cli/priority.ts),
// keeping its #! line; it loads dist/mds-cli.mjs by a path computed at run time.
await build({
  ...common,
  entryPoints: [new URL('dist/src/cli/launch.js', root).pathname],
  outfile: new URL('dist/mds.mjs', root).pathname,
  logLevel: 'warning',
});
