/** What the orchestrator hands the reference servers (through a temp JSON file). */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** A node:http reference's answers by URL: the service's bytes, with its headers (`same`) or only its Content-Type. */
export function answersOf(
  config: ReferenceConfig,
  same = config.sameHeaders === true,
): Map<string, { body: Buffer; headers: Record<string, string | number> | string[] }> {
  const answers = new Map<string, { body: Buffer; headers: Record<string, string | number> | string[] }>();
  for (const r of config.routes) {
    const body = Buffer.from(r.body, 'base64');
    const headers = same
      ? [...r.headers, 'content-length', String(body.length)]
      : { 'content-type': r.contentType, 'content-length': body.length };
    answers.set(r.url, { body, headers });
  }
  return answers;
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
