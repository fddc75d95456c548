/**
 * The `mds` executable: dist/mds.mjs, a few lines that run first
 * (src/cli/launch.ts: an import lowers its priority there), and the CLI in one
 * file beside it, dist/mds-cli.mjs: tsc's output (dist/src/) bundled with the
 * libraries it loads on every start.
 *
 * Why one file for the CLI (start to first 200 under a second): Node 20 loads
 * an ES module graph file by file, and Kysely, TypeBox, Fastify and prom-client
 * are several hundred files. Resolving and compiling them one at a time was
 * about half of the time from process start to the first answer; from one
 * file it is a fraction of that (docs/performance.md).
 *
 * Left outside the CLI's bundle, loaded from node_modules as before:
 * - better-sqlite3: a native addon;
 * - pg and ioredis: the scale-out backends, loaded only when configured;
 * - pino: its transports start worker threads from their own files;
 * - @scalar/fastify-api-reference: reads its browser bundle from its package,
 *   loaded on the first request for /docs.
 */
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url);

/** Both outputs: one ES module for Node 20 and later, with its source map. */
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', sourcemap: true } as const;

await build({
  ...common,
  entryPoints: [new URL('dist/src/cli/main.js', root).pathname],
  outfile: new URL('dist/mds-cli.mjs', root).pathname,
  external: ['better-sqlite3', 'pg', 'pg-native', 'ioredis', 'pino', '@scalar/fastify-api-reference'],
  // Bundled CommonJS code calls require(); an ES module has none of its own.
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
