/**
 * Part of `npm run build`: writes the browser bundle of /docs/ (Scalar's
 * standalone.js) compressed once, at the highest settings, under dist/docs/,
 * named by the hash of its bytes (src/http/docs-bundle.ts): brotli at quality
 * 11 (0.79 MB; the server's own quality 4 gives 0.98 MB) and gzip at level 9.
 * Brotli 11 takes about 8 s, so files already there for the same hash are
 * kept: only a new Scalar release pays it again. Written to a temporary name
 * and renamed, so a server never reads half a file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from '../src/http/compression.js';
import { BUNDLE_SOURCE, bundleName, PRECOMPRESSED_DIR, precompressedPath } from '../src/http/docs-bundle.js';

const bytes = readFileSync(BUNDLE_SOURCE);
const name = bundleName(bytes);

const packers: Record<Encoding, () => Buffer> = {
  br: () =>
    brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  gzip: () => gzipSync(bytes, { level: 9 }),
};

mkdirSync(PRECOMPRESSED_DIR, { recursive: true });
const wanted = new Set<string>();
for (const [encoding, pack] of Object.entries(packers) as [Encoding, () => Buffer][]) {
  const file = precompressedPath(name, encoding);
  wanted.add(basename(file));
  if (existsSync(file)) continue;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, pack());
  renameSync(temporary, file);
}
// Copies of an earlier bundle would only take space.
for (const file of readdirSync(PRECOMPRESSED_DIR)) {
  if (/^scalar\.[0-9a-f]{16}\.js\.(br|gz)$/.test(file) && !wanted.has(file))
    rmSync(join(PRECOMPRESSED_DIR, file), { force: true });
}
