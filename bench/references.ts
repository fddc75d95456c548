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
import { benchEnv, ROOT } from './service.js';

export interface Reference {
  proc: Spawned;
  origin: string;
}

export interface Routes {
  routes: ReferenceRoute[];
  /** Per path: where its Fastify response schema came from. */
  schemaSources: Map<string, string>;
}

/** One route per benchmarked URL, with the service's exact answer and the path's 200 schema. */
export function buildRoutes(
  answers: Array<{ url: string; body: Buffer; contentType: string; headers: string[] }>,
  openapi: unknown,
): Routes {
  const routes: ReferenceRoute[] = [];
  const schemaSources = new Map<string, string>();
  for (const a of answers) {
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
  return { routes, schemaSources };
}

/** Starts dist/bench/<script>.js with its config in a temp file; stopped at the end of the run. */
export async function startReference(
  script: 'reference-http' | 'reference-fastify',
  routes: ReferenceRoute[],
  dir: string,
  cpus: string | undefined,
  sameHeaders = false,
): Promise<Reference> {
  const config: ReferenceConfig = { host: '127.0.0.1', port: await freePort(), routes, sameHeaders };
  const file = join(dir, `${script}${sameHeaders ? '-same-headers' : ''}.json`);
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

/** node:http must serve the exact bytes; Fastify the same JSON (its serializer may order differently). */
export async function checkReferences(
  { routes, schemaSources }: Routes,
  http: Reference,
  fastify: Reference,
  sameHeaders: Reference,
): Promise<Check[]> {
  let httpSame = 0;
  let headersSame = 0;
  let fastifyEqual = 0;
  let fastifyBytes = 0;
  const problems: string[] = [];
  for (const r of routes) {
    const want = Buffer.from(r.body, 'base64');
    const a = await httpGet(`${http.origin}${r.url}`);
    if (a.status === 200 && a.body.equals(want) && a.headers['content-type'] === r.contentType) httpSame++;
    else problems.push(`node:http ${r.url}`);
    const h = await httpGet(`${sameHeaders.origin}${r.url}`);
    if (h.status === 200 && h.body.equals(want) && sameList(h.rawHeaders, r.headers)) headersSame++;
    else problems.push(`node:http, same headers ${r.url}`);
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
  return [
    {
      name: 'node:http serves the service’s exact bytes and Content-Type',
      ok: httpSame === routes.length,
      detail: `${httpSame} of ${routes.length} URLs${differs}`,
    },
    {
      name: 'node:http, same headers, serves the service’s exact bytes and headers',
      ok: headersSame === routes.length,
      detail: `${headersSame} of ${routes.length} URLs${differs}`,
    },
    {
      name: 'Fastify serves the same body (JSON-equal) and Content-Type',
      ok: fastifyEqual === routes.length,
      detail: `${fastifyEqual} of ${routes.length} URLs, ${fastifyBytes} byte-identical; schemas: ${schemas}${differs}`,
    },
  ];
}

/** The service's header list is among what the reference sent, in the same order (Node adds its own). */
function sameList(received: string[], wanted: string[]): boolean {
  const kept: string[] = [];
  const names = new Set(wanted.filter((_, i) => i % 2 === 0));
  for (let i = 0; i < received.length; i += 2)
    if (names.has(received[i]!)) kept.push(received[i]!, received[i + 1]!);
  return isDeepStrictEqual(kept, wanted);
}
