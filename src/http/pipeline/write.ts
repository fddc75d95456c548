/**
 * The one writer of every /v1 answer (docs/architecture.md, "A request's
 * path"), on Node's response: X-Request-Id first, then HSTS when serving TLS,
 * `Connection: close` while the server drains (docs/decisions.md 20), the
 * pipeline's own headers, then the coding the client asked for and
 * Content-Length. A HEAD answer carries the same headers and no body. When the
 * answer cannot be written, the unit it consumed is given back.
 */
import type { ServerResponse } from 'node:http';
import type { AccessContext } from '../../access/authenticator.js';
import type { Limiter } from '../../limits/limiter.js';
import { compress, encodingFor } from '../compression.js';
import { ApiError } from '../errors.js';
import { bodyFor } from '../respond.js';
import { type Answer, errorAnswer } from './answer.js';

/** What the writer needs besides the answer. */
export interface Writing {
  requestId: string;
  /** The Strict-Transport-Security value when serving TLS. */
  hsts: string | null;
  draining: boolean;
  /** A HEAD request: the GET's headers, Content-Length included, and no body. */
  head?: boolean;
  acceptEncoding: string | undefined;
  limiter: Limiter;
  /** Unexpected failures are logged, as the Fastify error handler logs them. */
  logError: (err: unknown, requestId: string) => void;
}

/** Writes `answer` and returns what went out (a 500 when writing it failed). */
export function writeAnswer(res: ServerResponse, answer: Answer, w: Writing): Answer {
  try {
    // The answer is this request's own: its list takes the writer's headers, not a copy.
    const { headers, body, status } = answer;
    const { requestId } = w;
    // In front, last first: the id, HSTS, Connection (no list built per request).
    if (w.draining) headers.unshift('connection', 'close');
    if (w.hsts) headers.unshift('x-request-id', requestId, 'strict-transport-security', w.hsts);
    else headers.unshift('x-request-id', requestId);
    if (body === null) {
      res.writeHead(status, headers);
      res.end();
      return answer;
    }
    if (typeof body === 'string') {
      const encoding = answer.compressible ? encodingFor(w.acceptEncoding, Buffer.byteLength(body)) : null;
      if (encoding !== null) return compressed(res, answer, compress(body, encoding), encoding, w.head);
      headers.push('content-length', String(Buffer.byteLength(body)));
      res.writeHead(status, headers);
      res.end(w.head ? undefined : body);
      return answer;
    }
    const length = body.csv ? body.head.length : body.head.length + requestId.length + body.tail.length;
    const encoding = answer.compressible ? encodingFor(w.acceptEncoding, length) : null;
    if (encoding !== null)
      return compressed(res, answer, compress(bodyFor(body, requestId), encoding), encoding);
    // The prepared halves go out as they are, around the id: no body is built
    // per request (a 6 KB copy, and external memory the GC must account for).
    headers.push('content-length', String(length));
    res.writeHead(status, headers);
    if (w.head) {
      res.end();
      return answer;
    }
    if (body.csv) {
      res.end(body.head);
      return answer;
    }
    res.cork();
    res.write(body.head);
    res.write(requestId, 'latin1');
    res.end(body.tail);
    res.uncork();
    return answer;
  } catch (err) {
    w.logError(err, w.requestId);
    // The unit was consumed for an answer that did not go out: given back. Not
    // awaited: nothing here can fail once the status line is written but the socket.
    const { consumed, access } = answer;
    if (consumed && access) void w.limiter.refund(access.grant, consumed).catch(() => {});
    return failure(res, w, access);
  }
}

function compressed(
  res: ServerResponse,
  answer: Answer,
  bytes: Buffer,
  encoding: string,
  head = false,
): Answer {
  answer.headers.push('content-encoding', encoding, 'content-length', String(bytes.length));
  res.writeHead(answer.status, answer.headers);
  res.end(head ? undefined : bytes);
  return answer;
}

/** A failure of ours: a 500 without quota headers, or a cut connection if the head went out. */
export function failure(res: ServerResponse, w: Writing, access: AccessContext | null = null): Answer {
  const answer = errorAnswer(new ApiError(500, 'internal_error'), w.requestId, [], access);
  if (res.headersSent) {
    // Failed part-way through the body: the client must not take it as whole.
    res.destroy();
    return answer;
  }
  const body = answer.body as string;
  const headers = ['x-request-id', w.requestId];
  if (w.hsts) headers.push('strict-transport-security', w.hsts);
  if (w.draining) headers.push('connection', 'close');
  headers.push(...answer.headers, 'content-length', String(Buffer.byteLength(body)));
  res.writeHead(answer.status, headers);
  res.end(w.head ? undefined : body);
  return answer;
}
