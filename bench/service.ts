/**
 * How the bench runs the service: the built CLI, `mds serve`, as an operator
 * would; and the two timings an operator waits for: spawn of `mds serve` to
 * the first 200 of /v1/rates/latest on a store holding the two-year sample,
 * and the admin CLI as operators script it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import { median } from './load.js';
import { defer, freePort, httpGet, type Spawned, spawnPinned, stop, waitFor200 } from './proc.js';
import type { ReferenceRoute } from './reference-config.js';

/** The repository root, whether this runs from bench/ (tests) or dist/bench/ (npm run bench). */
export const ROOT = PROJECT_ROOT;
export const CLI = join(PROJECT_ROOT, 'dist', 'mds.mjs');

/** The environment of a bench process: the operator's MDS_* settings cleared, log level warn (no line a 200). */
export function benchEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.entries(process.env).filter(([name]) => !name.startsWith('MDS_'));
  return { ...Object.fromEntries(env), MDS_LOG_LEVEL: 'warn', ...extra };
}

export function serviceCommand(
  port: number,
  dbUrl: string,
  extraEnv: Record<string, string> = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return {
    command: process.execPath,
    // As the `mds` executable runs it (its #! line): the flags of src/runtime/heap.ts.
    args: [...NODE_FLAGS, CLI, 'serve', '--host', '127.0.0.1', '--port', String(port), '--db', dbUrl],
    env: benchEnv(extraEnv),
  };
}

/** `mds serve` on a free port, stopped at the end of the run; resolves once /v1/me answers 200. */
export async function startService(
  dbUrl: string,
  key: string,
  cpus: string | undefined,
  env: Record<string, string> = {},
): Promise<{ proc: Spawned; origin: string }> {
  const port = await freePort();
  const { command, args, env: fullEnv } = serviceCommand(port, dbUrl, env);
  const proc = spawnPinned(cpus, command, args, fullEnv);
  defer(() => stop(proc));
  const origin = `http://127.0.0.1:${port}`;
  await waitFor200(`${origin}/v1/me`, { authorization: `Bearer ${key}` }, proc);
  return { proc, origin };
}

/** Headers Node's http module writes itself on every answer (the references' too). */
export const NODE_OWN_HEADERS = /^(date|connection|keep-alive|content-length|transfer-encoding)$/i;

/** The service's answer to `url` (200 required) as a reference serves it, and every header as received. */
export async function answer(origin: string, url: string, key: string) {
  const res = await httpGet(`${origin}${url}`, { authorization: `Bearer ${key}` });
  if (res.status !== 200)
    throw new Error(`GET ${url} answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
  const headers = res.rawHeaders.filter((_, i, l) => !NODE_OWN_HEADERS.test(l[i - (i % 2)]!));
  const contentType = String(res.headers['content-type']);
  const route: ReferenceRoute = { url, contentType, body: res.body.toString('base64'), headers };
  return { route, body: res.body, rawHeaders: res.rawHeaders };
}

export type ServiceAnswer = Awaited<ReturnType<typeof answer>>;

export interface Timings {
  runsMs: number[];
  medianMs: number;
}

const timings = (runsMs: number[]): Timings => ({ runsMs, medianMs: median(runsMs) });
const tenth = (ms: number) => Math.round(ms * 10) / 10;

export async function measureStartup(
  dbUrl: string,
  key: string,
  runs: number,
  cpus?: string,
): Promise<Timings> {
  const runsMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const { command, args, env } = serviceCommand(port, dbUrl);
    const started = performance.now();
    const proc = spawnPinned(cpus, command, args, env);
    try {
      const url = `http://127.0.0.1:${port}/v1/rates/latest`;
      runsMs.push(tenth((await waitFor200(url, { authorization: `Bearer ${key}` }, proc, 2)) - started));
    } finally {
      await stop(proc);
    }
  }
  return timings(runsMs);
}

function timed(command: string, args: string[]): number {
  const started = performance.now();
  const run = spawnSync(command, args, { cwd: ROOT, env: benchEnv(), encoding: 'utf8' });
  const ms = tenth(performance.now() - started);
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  JSON.parse(run.stdout); // --json: one document, nothing else on stdout
  return ms;
}

/** `npm run mds -- keys list --json`, spawn to exit (npm's own start and `premds` included). */
export function measureCli(dbUrl: string, runs: number): Timings {
  const command = ['run', 'mds', '--silent', '--', 'keys', 'list', '--json', '--db', dbUrl];
  // npm sets npm_execpath under `npm run bench`: the same npm an operator's shell finds.
  const npm = process.env.npm_execpath;
  const once = () => (npm ? timed(process.execPath, [npm, ...command]) : timed('npm', command));
  return timings(Array.from({ length: runs }, once));
}
