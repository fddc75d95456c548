/** How the bench runs the service: the built CLI, `mds serve`, as an operator would. */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import { defer } from './cleanup.js';
import { freePort, httpGet, type Spawned, spawnPinned, stop, waitFor200 } from './proc.js';

/** The repository root, whether this runs from bench/ (tests) or dist/bench/ (npm run bench). */
export const ROOT = PROJECT_ROOT;
export const CLI = join(PROJECT_ROOT, 'dist', 'mds.mjs');

/** The service's log level under load (pino; warn logs nothing for a 200). */
export const SERVICE_LOG_LEVEL = 'warn';

/** Settings of the operator's environment that must not leak into a bench process. */
const CLEARED = [
  'MDS_DATABASE_URL',
  'MDS_REDIS_URL',
  'MDS_REDIS_PREFIX',
  'MDS_ADMIN_PORT',
  'MDS_ADMIN_HOST',
  'MDS_HOST',
  'MDS_PORT',
  'MDS_TLS_CERT',
  'MDS_TLS_KEY',
];

export function benchEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MDS_LOG_LEVEL: SERVICE_LOG_LEVEL };
  for (const name of CLEARED) delete env[name];
  return { ...env, ...extra };
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
  await waitFor200(`${origin}/v1/me`, { authorization: `Bearer ${key}` }, proc, { everyMs: 20 });
  return { proc, origin };
}

/** Headers Node's http module writes itself on every answer (the references' too). */
export const NODE_OWN_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

/**
 * The service's answer to `url`: 200 required, exact bytes kept, the
 * headers it chose, as a flat [name, value, …] list in its order, and every
 * header as received (Node's own included), which the references must match.
 */
export async function answer(
  origin: string,
  url: string,
  key: string,
): Promise<{ body: Buffer; contentType: string; headers: string[]; rawHeaders: string[] }> {
  const res = await httpGet(`${origin}${url}`, { authorization: `Bearer ${key}` });
  if (res.status !== 200) {
    throw new Error(`GET ${url} answered ${res.status}, not 200: ${res.body.toString().slice(0, 500)}`);
  }
  const headers: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    if (!NODE_OWN_HEADERS.has(name.toLowerCase())) headers.push(name, res.rawHeaders[i + 1]!);
  }
  return {
    body: res.body,
    contentType: String(res.headers['content-type'] ?? 'application/json'),
    headers,
    rawHeaders: res.rawHeaders,
  };
}
