/**
 * Envelope assembly and HTTP caching. Bodies that depend only on the data (the
 * latest rates of a source, gold latest, the asset directory) are prepared once
 * per snapshot (http/pipeline/bodies.ts, http/serialize.ts), split around the request
 * id (prepared.ts); a request then writes its id between the two halves.
 *
 * Every 200 of a data endpoint carries a weak ETag (the bytes differ by request
 * id, the representation does not) and `Cache-Control: private`. A matching
 * `If-None-Match` gets 304 (http/pipeline/decide.ts); it has passed the pipeline, so
 * it consumed a unit.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encode } from './compression.js';
import type { Prepared } from './prepared.js';

export { etagOf, type Prepared } from './prepared.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';
/** History pages are negotiated on Accept too (decisions §12). */
export const VARY_PAGE = 'accept, accept-encoding';

/** How long a client may reuse a response, by how often its data changes. */
export const MAX_AGE = {
  /** The asset directory changes rarely. */
  directory: 3600,
  /** Latest observations change with each import (minutes to hours). */
  latest: 60,
  /** A history page changes only when a late observation is imported. */
  history: 300,
} as const;

/** A prepared body with how long a client may reuse it. */
export interface PreparedAnswer {
  body: Prepared;
  maxAge: number;
}

/** The Cache-Control value of each max-age in use, built once: every answer sends one. */
const CACHE_CONTROL = new Map<number, string>(
  Object.values(MAX_AGE).map((s) => [s, `private, max-age=${s}`]),
);
export const cacheControl = (maxAge: number): string =>
  CACHE_CONTROL.get(maxAge) ?? `private, max-age=${maxAge}`;

/**
 * The body with this request's id written between its halves: for compressed
 * answers. Plain answers send the halves as they are, without this copy
 * (http/pipeline/write.ts).
 */
export function bodyFor(body: Prepared, requestId: string): Buffer {
  if (body.csv) return body.head;
  const out = Buffer.allocUnsafe(body.head.length + requestId.length + body.tail.length);
  body.head.copy(out, 0);
  const at = body.head.length + out.write(requestId, body.head.length, 'latin1');
  body.tail.copy(out, at);
  return out;
}

/**
 * `Link: <…>; rel="next"` (decisions §12, RFC 8288): the request's own path and
 * query, relative, with `cursor` set to the next page's. Every other member is
 * kept as the client wrote it; the cursor needs no escaping (base36, `.`, `~`
 * and base64url are unreserved characters).
 */
export function nextLink(url: string, cursor: string): string {
  const hash = url.indexOf('#');
  const target = hash === -1 ? url : url.slice(0, hash);
  const q = target.indexOf('?');
  let query = '';
  let replaced = false;
  if (q !== -1) {
    for (const member of target.slice(q + 1).split('&')) {
      const eq = member.indexOf('=');
      if (!replaced && isCursor(eq === -1 ? member : member.slice(0, eq))) {
        query += `&cursor=${cursor}`;
        replaced = true;
      } else {
        query += `&${member}`;
      }
    }
  }
  if (!replaced) query += `&cursor=${cursor}`;
  return `<${q === -1 ? target : target.slice(0, q)}?${query.slice(1)}>; rel="next"`;
}

/**
 * The Link header of a page whose next cursor is `next`, for the request URL `url`. Clients
 * poll a page by the same URL, so the last one built is kept on the page: a
 * repeated request allocates nothing for it.
 */
export function linkFor(page: Prepared, next: string, url: string): string {
  const last = page.link;
  if (last !== undefined && last.url === url) return last.value;
  const value = nextLink(url, next);
  page.link = { url, value };
  return value;
}

/** The parameter name as the query parser reads it (`%63ursor` is `cursor` too). */
function isCursor(name: string): boolean {
  if (name === 'cursor') return true;
  if (!name.includes('%') && !name.includes('+')) return false;
  try {
    return decodeURIComponent(name.replaceAll('+', ' ')) === 'cursor';
  } catch {
    return false;
  }
}

/** For bodies built as objects outside /v1 (the health checks). */
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
