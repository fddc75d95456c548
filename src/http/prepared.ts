/**
 * Bodies prepared once per data snapshot: the JSON envelope as
 * UTF-8 bytes split around the request id, so a request only writes its id
 * between the two halves, and the weak ETag of the representation (the bytes
 * differ by request id, the representation does not). Request ids are
 * [A-Za-z0-9_-] (app.ts), so they need no JSON escaping.
 *
 * http/serialize.ts makes them from the response schemas; the per-version
 * bodies (http/pipeline/bodies.ts) and the page cache keep them; the writer
 * (http/pipeline/write.ts) only writes them.
 */
import { createHash } from 'node:crypto';

/** A body prepared once: `head` + requestId + `tail`, with its ETag. */
export interface Prepared {
  head: Buffer;
  tail: Buffer;
  etag: string;
  /** A CSV page (http/csv.ts): `head` is the whole body, without the request id. */
  csv?: true;
  /** A page of a paginated endpoint: the next page's cursor, null on the last page. */
  next?: string | null;
  /** The Link header last built for this page, and the URL it was built for (http/respond.ts, linkFor). */
  link?: { url: string; value: string };
}

export function etagOf(...parts: Array<string | Buffer>): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `W/"${h.digest('base64url').slice(0, 22)}"`;
}
