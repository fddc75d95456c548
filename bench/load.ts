/**
 * One scenario under load: every target (the service and its references) gets
 * the same request from the same wrk settings, warm-up first, then rounds in
 * which each target runs once, the order reversed every other round so that no
 * target always follows the same neighbour. Each run records the target's own
 * CPU per answer (/proc): what an answer costs the server, which the other
 * processes of a shared machine change far less than requests per second
 * (docs/decisions.md 73 judges the hot path on it).
 */
import { cpuSeconds, peakRssKb, type Spawned } from './proc.js';
import { runWrk, type WrkResult } from './wrk.js';

export const TARGETS = ['service', 'node:http', 'node:http, same headers', 'node:http, tick'] as const;
export type TargetName = (typeof TARGETS)[number];

export interface Target {
  name: TargetName;
  /** http://127.0.0.1:<port> */
  origin: string;
  proc: Spawned;
}

export interface LoadSettings {
  key: string;
  /** Seconds each target is loaded in a round. */
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  generatorCpus?: string;
}

/** `cpuUs`: the target's CPU (user + system) per answer, µs. */
export type Round = { rps: number; p99Us: number; cpuUs: number };

/** rps, CPU and latencies: medians of the rounds; errors: warm-up included; peak RSS: VmHWM. */
export interface TargetSummary extends Round {
  p50Us: number;
  requests: number;
  socketErrors: number;
  non2xx: number;
  peakRssKb: number;
  rounds: Round[];
}

/** A check that the run measured what it says it measured. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const tenth = (x: number) => Math.round(x * 10) / 10;

export type Measured = WrkResult & { cpuUs: number };

export async function measure(t: Target, url: string, seconds: number, s: LoadSettings): Promise<Measured> {
  const before = cpuSeconds(t.proc.pid);
  const { key, generatorCpus: cpus } = s;
  const result = await runWrk({ url: `${t.origin}${url}`, key, seconds, cpus }).catch((err: Error) => {
    throw new Error(`${t.name} ${url}: ${err.message}\n${t.proc.output()}`);
  });
  const cpu = cpuSeconds(t.proc.pid) - before;
  return { ...result, cpuUs: tenth((cpu / result.requests) * 1e6) };
}

/** The order of round `r`: rotated by r, and reversed every other round. */
function roundOrder<T>(items: T[], r: number): T[] {
  const rotated = items.map((_, i) => items[(i + r) % items.length]!);
  return r % 2 ? rotated.reverse() : rotated;
}

/**
 * Warm-up in one-second runs, so that connections open and close between
 * them as in use: the first close of 50 connections makes V8 drop optimized
 * code of Node's HTTP internals, and its recompilation belongs to start-up,
 * not to the first measured round's p99. Then the rounds.
 */
export async function loadScenario(
  targets: Target[],
  url: string,
  s: LoadSettings,
  progress: (line: string) => void,
): Promise<Partial<Record<TargetName, TargetSummary>>> {
  const runs = new Map<TargetName, Measured[]>(targets.map((t) => [t.name, []]));
  const warm = new Map<TargetName, Measured[]>(targets.map((t) => [t.name, []]));
  for (const t of targets)
    for (let i = 0; i < s.warmupSeconds; i++) warm.get(t.name)!.push(await measure(t, url, 1, s));
  for (let r = 0; r < s.rounds; r++)
    for (const t of roundOrder(targets, r)) {
      const m = await measure(t, url, s.seconds, s);
      runs.get(t.name)!.push(m);
      const rps = Math.round(m.rps).toLocaleString('en').padStart(7);
      const errors = m.socketErrors + m.non2xx ? `  ${m.socketErrors + m.non2xx} errors/non-2xx` : '';
      const p99 = `p99 ${(m.p99Us / 1000).toFixed(2)} ms`;
      progress(
        `    round ${r + 1}/${s.rounds} ${t.name.padEnd(23)} ${rps} req/s  ${m.cpuUs} µs CPU/answer  ${p99}${errors}`,
      );
    }
  const out: Partial<Record<TargetName, TargetSummary>> = {};
  for (const t of targets) {
    const measured = runs.get(t.name)!;
    const all = [...warm.get(t.name)!, ...measured];
    const sum = (f: (m: Measured) => number, list = all) => list.reduce((n, m) => n + f(m), 0);
    const mid = (f: (m: Measured) => number) => median(measured.map(f));
    out[t.name] = {
      rps: Math.round(mid((m) => m.rps)),
      cpuUs: tenth(mid((m) => m.cpuUs)),
      p50Us: mid((m) => m.p50Us),
      p99Us: mid((m) => m.p99Us),
      requests: sum((m) => m.requests, measured),
      socketErrors: sum((m) => m.socketErrors),
      non2xx: sum((m) => m.non2xx),
      peakRssKb: peakRssKb(t.proc.pid),
      rounds: measured.map((m) => ({ rps: Math.round(m.rps), p99Us: m.p99Us, cpuUs: m.cpuUs })),
    };
  }
  return out;
}
