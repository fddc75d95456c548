/**
 * gzip/brotli for bodies over 1 KB, when the client asks. Done here
 * rather than by a plugin's onSend hook because a hook runs for every response,
 * compressed or not, and cost a fifth of the throughput of /v1/rates/latest; a
 * client that sends no Accept-Encoding now pays one header lookup. Brotli runs at
 * quality 4: the default 11 costs more CPU than the rest of the request.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { equalsLower, INVALID, member, readMember } from './weighted-list.js';

export const COMPRESS_THRESHOLD = 1024;
export type Encoding = 'br' | 'gzip';

/** What browsers and HTTP libraries send, answered without parsing. */
const COMMON = new Map<string, Encoding | null>([
  ['gzip, deflate, br, zstd', 'br'],
  ['gzip, deflate, br', 'br'],
  ['gzip, deflate', 'gzip'],
  ['gzip,deflate', 'gzip'],
  ['br, gzip', 'br'],
  ['gzip, br', 'br'],
  ['gzip', 'gzip'],
  ['br', 'br'],
  ['identity', null],
  ['*', 'br'],
]);

/** Weights are kept in thousandths (RFC 9110 §12.4.2: at most three decimals). */
const UNLISTED = -1;
const STAR = 0x2a;

/**
 * The coding to answer with for this Accept-Encoding (RFC 9110 §12.5.3), or
 * null for none. `*` stands for every coding the header does not list, an
 * explicit `q=0` refuses a coding whatever `*` says, the highest weight wins
 * and a tie goes to br, then gzip, then identity. A member with an invalid
 * weight is ignored. When nothing we offer is acceptable the body goes out
 * as it is even if identity was refused too: an answer the client may not
 * like beats an error for a GET that succeeded (docs/decisions.md 11a).
 *
 * It runs on every request: common values come from a table, the rest is
 * read by the shared scanner (weighted-list.ts).
 */
export function negotiate(accept: string | undefined): Encoding | null {
  if (accept === undefined) return null;
  const common = COMMON.get(accept);
  if (common !== undefined) return common;

  let br = UNLISTED;
  let gzip = UNLISTED;
  let identity = UNLISTED;
  let star = UNLISTED;
  for (let i = 0; i < accept.length; ) {
    i = readMember(accept, i);
    const { start, end, q } = member;
    if (end === start || q === INVALID) continue;
    if (equalsLower(accept, start, end, 'br')) br = Math.max(br, q);
    else if (equalsLower(accept, start, end, 'gzip') || equalsLower(accept, start, end, 'x-gzip'))
      gzip = Math.max(gzip, q);
    else if (equalsLower(accept, start, end, 'identity')) identity = Math.max(identity, q);
    else if (end - start === 1 && accept.charCodeAt(start) === STAR) star = Math.max(star, q);
  }

  if (br === UNLISTED) br = star === UNLISTED ? 0 : star;
  if (gzip === UNLISTED) gzip = star === UNLISTED ? 0 : star;
  if (identity === UNLISTED) identity = star; // unlisted: below any coding the client listed
  const best = Math.max(br, gzip);
  if (best === 0 || identity > best) return null;
  return br >= gzip ? 'br' : 'gzip';
}

export function compress(body: Buffer | string, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
        },
      })
    : gzipSync(body);
}

/** The encoding this client gets for `body`: null when too small or not asked for. */
/** The encoding for a body of `bytes` bytes, or null to send it as it is. */
export function encodingFor(acceptEncoding: string | undefined, bytes: number): Encoding | null {
  return bytes < COMPRESS_THRESHOLD ? null : negotiate(acceptEncoding);
}

/** Compresses `body` for this client when it is worth it; sets the headers. */
export function encode(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer | string,
  vary: string | null = 'accept-encoding',
): Buffer | string {
  if (vary !== null) reply.header('vary', vary);
  const encoding = encodingFor(request.headers['accept-encoding'], Buffer.byteLength(body));
  if (!encoding) return body;
  reply.header('content-encoding', encoding);
  return compress(body, encoding);
}
