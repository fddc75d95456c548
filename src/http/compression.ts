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

/** The preferred acceptable encoding, honouring `q=0` refusals. */
export function negotiate(accept: string | undefined): Encoding | null {
  if (!accept) return null;
  let br = false;
  let gzip = false;
  for (const part of accept.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.find((p) => p.trim().startsWith('q='));
    if (q !== undefined && Number(q.trim().slice(2)) === 0) continue;
    if (token === 'br') br = true;
    else if (token === 'gzip' || token === '*') gzip = true;
  }
  return br ? 'br' : gzip ? 'gzip' : null;
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
export function encode(request: FastifyRequest, reply: FastifyReply, body: Buffer | string): Buffer | string {
  reply.header('vary', 'accept-encoding');
  const encoding = encodingFor(request.headers['accept-encoding'], Buffer.byteLength(body));
  if (!encoding) return body;
  reply.header('content-encoding', encoding);
  return compress(body, encoding);
}
