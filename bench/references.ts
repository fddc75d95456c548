/**
 * The two reference servers: what they serve (the service's own answers and
 * the response schemas of its OpenAPI document), starting them, and checking
 * that they serve what the service serves, so that the ratios compare like with like.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { defer } from './cleanup.js';
import { freePort, httpGet, type Spawned, spawnPinned, stop, waitFor200 } from './proc.js';
import type { ReferenceConfig, ReferenceRoute } from './reference-config.js';
import type { Check } from './report.js';
import { inferSchema, schemaFromOpenApi } from './schema.js';
import { benchEnv, NODE_OWN_HEADERS, ROOT } from './service.js';

export interface Reference {
  proc: Spawned;
  origin: string;
}

/** The service's answer to one benchmarked URL (bench/service.ts `answer`). */
export interface ServiceAnswer {
  url: string;
  body: Buffer;
  contentType: string;
  /** The headers the service chose, [name, value, …] (Node's own aside). */
  headers: string[];
  /** Every header as received, Node's own included. */
  rawHeaders: string[];
}

export interface Routes {
  routes: ReferenceRoute[];
  /** Per path: where its Fastify response schema came from. */
  schemaSources: Map<string, string>;
  /** Per URL: the service's headers as received, which the node:http references must match. */
  received: Map<string, string[]>;
}

/** One route per benchmarked URL, with the service's exact answer and the path's 200 schema. */
export function buildRoutes(answers: ServiceAnswer[], openapi: unknown): Routes {
  const routes: ReferenceRoute[] = [];
  const schemaSources = new Map<string, string>();
  const received = new Map<string, string[]>();
  for (const a of answers) {
    received.set(a.url, a.rawHeaders);
    const pathname = new URL(a.url, 'http://x').pathname;
    const fromDocument = schemaFromOpenApi(openapi, pathname);
    if (!schemaSources.has(pathname))
      schemaSources.set(pathname, fromDocument ? 'from OpenAPI' : 'inferred from the body');
    const schema = fromDocument ?? inferSchema(JSON.parse(a.body.toString('utf8')));
    routes.push({
      url: a.url,
      contentType: a.contentType,
      body: a.body.toString('base64'),
      headers: a.headers,
      schema,
    });
  }
  return { routes, schemaSources, received };
}

/** Starts dist/bench/<script>.js with its config in a temp file; stopped at the end of the run. */
export async function startReference(
  script: 'reference-http' | 'reference-fastify' | 'reference-tick',
  routes: ReferenceRoute[],
  dir: string,
  cpus: string | undefined,
  sameHeaders = false,
  tick?: ReferenceConfig['tick'],
): Promise<Reference> {
  const config: ReferenceConfig = { host: '127.0.0.1', port: await freePort(), routes, sameHeaders, tick };
  const file = join(
    dir,
    `${script}${sameHeaders ? '-same-headers' : ''}${tick?.redisUrl ? '-redis' : ''}.json`,
  );
  writeFileSync(file, JSON.stringify(config));
  const proc = spawnPinned(
    cpus,
    process.execPath,
    [join(ROOT, 'dist/bench', `${script}.js`), file],
    benchEnv(),
  );
  defer(() => stop(proc));
  const origin = `http://${config.host}:${config.port}`;
  const first = routes[0];
  if (first) await waitFor200(`${origin}${first.url}`, {}, proc, { everyMs: 20 });
  return { proc, origin };
}

/**
 * node:http must serve the exact bytes; Fastify the same JSON (its serializer
 * may order differently). The node:http references' headers are held to the
 * service's as received (sameHead): the same-headers server sends every one of
 * them, by name, in order, with the same values, so the same head bytes; bare
 * node:http sends the service's Content-Type and Node's own, nothing else.
 */
export async function checkReferences(
  { routes, schemaSources, received }: Routes,
  http: Reference,
  fastify: Reference,
  sameHeaders: Reference,
): Promise<Check[]> {
  let httpSame = 0;
  let headersSame = 0;
  let fastifyEqual = 0;
  let fastifyBytes = 0;
  const problems: string[] = [];
  const heads: string[] = [];
  for (const r of routes) {
    const want = Buffer.from(r.body, 'base64');
    const service = received.get(r.url) ?? [];
    const a = await httpGet(`${http.origin}${r.url}`);
    const bare = keep(service, (name) => name === 'content-type' || NODE_OWN_HEADERS.has(name));
    const bareProblem = sameHead(a.rawHeaders, bare);
    if (a.status === 200 && a.body.equals(want) && bareProblem === undefined) httpSame++;
    else problems.push(`node:http ${r.url}${bareProblem ? ` (${bareProblem})` : ''}`);
    const h = await httpGet(`${sameHeaders.origin}${r.url}`);
    const sameProblem = sameHead(h.rawHeaders, service);
    if (h.status === 200 && h.body.equals(want) && sameProblem === undefined) {
      headersSame++;
      heads.push(`${service.length / 2} headers, ${headBytes(service)}-byte head`);
    } else problems.push(`node:http, same headers ${r.url}${sameProblem ? ` (${sameProblem})` : ''}`);
    const b = await httpGet(`${fastify.origin}${r.url}`);
    const equal =
      b.status === 200 &&
      b.headers['content-type'] === r.contentType &&
      isDeepStrictEqual(JSON.parse(b.body.toString('utf8')), JSON.parse(want.toString('utf8')));
    if (equal) fastifyEqual++;
    else problems.push(`fastify ${r.url}`);
    if (b.body.equals(want)) fastifyBytes++;
  }
  const differs = problems.length ? `; differs: ${problems.join(', ')}` : '';
  const schemas = [...schemaSources].map(([p, s]) => `${p} ${s}`).join(', ');
  const sizes = [...new Set(heads)].join('; ');
  return [
    {
      name: 'node:http serves the service’s exact bytes, its Content-Type and Node’s own headers as the service does',
      ok: httpSame === routes.length,
      detail: `${httpSame} of ${routes.length} URLs${differs}`,
    },
    {
      name: 'node:http, same headers, serves the service’s exact bytes and every header it sent, in its order and bytes',
      ok: headersSame === routes.length,
      detail: `${headersSame} of ${routes.length} URLs${sizes ? ` (${sizes})` : ''}${differs}`,
    },
    {
      name: 'Fastify serves the same body (JSON-equal) and Content-Type',
      ok: fastifyEqual === routes.length,
      detail: `${fastifyEqual} of ${routes.length} URLs, ${fastifyBytes} byte-identical; schemas: ${schemas}${differs}`,
    },
  ];
}

/** The [name, value, …] pairs whose lower-cased name passes `wanted`. */
function keep(list: string[], wanted: (lowerName: string) => boolean): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < list.length; i += 2)
    if (wanted(list[i]!.toLowerCase())) kept.push(list[i]!, list[i + 1]!);
  return kept;
}

/** Bytes of a head's header lines (`name: value\r\n` each). */
export function headBytes(list: string[]): number {
  let n = 0;
  for (let i = 0; i + 1 < list.length; i += 2) n += list[i]!.length + list[i + 1]!.length + 4;
  return n;
}

/**
 * Why `received` is not the head `wanted` (undefined when it is): the same
 * names, spelled and ordered alike, with the same values, but Date's, which
 * only needs its length (an IMF-fixdate is always 29 characters).
 */
export function sameHead(received: string[], wanted: string[]): string | undefined {
  const names = (l: string[]) => l.filter((_, i) => i % 2 === 0).join(', ');
  if (names(received) !== names(wanted)) return `headers ${names(received)}; the service's ${names(wanted)}`;
  for (let i = 0; i + 1 < wanted.length; i += 2) {
    const name = wanted[i]!;
    const [got, want] = [received[i + 1]!, wanted[i + 1]!];
    if (name.toLowerCase() === 'date' ? got.length !== want.length : got !== want)
      return `${name}: ${JSON.stringify(got)}, the service's ${JSON.stringify(want)}`;
  }
  return undefined;
}
