/**
 * gzip/brotli for bodies over 1 KB, when the client asks (issue #7). Done here
 * rather than by a plugin's onSend hook because a hook runs for every response,
 * compressed or not, and cost a fifth of the throughput of /v1/rates/latest; a
 * client that sends no Accept-Encoding now pays one header lookup. Brotli runs at
 * quality 4: the default 11 costs more CPU than the rest of the request.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
export const INVALID = -2;

/**
 * The coding to answer with for this Accept-Encoding (RFC 9110 §12.5.3), or
 * null for none. `*` stands for every coding the header does not list, an
 * explicit `q=0` refuses a coding whatever `*` says, the highest weight wins
 * and a tie goes to br, then gzip, then identity. A member with an invalid
 * weight is ignored. When nothing we offer is acceptable the body goes out
 * as it is even if identity was refused too: an answer the client may not
 * like beats an error for a GET that succeeded (docs/decisions.md 11a).
 *
 * It runs on every request, so it scans the string once by character code,
 * without splitting or regular expressions.
 */
export function negotiate(accept: string | undefined): Encoding | null {
  if (accept === undefined) return null;
  const common = COMMON.get(accept);
  if (common !== undefined) return common;

  let br = UNLISTED;
  let gzip = UNLISTED;
  let identity = UNLISTED;
  let star = UNLISTED;
  const n = accept.length;
  let i = 0;
  while (i < n) {
    i = skipSpace(accept, i);
    const start = i;
    while (i < n && isTokenChar(accept.charCodeAt(i))) i++;
    const end = i;
    let q = 1000;
    i = skipSpace(accept, i);
    // Parameters: only q means anything for content codings; others are ignored.
    while (i < n && accept.charCodeAt(i) === SEMICOLON) {
      i = skipSpace(accept, i + 1);
      const nameStart = i;
      while (i < n && isTokenChar(accept.charCodeAt(i))) i++;
      const isQ = i - nameStart === 1 && (accept.charCodeAt(nameStart) | 0x20) === 0x71;
      i = skipSpace(accept, i);
      if (i < n && accept.charCodeAt(i) === EQUALS) {
        i = skipSpace(accept, i + 1);
        const valueStart = i;
        while (i < n && isTokenChar(accept.charCodeAt(i))) i++;
        if (isQ) q = weight(accept, valueStart, i);
        i = skipSpace(accept, i);
      } else if (isQ) {
        q = INVALID;
      }
    }
    if (i < n && accept.charCodeAt(i) !== COMMA) {
      // Not a member we can read (`gz ip`, a quoted string): skip to the next one.
      q = INVALID;
      while (i < n && accept.charCodeAt(i) !== COMMA) i++;
    }
    i++; // past the comma
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

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const STAR = 0x2a;

export const skipSpace = (s: string, i: number): number => {
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
};

/** RFC 9110 tchar: visible ASCII except delimiters. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TCHAR[c.charCodeAt(0)] = 1;
}
export const isTokenChar = (c: number): boolean => c < 128 && TCHAR[c] === 1;

/** Case-insensitive comparison of s[start, end) with a lower-case literal. */
export function equalsLower(s: string, start: number, end: number, literal: string): boolean {
  if (end - start !== literal.length) return false;
  for (let k = 0; k < literal.length; k++) {
    const c = s.charCodeAt(start + k);
    const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    if (lower !== literal.charCodeAt(k)) return false;
  }
  return true;
}

/** qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths; INVALID otherwise. */
export function weight(s: string, start: number, end: number): number {
  const len = end - start;
  if (len === 0 || len > 5) return INVALID;
  const first = s.charCodeAt(start);
  if (first !== 0x30 && first !== 0x31) return INVALID;
  if (len === 1) return first === 0x31 ? 1000 : 0;
  if (s.charCodeAt(start + 1) !== 0x2e) return INVALID;
  let value = 0;
  let scale = 100;
  for (let k = start + 2; k < end; k++, scale /= 10) {
    const d = s.charCodeAt(k) - 0x30;
    if (d < 0 || d > 9) return INVALID;
    value += d * scale;
  }
  if (first === 0x31) return value === 0 ? 1000 : INVALID;
  return value;
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
  vary = 'accept-encoding',
): Buffer | string {
  reply.header('vary', vary);
  const encoding = encodingFor(request.headers['accept-encoding'], Buffer.byteLength(body));
  if (!encoding) return body;
  reply.header('content-encoding', encoding);
  return compress(body, encoding);
}
