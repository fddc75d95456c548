/**
 * The browser bundle of /docs/ (Scalar's standalone.js, 3.5 MB), under a name
 * that carries the hash of its bytes, `scalar.<16 hex>.js`: a name never
 * stands for other bytes, so browsers may keep it a year without asking again
 * (routes/docs.ts). `npm run build` writes it compressed at the highest
 * settings under dist/docs/ (scripts/docs-assets.ts): brotli at quality 11
 * sends 0.79 MB where quality 4 sends 0.98 MB, but takes about 8 s, far too
 * long for a request or a start. The server uses those files only when the
 * name (the hash of the bundle it serves) matches, and compresses at quality 4
 * itself otherwise.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../paths.js';
import type { Encoding } from './compression.js';

export const PRECOMPRESSED_DIR = join(PROJECT_ROOT, 'dist', 'docs');

/**
 * The bundle as the Fastify plugin of the pinned release ships it, the file
 * its own route serves (its utils/getJavaScriptFile.js); resolved from this
 * module, so from src/, dist/src/ and the single-file dist/mds.mjs alike.
 */
export const BUNDLE_SOURCE = join(
  dirname(createRequire(import.meta.url).resolve('@scalar/fastify-api-reference')),
  'js',
  'standalone.js',
);

/** The file extension of each encoding's precompressed copy. */
export const EXTENSION: Record<Encoding, string> = { br: 'br', gzip: 'gz' };

/** `scalar.<first 16 hex digits of the SHA-256 of the bytes>.js`. */
export function bundleName(bytes: Buffer | string): string {
  return `scalar.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.js`;
}

/** Where the build puts the bundle compressed with `encoding`. */
export const precompressedPath = (name: string, encoding: Encoding) =>
  join(PRECOMPRESSED_DIR, `${name}.${EXTENSION[encoding]}`);
