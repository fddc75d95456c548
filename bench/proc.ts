/**
 * Child processes of the bench: pinned to a core, waited for, measured from
 * /proc, stopped; and the cleanups that run on success, failure or Ctrl-C.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { createServer } from 'node:net';

const pending: Array<() => Promise<void> | void> = [];

/** Runs `fn` at the end of the run (cleanUp), in reverse order of deferral. */
export function defer(fn: () => Promise<void> | void): void {
  pending.push(fn);
}

export async function cleanUp(): Promise<void> {
  while (pending.length) {
    try {
      await pending.pop()?.();
    } catch (err) {
      process.stderr.write(`bench: cleanup: ${(err as Error).message}\n`);
    }
  }
}

/** taskset lists: the servers (and the import) on CPU 1, wrk on CPU 0 (docs/decisions.md 73); none on one CPU. */
export type CpuPlan = { server?: string; generator?: string; note: string };

export const cpuPlan = (cpus: number): CpuPlan =>
  cpus < 2
    ? { note: 'not pinned (one CPU)' }
    : { server: '1', generator: '0', note: 'server on CPU 1, wrk on CPU 0 (taskset)' };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A child process with the last 20,000 characters it wrote, for error messages. */
export type Spawned = ChildProcess & { output(): string };

/** `taskset -c <cpus> cmd …` execs cmd, so the pid is the command's own. */
export function spawnPinned(
  cpus: string | undefined,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
) {
  const [file, argv] = cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
  const child = spawn(file, argv as string[], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return Object.assign(child, { output: () => text }) as Spawned;
}

export type HttpAnswer = Pick<IncomingMessage, 'headers' | 'rawHeaders'> & { status: number; body: Buffer };

/** A plain GET without Accept-Encoding, so the exact uncompressed bytes come back. */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve(Object.assign(res, { status: res.statusCode!, body: Buffer.concat(chunks) })),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const exited = (p: Spawned) => p.exitCode !== null || p.signalCode !== null;

/** Polls `url` until it answers 200 (30 s at most); the time of that answer (performance.now()). */
export async function waitFor200(url: string, headers: Record<string, string>, proc: Spawned, everyMs = 20) {
  const deadline = performance.now() + 30_000;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (exited(proc)) throw new Error(`process ${proc.pid} exited:\n${proc.output()}`);
    const res = await httpGet(url, headers).catch((err: Error) => err);
    if (!(res instanceof Error) && res.status === 200) return performance.now();
    last = res instanceof Error ? res.message : `HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`;
    await sleep(everyMs);
  }
  throw new Error(`${url} did not answer 200 within 30 s (last: ${last})\n${proc.output()}`);
}

export async function stop(proc: Spawned): Promise<void> {
  if (exited(proc)) return;
  const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(timer);
}

const proc = (pid: number | undefined, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** User + system CPU seconds of a process, all threads (/proc/<pid>/stat fields 14 and 15); NaN once gone. */
export function cpuSeconds(pid: number | undefined): number {
  const stat = proc(pid, 'stat');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat ? (Number(fields[11]) + Number(fields[12])) / CLK_TCK : Number.NaN;
}

/** The peak resident memory of a process so far (VmHWM, kB), or 0 once it is gone. */
export const peakRssKb = (pid: number | undefined) =>
  Number(/^VmHWM:\s+(\d+) kB/m.exec(proc(pid, 'status'))?.[1] ?? 0);
