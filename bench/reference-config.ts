/** What the orchestrator hands the reference servers (through a temp JSON file). */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIds } from '../src/http/request-ids.js';

export interface ReferenceRoute {
  /** Path and query exactly as the load generator requests it. */
  url: string;
  /** The service's Content-Type for this answer. */
  contentType: string;
  /** The service's body, base64 (exact bytes). */
  body: string;
  /** The service's own headers on that answer, [name, value, …] (Date, Connection and the length aside). */
  headers: string[];
  /** Fastify response schema for the route's path (fast-json-stringify). */
  schema: object;
}

export interface ReferenceConfig {
  host: string;
  port: number;
  routes: ReferenceRoute[];
  /** node:http only: send the service's headers too, not just Content-Type (the "same headers" reference). */
  sameHeaders?: boolean;
  /**
   * reference-tick only: the store and Redis it waits on, per tick, and the
   * grant and key whose usage it writes there (bench/reference-tick.ts).
   */
  tick?: { postgresUrl: string; redisUrl?: string; prefix: string; grantId: string; keyId: string };
}

export function readConfig(file: string | undefined): ReferenceConfig {
  if (!file) throw new Error('usage: node reference-….js <config.json>');
  return JSON.parse(readFileSync(file, 'utf8')) as ReferenceConfig;
}

/** One answer of a node:http reference, written on `res`. */
export interface ReferenceAnswer {
  send(res: ServerResponse): void;
}

/**
 * A node:http reference's answers by URL. Bare (`same` false): the service's
 * bytes, serialized once, with its Content-Type. With the service's headers
 * (`same`): the answer the contract requires, which carries its own request id
 * in `X-Request-Id` and in the body's `meta.requestId`. So each answer gets a
 * fresh id, made as the service makes them (src/http/request-ids.ts), put in
 * the header and between the body's two halves, written as one corked head and
 * three pieces (the cheapest of the ways measured: one buffer built per answer,
 * a copy into a pool, one string; docs/performance-notes.md). Node's work for
 * that id is the contract's, not the pipeline's: a reference sending one
 * fixed id measured about 1 µs of CPU an answer less (docs/decisions.md 71).
 */
export function answersOf(
  config: ReferenceConfig,
  same = config.sameHeaders === true,
): Map<string, ReferenceAnswer> {
  const answers = new Map<string, ReferenceAnswer>();
  const nextId = requestIds();
  for (const r of config.routes) {
    const body = Buffer.from(r.body, 'base64');
    if (!same) {
      const headers = { 'content-type': r.contentType, 'content-length': body.length };
      answers.set(r.url, {
        send(res) {
          res.writeHead(200, headers);
          res.end(body);
        },
      });
      continue;
    }
    const { head, tail, template, idAt } = splitAtRequestId(r, body);
    const lengthAt = template.length - 1;
    const fixed = head.length + tail.length;
    answers.set(r.url, {
      send(res) {
        const id = nextId();
        const headers = template.slice();
        headers[idAt] = id;
        headers[lengthAt] = String(fixed + id.length);
        res.writeHead(200, headers);
        res.cork();
        res.write(head);
        res.write(id, 'latin1');
        res.end(tail);
        res.uncork();
      },
    });
  }
  return answers;
}

/**
 * The service's answer cut around its request id: the body's halves, and its
 * headers with Content-Length last, the id's and the length's places to fill.
 */
export function splitAtRequestId(
  r: Pick<ReferenceRoute, 'body' | 'headers' | 'url'>,
  body = Buffer.from(r.body, 'base64'),
): { head: Buffer; tail: Buffer; template: string[]; idAt: number } {
  const idAt = r.headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'x-request-id') + 1;
  const serviceId = idAt > 0 ? r.headers[idAt] : undefined;
  const marker = serviceId === undefined ? -1 : body.indexOf(`"requestId":"${serviceId}"`);
  if (serviceId === undefined || marker === -1)
    throw new Error(`${r.url}: the service's answer has no X-Request-Id named in its body's meta.requestId`);
  const at = marker + '"requestId":"'.length;
  return {
    head: body.subarray(0, at),
    tail: body.subarray(at + serviceId.length),
    template: [...r.headers, 'content-length', ''],
    idAt,
  };
}

/** The answer of a node:http reference to `req`, or a 404 sent (and undefined) for a URL it does not serve. */
export function answerFor<A>(
  answers: Map<string, A>,
  req: IncomingMessage,
  res: ServerResponse,
): A | undefined {
  const answer = answers.get(req.url ?? '');
  if (answer === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not a benchmarked URL');
  }
  return answer;
}
