/**
 * Envelope assembly and HTTP caching. Bodies that depend only on the data (the
 * latest rates of a source, gold latest, the asset directory) are prepared once
 * per snapshot as UTF-8 bytes, split around the request id; a request then
 * writes its id between the two halves. Request ids are [A-Za-z0-9_-]
 * (app.ts), so they need no JSON escaping.
 *
 * Every 200 of a data endpoint carries a weak ETag (the bytes differ by request
 * id, the representation does not) and `Cache-Control: private`. A matching
 * `If-None-Match` gets 304; it has passed the pipeline, so it consumed a unit.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encode } from './compression.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** How long a client may reuse a response, by how often its data changes. */
export const MAX_AGE = {
  /** The asset directory changes rarely. */
  directory: 3600,
  /** Latest observations change with each import (minutes to hours). */
  latest: 60,
  /** A history page changes only when a late observation is imported. */
  history: 300,
} as const;

/** A body prepared once: `head` + requestId + `tail`, with its ETag. */
export interface Prepared {
  head: Buffer;
  tail: Buffer;
  etag: string;
}

function etagOf(...parts: Array<string | Buffer>): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `W/"${h.digest('base64url').slice(0, 22)}"`;
}

/** `metaRest` is the JSON of the meta members after `requestId`, without braces (may be ''). */
export function prepare(dataJson: string, metaRest: string): Prepared {
  const head = Buffer.from(`{"data":${dataJson},"meta":{"requestId":"`);
  const tail = Buffer.from(`"${metaRest === '' ? '' : `,${metaRest}`}}}`);
  return { head, tail, etag: etagOf(head, tail) };
}

/** A prepared body with how long a client may reuse it. */
export interface PreparedAnswer {
  body: Prepared;
  maxAge: number;
}

/** The Cache-Control value of each max-age in use, built once: the fast path sends one per request. */
const CACHE_CONTROL = new Map<number, string>(
  Object.values(MAX_AGE).map((s) => [s, `private, max-age=${s}`]),
);
export const cacheControl = (maxAge: number): string =>
  CACHE_CONTROL.get(maxAge) ?? `private, max-age=${maxAge}`;

/**
 * The body with this request's id written between its halves: for compressed
 * answers and the Fastify path. The fast path's plain answers send the halves
 * as they are, without this copy (fast-path.ts).
 */
export function bodyFor(body: Prepared, requestId: string): Buffer {
  const out = Buffer.allocUnsafe(body.head.length + requestId.length + body.tail.length);
  body.head.copy(out, 0);
  const at = body.head.length + out.write(requestId, body.head.length, 'latin1');
  body.tail.copy(out, at);
  return out;
}

/** True (and the 304 is set up) when the client already holds this representation. */
function notModified(request: FastifyRequest, reply: FastifyReply, etag: string, maxAge: number): boolean {
  reply.header('etag', etag);
  reply.header('cache-control', cacheControl(maxAge));
  const given = request.headers['if-none-match'];
  if (given === undefined) return false;
  const match =
    given === etag ||
    given === '*' ||
    given.split(',').some((t) => t.trim() === etag || t.trim() === etag.slice(2));
  if (match) reply.code(304);
  return match;
}

export function sendPrepared(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Prepared,
  maxAge: number,
): Buffer | string | FastifyReply {
  if (notModified(request, reply, body.etag, maxAge)) return reply.send();
  reply.header('content-type', JSON_TYPE);
  return encode(request, reply, bodyFor(body, request.id));
}

/** For bodies built as objects (cold paths such as /v1/me and the health checks). */
export function envelopeOf(
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  meta: object = {},
): Buffer | string {
  reply.header('content-type', JSON_TYPE);
  return encode(request, reply, JSON.stringify({ data, meta: { requestId: request.id, ...meta } }));
}

export function dedupe(list: string): string[] {
  return [...new Set(list.split(','))];
}
