/**
 * The rules every request meets before a route answers it (decisions §10), in
 * one order, for the /v1 entrance (http/pipeline/entrance.ts) and for the
 * transport's hook on every other path (plugins/transport.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, stopping } from './errors.js';

/**
 * The refusal of `req`, or undefined: while stopping, 503 for a request
 * pipelined behind one still being answered (its answer would be sent only if
 * the one before kept the connection open, which answers while stopping do
 * not; refused before it consumes a unit, its client sends it again on a new
 * connection); 414 past `maxUrlLength`; 400 for HTTP/1.1 without Host (RFC
 * 9112 §3.2); and for a method other than GET and HEAD, `otherMethod`'s
 * answer (405 on a route's path, else 404), before any body is read.
 */
export function requestRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  maxUrlLength: number,
  draining: boolean,
  otherMethod: (url: string) => ApiError,
): ApiError | undefined {
  const url = req.url ?? '';
  if (draining && res.socket === null) return stopping();
  if (url.length > maxUrlLength) return new ApiError(414, 'uri_too_long');
  if (req.headers.host === undefined && req.httpVersion === '1.1') return new ApiError(400, 'bad_request');
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return otherMethod(url);
  return undefined;
}
