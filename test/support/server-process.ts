/**
 * Runs the real server as a child process (`mds serve --port 0`), as an
 * operator would, for tests that need several instances, signals or crashes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { stopChild, track } from './children.js';
import { conformingFetch } from './openapi.js';

export const CLI = resolve('dist/mds.mjs');

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  /** SIGTERM and wait for exit; SIGKILL after a deadline (children.ts). */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** Everything the server printed on stdout so far (its banner). */
  stdout(): string;
}

export async function spawnServer(options: {
  db: string;
  redisUrl?: string;
  redisPrefix?: string;
  env?: Record<string, string>;
}): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', options.db], {
    env: {
      ...process.env,
      MDS_LOG_LEVEL: 'warn',
      MDS_REDIS_URL: options.redisUrl ?? '',
      MDS_REDIS_PREFIX: options.redisPrefix ?? '',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(proc, `mds serve --db ${options.db}`);
  let stderr = '';
  let stdout = '';
  proc.stdout!.on('data', (d) => {
    stdout += d;
  });
  proc.stderr!.on('data', (d) => {
    stderr += d;
  });
  const starting = new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 15_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  // A server that failed to start is not left behind.
  const url = await starting.catch(async (err: unknown) => {
    await stopChild(proc, 'SIGKILL');
    throw err;
  });
  return {
    url,
    proc,
    stop: () => stopChild(proc, 'SIGTERM'),
    kill: () => stopChild(proc, 'SIGKILL'),
    stdout: () => stdout,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely by the tests
type Json = Record<string, any>;

/** A GET whose answer is checked against the server's OpenAPI document, like every harness answer. */
export async function getJson(url: string, key?: string) {
  const { res, text } = await conformingFetch(url, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as Json };
}
