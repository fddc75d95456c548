/**
 * One scenario under load: the service and the two reference servers, each
 * loaded in turn with the same wrk settings and the same request (key
 * included), warm-up first, then interleaved rounds in orders that change
 * each target's predecessor from round to round (roundOrder), each round's
 * load taken in short slices alternated between the targets (loadScenario), so
 * that a noisy moment hurts every target alike and none always follows the
 * same neighbour.
 */
import { cpuSeconds, type Spawned, sampleRss } from './proc.js';
import { type Measured, mergeSlices, sliceOrder } from './slices.js';
import { runWrk } from './wrk.js';

/**
 * `node:http, same headers`: node:http sending the service's own headers too
 * (bench/reference-http.ts), loaded on /v1/rates/latest only.
 */
export const TARGETS = [
  'service',
  'node:http',
  'fastify',
  'node:http, same headers',
  'node:http, Redis + commit per tick',
  'node:http, commit per tick',
] as const;
export type TargetName = (typeof TARGETS)[number];

/** A scenario's figures: each target's summary over its rounds, for the report (bench/report.ts). */
export interface ScenarioReport {
  id: string;
  title: string;
  url: string;
  store: 'sqlite' | 'postgres+redis' | 'postgres';
  bodyBytes: number;
  /** Records in `data` when it is a list. */
  records?: number;
  targets: Partial<Record<TargetName, TargetSummary>>;
}

/** A check that the run measured what it says (wrk kept up, the references sent the service's bytes). */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Target {
  name: TargetName;
  /** http://127.0.0.1:<port> */
  origin: string;
  proc: Spawned;
}

export interface LoadSettings {
  wrk: string;
  key: string;
  /** Seconds each target is loaded in a round. */
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  /**
   * The slices each target's seconds of a round are taken in (it divides
   * `seconds`; 1 or absent: one run). See `loadScenario`.
   */
  slices?: number;
  connections: number;
  threads: number;
  generatorCpus?: string;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface TargetSummary {
  rps: Spread;
  /** Medians over the rounds, µs. */
  p50Us: number;
  p99Us: number;
  requests: number;
  /** Over warm-up and rounds. */
  socketErrors: number;
  non2xx: number;
  /** Peak VmRSS sampled during this scenario's runs, kB. */
  peakRssKb: number;
  /** The most CPU the generator used in a measured round, in cores (WrkResult.generatorCores). */
  generatorCoresMax: number;
  /**
   * The target's own CPU (user + system, /proc) per answer, µs, median over
   * the rounds: what an answer costs the server, which other processes on the
   * shared machine change far less than they change requests/s (absent from
   * older reports).
   */
  serverUsPerRequest?: number;
  rounds: Array<{ rps: number; p50Us: number; p99Us: number; requests: number; serverUsPerRequest?: number }>;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const tenth = (x: number) => Math.round(x * 10) / 10;

function spread(values: number[]): Spread {
  return { median: tenth(median(values)), min: tenth(Math.min(...values)), max: tenth(Math.max(...values)) };
}

/** µs of the target's CPU per answer of one run. */
function usPerRequest(m: Measured): number | undefined {
  if (m.serverCpuSeconds === undefined || m.result.requests <= 0) return undefined;
  return Math.round((m.serverCpuSeconds / m.result.requests) * 1e7) / 10;
}

async function measure(target: Target, url: string, seconds: number, s: LoadSettings): Promise<Measured> {
  const rss = sampleRss(target.proc.pid);
  const cpuBefore = cpuSeconds(target.proc.pid);
  try {
    const result = await runWrk({
      wrk: s.wrk,
      url: `${target.origin}${url}`,
      headers: { Authorization: `Bearer ${s.key}` },
      seconds,
      connections: s.connections,
      threads: s.threads,
      cpus: s.generatorCpus,
    });
    const cpuAfter = cpuSeconds(target.proc.pid);
    const serverCpuSeconds =
      cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    return { result, peakRssKb: rss.stop(), serverCpuSeconds };
  } catch (err) {
    rss.stop();
    const { child } = target.proc;
    const gone = child.exitCode !== null || child.signalCode !== null;
    throw new Error(
      `${target.name} ${url}: ${(err as Error).message}` +
        (gone
          ? `\n${target.name} (pid ${target.proc.pid}) exited: ${child.exitCode ?? child.signalCode}` +
            `${child.exitCode === 0 ? ' (a graceful stop: a SIGTERM or SIGINT from outside the bench)' : ''}; its output:\n${target.proc.output()}`
          : ''),
    );
  }
}

/**
 * Warms each target on `url` (errors still count) with one-second runs, so
 * that its connections open and close between them, as a server's do in use.
 *
 * Why not one long run: the first time a server's 50 connections close, V8
 * throws away the optimized code of about 30 functions of Node's HTTP and
 * stream internals (`--trace-deopt`: "marking dependent code … reason: code
 * dependencies", the closing sockets change object shapes that code was
 * compiled for), and the next run recompiles them on the loop: 50–65
 * optimizing compilations of 1–10 ms each in the first measured round after a
 * single long warm-up, 13–18 after one-second runs (`--trace-opt`). Those
 * pauses are a start-up cost, not the steady state the rounds measure, and
 * they landed in the p99 of whichever scenario came first.
 */
export async function warmUp(
  targets: Target[],
  url: string,
  s: LoadSettings,
): Promise<Map<TargetName, Measured[]>> {
  const out = new Map<TargetName, Measured[]>();
  if (s.warmupSeconds <= 0) return out;
  for (const t of targets) {
    const runs: Measured[] = [];
    for (let i = 0; i < s.warmupSeconds; i++) runs.push(await measure(t, url, 1, s));
    out.set(t.name, runs);
  }
  return out;
}

/**
 * The order of round `r`: rows of a Williams design (0, 1, n-1, 2, n-2, …, plus
 * r), in which, for an even count, every target follows every other once
 * before any pair repeats. Rotating one fixed order, as the bench once did,
 * keeps every target behind the same neighbour in every round: the
 * `same headers` reference then always ran right after Fastify.
 */
export function roundOrder<T>(items: T[], r: number): T[] {
  const n = items.length;
  const base: number[] = [];
  for (let i = 0, lo = 1, hi = n - 1; i < n; i++) base.push(i === 0 ? 0 : i % 2 ? lo++ : hi--);
  const order = base.map((b) => items[(b + r) % n] as T);
  // With an odd count the rows alone repeat neighbours; mirroring every other one varies them.
  return n % 2 === 1 && r % 2 === 1 ? order.reverse() : order;
}

/**
 * Loads every target for `s.seconds` in each of `s.rounds` rounds, in the
 * round's order (roundOrder), each target's seconds taken in `s.slices`
 * slices: the first slice of every target in that order, the second in the
 * reverse order, and so on; a round's slices of one target are then merged
 * into its run of that round (bench/slices.ts). Why slices: this machine's speed
 * was measured to change by up to twice for tens of seconds at a time (a
 * reference alone at 49–50 µs of CPU an answer for 25 s, then 36–39 µs;
 * docs/performance-notes.md, "a machine that changes speed"), and with four
 * targets of one 5-s run each, two targets a ratio compares ran up to 15 s
 * apart in a round. In one-second slices they run at most three seconds apart,
 * each meeting the same moments of the machine (decision 78).
 */
export async function loadScenario(
  targets: Target[],
  url: string,
  s: LoadSettings,
  /** Whether a target is warmed before the rounds (a fresh reference always is; bench/run.ts). */
  warm: (t: Target) => boolean,
  progress: (line: string) => void,
): Promise<Partial<Record<TargetName, TargetSummary>>> {
  const warmups = await warmUp(targets.filter(warm), url, s);
  const runs = new Map<TargetName, Measured[]>(targets.map((t) => [t.name, []]));
  const slices = s.slices ?? 1;
  for (let r = 0; r < s.rounds; r++) {
    const order = roundOrder(targets, r);
    const taken = new Map<TargetName, Measured[]>(targets.map((t) => [t.name, []]));
    for (let k = 0; k < slices; k++) {
      for (const t of sliceOrder(order, k))
        taken.get(t.name)?.push(await measure(t, url, s.seconds / slices, s));
    }
    for (const t of order) {
      const m = mergeSlices(taken.get(t.name) ?? []);
      runs.get(t.name)?.push(m);
      progress(
        `    round ${r + 1}/${s.rounds} ${t.name.padEnd(9)} ${Math.round(m.result.rps).toLocaleString('en').padStart(7)} req/s` +
          `  p99 ${(m.result.latencyUs.p99 / 1000).toFixed(2)} ms` +
          `  wrk ${Math.round(m.result.generatorCores * 100)} % CPU` +
          (usPerRequest(m) === undefined ? '' : `  server ${usPerRequest(m)?.toFixed(1)} µs CPU/answer`) +
          (m.result.socketErrors || m.result.non2xx
            ? `  errors ${m.result.socketErrors}, non-2xx ${m.result.non2xx}`
            : ''),
      );
    }
  }
  const out: Partial<Record<TargetName, TargetSummary>> = {};
  for (const t of targets) {
    const measured = runs.get(t.name) ?? [];
    const perRequest = measured.map(usPerRequest).filter((x): x is number => x !== undefined);
    const all = [...(warmups.get(t.name) ?? []), ...measured];
    out[t.name] = {
      rps: spread(measured.map((m) => m.result.rps)),
      p50Us: median(measured.map((m) => m.result.latencyUs.p50)),
      p99Us: median(measured.map((m) => m.result.latencyUs.p99)),
      requests: measured.reduce((n, m) => n + m.result.requests, 0),
      socketErrors: all.reduce((n, m) => n + m.result.socketErrors, 0),
      non2xx: all.reduce((n, m) => n + m.result.non2xx, 0),
      peakRssKb: Math.max(0, ...all.map((m) => m.peakRssKb)),
      generatorCoresMax: Math.round(Math.max(0, ...measured.map((m) => m.result.generatorCores)) * 100) / 100,
      ...(perRequest.length === measured.length && perRequest.length > 0
        ? { serverUsPerRequest: Math.round(median(perRequest) * 10) / 10 }
        : {}),
      rounds: measured.map((m) => ({
        rps: Math.round(m.result.rps),
        p50Us: m.result.latencyUs.p50,
        p99Us: m.result.latencyUs.p99,
        requests: m.result.requests,
        ...(usPerRequest(m) === undefined ? {} : { serverUsPerRequest: usPerRequest(m) }),
      })),
    };
  }
  return out;
}

/** At or above this share of its threads' cores, the generator is taken as the limit of a run. */
export const GENERATOR_SATURATED = 0.9;

/**
 * Whether any measured run was limited by wrk rather than by its target: a
 * ratio between two targets means something only while the generator keeps up
 * with both (bench/wrk-report.lua tells how the generator once did not).
 */
export function generatorCheck(
  scenarios: Array<Pick<ScenarioReport, 'title' | 'targets'>>,
  threads: number,
): Check {
  const busy: string[] = [];
  let most = 0;
  for (const s of scenarios)
    for (const [name, t] of Object.entries(s.targets)) {
      if (!t) continue;
      most = Math.max(most, t.generatorCoresMax);
      if (t.generatorCoresMax >= GENERATOR_SATURATED * threads)
        busy.push(`${s.title}, ${name}: ${Math.round(t.generatorCoresMax * 100)} %`);
    }
  return {
    name: `the load generator kept up (wrk below ${GENERATOR_SATURATED * 100} % of its ${threads} core(s) in every measured run)`,
    ok: busy.length === 0,
    detail: busy.length
      ? `saturated in ${busy.join('; ')}: those figures measure wrk, not the target`
      : `at most ${Math.round(most * 100)} % of one core`,
  };
}
