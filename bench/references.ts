/**
 * The two reference servers: what they serve (the service's own answers and
 * the response schemas of its OpenAPI document), starting them, and checking
 * that they serve what the service serves, so that the ratios compare like with like.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { REQUEST_ID_FORM } from '../src/http/request-ids.js';
import { HEAP_GROWING_FLAG, NODE_FLAGS } from '../src/runtime/heap.js';
import { defer } from './cleanup.js';
import type { Check, ScenarioReport, Target, TargetName, TargetSummary } from './load.js';
import { freePort, httpGet, type Spawned, spawnPinned, stop, waitFor200 } from './proc.js';
import { type ReferenceConfig, type ReferenceRoute, splitAtRequestId } from './reference-config.js';
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

/**
 * A reference's node arguments: the service's own V8 settings (the flags of
 * its `#!` line and the heap growth `mds serve` sets), so that the two differ
 * in code only. Those flags keep V8's memory reducer off, and a reference
 * needs that as much as the service: the reducer collects the heap of a
 * process gone quiet, and a reference that had answered a few requests and
 * then waited about eight seconds for its turn (while the other targets
 * warmed up) came out of it running Node's stream internals through V8's
 * runtime (perf: Runtime_DefineKeyedOwnPropertyInLiteral and
 * JSObject::MigrateToMap under `nextTick`, `onwrite` and `endReadable`), at
 * about 1.4× its CPU per answer for the rest of its life. Quick runs load each
 * target after a shorter wait, before the reducer runs: that is why the
 * same-headers reference ran at 0.96× bare node:http in quick runs and
 * 0.81–0.85× in full ones (docs/performance-notes.md, "the reference that did
 * not reproduce").
 */
export function referenceArgs(script: string, configFile: string): string[] {
  return [...NODE_FLAGS, HEAP_GROWING_FLAG, join(ROOT, 'dist/bench', `${script}.js`), configFile];
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
    `${script}${sameHeaders ? '-same-headers' : ''}${tick?.redisUrl ? '-redis' : ''}-${config.port}.json`,
  );
  writeFileSync(file, JSON.stringify(config));
  const proc = spawnPinned(cpus, process.execPath, referenceArgs(script, file), benchEnv());
  defer(() => stop(proc));
  const origin = `http://${config.host}:${config.port}`;
  const first = routes[0];
  if (first) await waitFor200(`${origin}${first.url}`, {}, proc, { everyMs: 20 });
  return { proc, origin };
}

/** The three references an embedded scenario can load, each its own process serving one URL. */
export interface ScenarioReferences {
  http: Reference;
  fastify: Reference;
  sameHeaders: Reference;
}

/**
 * Starts the three references for one benchmarked URL, each serving only that
 * URL, fresh for its scenario (stop them with `stopReferences` at its end):
 * Node's limit for that answer, whatever the scenarios before it served. One
 * process serving all eight URLs for the whole run had its code compiled for
 * every answer's head and body, and its state depended on the scenario order.
 */
export async function startScenarioReferences(
  route: ReferenceRoute,
  dir: string,
  cpus: string | undefined,
): Promise<ScenarioReferences> {
  const [http, fastify, sameHeaders] = await Promise.all([
    startReference('reference-http', [route], dir, cpus),
    startReference('reference-fastify', [route], dir, cpus),
    startReference('reference-http', [route], dir, cpus, true),
  ]);
  return { http, fastify, sameHeaders };
}

/** The references named, as load targets, in the order named. */
export function referenceTargets(refs: ScenarioReferences, names: TargetName[]): Target[] {
  const all: Target[] = [
    { name: 'node:http', ...refs.http },
    { name: 'fastify', ...refs.fastify },
    { name: 'node:http, same headers', ...refs.sameHeaders },
  ];
  return names.flatMap((n) => all.filter((t) => t.name === n));
}

export async function stopReferences(refs: ScenarioReferences): Promise<void> {
  await Promise.all([stop(refs.http.proc), stop(refs.fastify.proc), stop(refs.sameHeaders.proc)]);
}

/** What the checks of every scenario's references found, URL by URL (`checkReferences`). */
export interface ReferenceTally {
  urls: number;
  httpSame: number;
  headersSame: number;
  fastifyEqual: number;
  fastifyBytes: number;
  problems: string[];
  heads: string[];
}

export function newTally(): ReferenceTally {
  return { urls: 0, httpSame: 0, headersSame: 0, fastifyEqual: 0, fastifyBytes: 0, problems: [], heads: [] };
}

/**
 * node:http must serve the exact bytes; Fastify the same JSON (its serializer
 * may order differently). The node:http references' headers are held to the
 * service's as received (sameHead): the same-headers server sends every one of
 * them, by name, in order, with the same values, so the same head bytes; bare
 * node:http sends the service's Content-Type and Node's own, nothing else.
 * Counts one URL into `tally`.
 */
export async function checkReferences(
  r: ReferenceRoute,
  received: string[],
  refs: ScenarioReferences,
  tally: ReferenceTally,
): Promise<void> {
  const want = Buffer.from(r.body, 'base64');
  const { problems } = tally;
  tally.urls++;
  const a = await httpGet(`${refs.http.origin}${r.url}`);
  const bare = keep(received, (name) => name === 'content-type' || NODE_OWN_HEADERS.has(name));
  const bareProblem = sameHead(a.rawHeaders, bare);
  if (a.status === 200 && a.body.equals(want) && bareProblem === undefined) tally.httpSame++;
  else problems.push(`node:http ${r.url}${bareProblem ? ` (${bareProblem})` : ''}`);
  // Two answers: each the service's, but for the fresh request id it carries, and the two ids differ.
  const first = await httpGet(`${refs.sameHeaders.origin}${r.url}`);
  const second = await httpGet(`${refs.sameHeaders.origin}${r.url}`);
  const sameProblem = freshIdProblem(r, received, first) ?? freshIdProblem(r, received, second, first);
  if (sameProblem === undefined) {
    tally.headersSame++;
    tally.heads.push(`${received.length / 2} headers, ${headBytes(received)}-byte head`);
  } else problems.push(`node:http, same headers ${r.url} (${sameProblem})`);
  const b = await httpGet(`${refs.fastify.origin}${r.url}`);
  const equal =
    b.status === 200 &&
    b.headers['content-type'] === r.contentType &&
    isDeepStrictEqual(JSON.parse(b.body.toString('utf8')), JSON.parse(want.toString('utf8')));
  if (equal) tally.fastifyEqual++;
  else problems.push(`fastify ${r.url}`);
  if (b.body.equals(want)) tally.fastifyBytes++;
}

/** An answer as httpGet reads it. */
type Got = Awaited<ReturnType<typeof httpGet>>;

/**
 * Why `got` is not the service's answer given its own request id (undefined
 * when it is): its X-Request-Id in the service's form, in the body's
 * meta.requestId at the service's place, every other byte of the body and
 * every header the service's (Content-Length by the id's length), and an id
 * other than `before`'s.
 */
export function freshIdProblem(
  r: ReferenceRoute,
  received: string[],
  got: Pick<Got, 'status' | 'headers' | 'rawHeaders' | 'body'>,
  before?: Pick<Got, 'headers'>,
): string | undefined {
  if (got.status !== 200) return `status ${got.status}`;
  const { head, tail } = splitAtRequestId(r);
  const id = String(got.headers['x-request-id'] ?? '');
  if (!REQUEST_ID_FORM.test(id)) return `X-Request-Id ${JSON.stringify(id)} is not in the service's form`;
  if (before !== undefined && before.headers['x-request-id'] === id)
    return `two answers carried the same request id ${id}`;
  if (!got.body.equals(Buffer.concat([head, Buffer.from(id, 'latin1'), tail])))
    return `the body is not the service's with meta.requestId ${id}`;
  const length = head.length + id.length + tail.length;
  const wanted = received.map((v, i) => {
    const name = received[i - 1]?.toLowerCase();
    return i % 2 === 0 ? v : name === 'x-request-id' ? id : name === 'content-length' ? String(length) : v;
  });
  return sameHead(got.rawHeaders, wanted);
}

/** The three checks of the run, over every URL `checkReferences` counted. */
export function referenceChecks(t: ReferenceTally, schemaSources: Map<string, string>): Check[] {
  const differs = t.problems.length ? `; differs: ${t.problems.join(', ')}` : '';
  const schemas = [...schemaSources].map(([p, s]) => `${p} ${s}`).join(', ');
  const sizes = [...new Set(t.heads)].join('; ');
  return [
    {
      name: 'node:http serves the service’s exact bytes, its Content-Type and Node’s own headers as the service does',
      ok: t.httpSame === t.urls,
      detail: `${t.httpSame} of ${t.urls} URLs${differs}`,
    },
    {
      name: 'node:http, same headers, serves the service’s exact bytes and every header it sent, in its order and bytes, with a fresh request id in each answer',
      ok: t.headersSame === t.urls,
      detail: `${t.headersSame} of ${t.urls} URLs${sizes ? ` (${sizes})` : ''}${differs}`,
    },
    {
      name: 'Fastify serves the same body (JSON-equal) and Content-Type',
      ok: t.fastifyEqual === t.urls,
      detail: `${t.fastifyEqual} of ${t.urls} URLs, ${t.fastifyBytes} byte-identical; schemas: ${schemas}${differs}`,
    },
  ];
}

/**
 * At most this many times bare node:http's CPU per answer for the same-headers
 * reference: its headers and each answer's own request id cost Node about a
 * fifth more (docs/decisions.md 71); the degraded state measured 1.4×.
 */
export const SAME_HEADERS_CPU_MAX = 1.3;

/**
 * That the same-headers reference ran in its steady state: thirteen headers
 * more and a fresh id cost Node a fifth of an answer's CPU at most, not 40 %. Above
 * SAME_HEADERS_CPU_MAX the reference measured a state of V8 (as the one
 * `referenceArgs` avoids), not Node's limit, and the ratio against it means nothing.
 *
 * Each reference's lowest round is compared: a degraded V8 state shows in
 * every round (it lasts the process's life), while the rest of the machine
 * (a neighbour on the core, a burst of the hypervisor's) only ever adds CPU
 * to some rounds. On a machine where bare node:http costs about 15 µs an
 * answer, a run's medians of three rounds said 1.31×, where ten alternated
 * runs of fresh processes had ratios of 0.93–2.00, median 1.11×, the two
 * highest single disturbed runs (docs/performance-notes.md).
 */
export function sameHeadersCheck(reports: ScenarioReport[]): Check {
  const name = `node:http, same headers, costs at most ${SAME_HEADERS_CPU_MAX}× bare node:http's CPU per answer (its steady state: each one's lowest round)`;
  const latest = reports.find((r) => r.id === 'latest')?.targets;
  const same = lowestRound(latest?.['node:http, same headers']);
  const bare = lowestRound(latest?.['node:http']);
  if (same === undefined || bare === undefined) return { name, ok: true, detail: 'not measured in this run' };
  const ratio = same / bare;
  return {
    name,
    ok: ratio <= SAME_HEADERS_CPU_MAX,
    detail: `${same} µs against ${bare} µs, ${ratio.toFixed(2)}×`,
  };
}

/** A target's lowest CPU per answer over its rounds (its median when no round has one). */
function lowestRound(t: TargetSummary | undefined): number | undefined {
  const each = (t?.rounds ?? []).flatMap((r) =>
    r.serverUsPerRequest === undefined ? [] : [r.serverUsPerRequest],
  );
  return each.length > 0 ? Math.min(...each) : t?.serverUsPerRequest;
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
