/**
 * The load generator: wrk (Debian's package), with bench/wrk-report.lua for
 * the totals, the non-2xx count and the latency percentiles as JSON.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** bench/wrk-report.lua in the source tree (tsc does not copy it to dist/). */
export const LUA_SCRIPT = fileURLToPath(new URL('../../bench/wrk-report.lua', import.meta.url));

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export async function wrkVersion(wrk: string): Promise<string> {
  // `wrk -v` prints its version, then the usage, and exits 1.
  const out = await run(wrk, ['-v']).then(
    (r) => r.stdout + r.stderr,
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
  return /^wrk\s+(\S+)/m.exec(out)?.[1] ?? 'unknown';
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  bytes: number;
  /** Socket errors: connect, read, write, timeout. */
  socketErrors: number;
  /** Answers outside 2xx: wrk's status count (>= 400; bench/wrk-report.lua says why no 3xx can come). */
  non2xx: number;
  /**
   * CPU the generator used, in cores (user + system seconds over the run's
   * seconds, for all its threads). Near its thread count, the generator was
   * the limit and the run measured wrk, not the server.
   */
  generatorCores: number;
  latencyUs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /**
   * The latency distribution, [percentile, µs] on bench/wrk-report.lua's grid
   * (every 1 % to 95, every 0.05 % above, the maximum last); empty when no
   * request completed. bench/load.ts merges slices with it.
   */
  quantiles: Array<[number, number]>;
}

export interface WrkRun {
  wrk: string;
  url: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
  threads: number;
  cpus?: string;
}

export async function runWrk(o: WrkRun): Promise<WrkResult> {
  const args = [
    `-t${o.threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    '--timeout',
    '5s',
    '-s',
    LUA_SCRIPT,
    ...Object.entries(o.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    o.url,
  ];
  const command = o.cpus ? ['taskset', '-c', o.cpus, o.wrk, ...args] : [o.wrk, args].flat();
  // The shell's `times` prints its children's user and system seconds last: wrk's CPU, whatever it was pinned to.
  const { stdout } = await run('sh', ['-c', '"$@"; s=$?; times; exit $s', 'sh', ...command], {
    maxBuffer: 10_000_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk printed no report for ${o.url}:\n${stdout}`);
  const r = JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, number> & {
    quantiles?: Array<[number, number]>;
  };
  const n = (k: string) => (r[k] as number | undefined) ?? 0;
  const seconds = n('durationUs') / 1e6;
  return {
    requests: n('requests'),
    seconds,
    rps: seconds > 0 ? n('requests') / seconds : 0,
    bytes: n('bytes'),
    socketErrors: n('connect') + n('read') + n('write') + n('timeout'),
    non2xx: n('status'),
    generatorCores: seconds > 0 ? childCpuSeconds(stdout) / seconds : 0,
    latencyUs: { p50: n('p50'), p90: n('p90'), p99: n('p99'), max: n('max'), mean: n('mean') },
    quantiles: r.quantiles ?? [],
  };
}

/** The children's user + system seconds from the last line `times` printed (`0m1.230000s 0m0.450000s`). */
export function childCpuSeconds(stdout: string): number {
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  const m = /^(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s$/.exec(last.trim());
  if (!m) throw new Error(`no CPU times after wrk's report: ${JSON.stringify(last)}`);
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
}
