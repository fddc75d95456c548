/** The load generator: wrk (Debian's package), with bench/wrk-report.lua for the figures as JSON. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One wrk thread (on its own core) and 50 connections, for every run. */
export const CONNECTIONS = 50;
/** bench/wrk-report.lua in the source tree (tsc does not copy it to dist/). */
const LUA_SCRIPT = fileURLToPath(new URL('../../bench/wrk-report.lua', import.meta.url));

/** wrk's version, or undefined when it is not installed. */
export async function wrkVersion(): Promise<string | undefined> {
  // `wrk -v` prints its version, then the usage, and exits 1.
  const out: { stdout?: string } = await run('wrk', ['-v']).catch((err) => err);
  return /^wrk\s+(\S+)/m.exec(out.stdout ?? '')?.[1];
}

export interface WrkResult {
  requests: number;
  rps: number;
  /** Connect, read, write and timeout errors. */
  socketErrors: number;
  non2xx: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

interface WrkRun {
  url: string;
  key: string;
  seconds: number;
  cpus?: string;
}

export async function runWrk(o: WrkRun): Promise<WrkResult> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${o.seconds}s`, '--timeout', '5s'];
  args.push('-s', LUA_SCRIPT, '-H', `Authorization: Bearer ${o.key}`, o.url);
  const command = o.cpus ? ['taskset', '-c', o.cpus, 'wrk', ...args] : ['wrk', ...args];
  const { stdout } = await run(command[0]!, command.slice(1));
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk printed no report for ${o.url}:\n${stdout}`);
  const r = JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, number>;
  const n = (k: string) => r[k] ?? 0;
  const seconds = n('durationUs') / 1e6;
  return {
    requests: n('requests'),
    rps: seconds > 0 ? n('requests') / seconds : 0,
    socketErrors: n('connect') + n('read') + n('write') + n('timeout'),
    non2xx: n('status'),
    p50Us: n('p50'),
    p99Us: n('p99'),
    maxUs: n('max'),
  };
}
