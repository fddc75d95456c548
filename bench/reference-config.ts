/**
 * What the bench hands a reference server (as JSON, its argument), and how it
 * answers; light, as the reference processes load it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIds } from '../src/http/request-ids.js';

/** The service's answer to `url`: its bytes (base64), and its own headers, [name, value, …] in its order. */
export type ReferenceRoute = { url: string; contentType: string; body: string; headers: string[] };

/** Per-minute and monthly limits in the billions for the bench's grants: the load never meets a 429. */
export const UNREACHABLE_LIMIT = 5_000_000_000;

export interface ReferenceConfig {
  host: string;
  port: number;
  route: ReferenceRoute;
  /** Send every header the service sent, with a fresh request id (the "same headers" reference). */
  sameHeaders?: boolean;
  /** reference-tick only: what it waits on per tick, and the grant and key whose usage it writes. */
  tick?: { postgresUrl: string; redisUrl?: string; prefix: string; grantId: string; keyId: string };
}

/** The config, given as JSON in the first argument (bench/references.ts startReference). */
export const readConfig = (json = '{}') => JSON.parse(json) as ReferenceConfig;

/**
 * How a reference answers. Bare: the service's bytes, serialized once, with
 * its Content-Type. With the service's headers (`same`): the answer the
 * contract requires, which carries its own request id in X-Request-Id and in
 * the body's meta.requestId; each answer gets a fresh id, made as the service
 * makes them, written as one corked head and three pieces. Node's work for
 * that id is the contract's, not the pipeline's (docs/decisions.md 71).
 */
export function answerOf(r: ReferenceRoute, same: boolean): (res: ServerResponse) => void {
  const body = Buffer.from(r.body, 'base64');
  if (!same) {
    const headers = { 'content-type': r.contentType, 'content-length': body.length };
    return (res) => {
      res.writeHead(200, headers);
      res.end(body);
    };
  }
  const { head, tail, template, idAt } = splitAtRequestId(r);
  const nextId = requestIds();
  return (res) => {
    const id = nextId();
    const headers = template.slice();
    headers[idAt] = id;
    headers[template.length - 1] = String(head.length + tail.length + id.length);
    res.writeHead(200, headers);
    res.cork();
    res.write(head);
    res.write(id, 'latin1');
    res.end(tail);
    res.uncork();
  };
}

/**
 * The service's answer cut around its request id: the body's halves, and its
 * headers with Content-Length last, the id's and the length's places to fill.
 */
export function splitAtRequestId(r: ReferenceRoute) {
  const body = Buffer.from(r.body, 'base64');
  const idAt = r.headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'x-request-id') + 1;
  const serviceId = idAt > 0 ? r.headers[idAt]! : '';
  const marker = serviceId ? body.indexOf(`"requestId":"${serviceId}"`) : -1;
  if (marker === -1)
    throw new Error(`${r.url}: the service's answer has no X-Request-Id named in its body's meta.requestId`);
  const at = marker + '"requestId":"'.length;
  const template = [...r.headers, 'content-length', ''];
  return { head: body.subarray(0, at), tail: body.subarray(at + serviceId.length), template, idAt };
}

/** Whether `req` asks for the benchmarked URL; a 404 sent when not. */
export function isRoute(r: ReferenceRoute, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.url === r.url) return true;
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not the benchmarked URL');
  return false;
}
