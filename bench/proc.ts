/**
 * Child processes of the bench: spawning pinned to a core, waiting for an HTTP
 * answer, sampling resident memory from /proc, stopping.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

export interface CpuPlan {
  /** taskset list for the servers, or undefined when not pinned. */
  server?: string;
  /** taskset list for the load generator. */
  generator?: string;
  note: string;
}

/** Server on CPU 1, generator on CPU 0 (and 2… for more wrk threads) when there are two cores. */
export function cpuPlan(cpus: number, threads: number): CpuPlan {
  if (cpus < 2) return { note: 'not pinned (one CPU)' };
  const extra = Array.from({ length: Math.max(0, Math.min(threads, cpus - 1) - 1) }, (_, i) => i + 2);
  const generator = [0, ...extra].join(',');
  return { server: '1', generator, note: `server on CPU 1, wrk on CPU ${generator} (taskset)` };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** Everything the process wrote to stderr (and stdout unless piped elsewhere), for error messages. */
  output(): string;
}

/** `taskset -c <cpus> cmd …` execs cmd, so the pid is the command's own. */
export function spawnPinned(
  cpus: string | undefined,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Spawned {
  const [file, argv] = cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
  const child = spawn(file, argv as string[], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  if (child.pid === undefined) throw new Error(`cannot start ${command}`);
  return { child, pid: child.pid, output: () => text };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** As received: [name, value, …] in their order and spelling. */
  rawHeaders: string[];
  body: Buffer;
}

/** A plain GET without Accept-Encoding (so the exact, uncompressed bytes come back). */
export function httpGet(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 5_000,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `url` every `everyMs` until it answers 200; resolves with the time of
 * that answer (performance.now()). Fails when the process exits or time runs out.
 */
export async function waitFor200(
  url: string,
  headers: Record<string, string>,
  proc: Spawned,
  { timeoutMs = 30_000, everyMs = 5 } = {},
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      throw new Error(
        `process ${proc.pid} exited (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.output()}`,
      );
    }
    try {
      const res = await httpGet(url, headers, 2_000);
      if (res.status === 200) return performance.now();
      last = `HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(everyMs);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})\n${proc.output()}`);
}

export async function stop(proc: Spawned, graceMs = 15_000): Promise<void> {
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM), or undefined once the process is gone. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times (`getconf CLK_TCK`; 100 on Linux unless the kernel says otherwise). */
let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * User + system CPU seconds a process has used (all its threads), or undefined
 * once it is gone. Fields 14 and 15 of /proc/<pid>/stat, counted after the
 * command name, which may itself hold spaces.
 */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

/** Samples VmRSS of one process every `everyMs` until stopped; returns the peak in kB. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = procStatusKb(pid, 'VmRSS') ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, procStatusKb(pid, 'VmRSS') ?? 0);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, procStatusKb(pid, 'VmRSS') ?? 0);
      return peak;
    },
  };
}
