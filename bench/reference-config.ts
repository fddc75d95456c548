/** What the orchestrator hands the reference servers (through a temp JSON file). */
import { readFileSync } from 'node:fs';

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
  /** reference-tick only: the store and Redis it waits on, per tick (bench/reference-tick.ts). */
  tick?: { postgresUrl: string; redisUrl?: string; prefix: string };
}

export function readConfig(file: string | undefined): ReferenceConfig {
  if (!file) throw new Error('usage: node reference-….js <config.json>');
  return JSON.parse(readFileSync(file, 'utf8')) as ReferenceConfig;
}
