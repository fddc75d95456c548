/**
 * A round's load in slices: each target's seconds of a round are taken in
 * short runs alternated between the targets (bench/load.ts loadScenario), and
 * merged here into the target's run of that round (decision 78).
 */
import type { WrkResult } from './wrk.js';

/** One load run of one target: what wrk measured, and the target's RSS and CPU meanwhile. */
export interface Measured {
  result: WrkResult;
  peakRssKb: number;
  /** The target's CPU seconds over the run, when /proc had them. */
  serverCpuSeconds?: number;
}

type Distribution = { requests: number; quantiles: ReadonlyArray<[number, number]> };

/**
 * The answers of several runs pooled by value, from each run's answer count
 * and its distribution on wrk-report.lua's grid: each grid point stands for
 * the answers between it and the point before.
 */
interface Pool {
  /** [value µs, answers], by value. */
  points: Array<[number, number]>;
  total: number;
}

function pool(runs: readonly Distribution[]): Pool {
  const points: Array<[number, number]> = [];
  let total = 0;
  for (const run of runs) {
    if (run.requests <= 0 || run.quantiles.length === 0) continue;
    total += run.requests;
    let before = 0;
    for (const [at, value] of run.quantiles) {
      points.push([value, (run.requests * (at - before)) / 100]);
      before = at;
    }
  }
  points.sort((a, b) => a[0] - b[0]);
  return { points, total };
}

function percentileOf({ points, total }: Pool, p: number): number {
  if (total === 0) return 0;
  // The grid's fractions add up in floating point: a rank met to within a
  // billionth of the answers is met.
  const rank = (p / 100) * total - total * 1e-9;
  let seen = 0;
  for (const [value, answers] of points) {
    seen += answers;
    if (seen >= rank) return value;
  }
  return points.at(-1)?.[0] ?? 0;
}

/**
 * The `p`th percentile (0–100] of the answers of several runs together (their
 * grid points pooled by value). Of one run, it gives back that run's own
 * figure at every grid point (its p50 and p99 are wrk's own).
 */
export function mergeQuantiles(runs: readonly Distribution[], p: number): number {
  return percentileOf(pool(runs), p);
}

/**
 * One target's slices of a round as one run: answers, seconds, bytes, errors
 * and its CPU added up, so its rate is its answers over its seconds; the
 * generator's CPU share weighted by seconds; the latency percentiles those of
 * all its answers (mergeQuantiles); peak RSS the highest. One slice is itself.
 */
export function mergeSlices(slices: readonly Measured[]): Measured {
  if (slices.length === 1) return slices[0] as Measured;
  const results = slices.map((m) => m.result);
  const sum = (f: (r: WrkResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const requests = sum((r) => r.requests);
  const seconds = sum((r) => r.seconds);
  const answers = pool(results);
  const quantiles: Array<[number, number]> = (
    results.find((r) => r.quantiles.length > 0)?.quantiles ?? []
  ).map(([p]) => [p, percentileOf(answers, p)]);
  const cpu = slices.map((m) => m.serverCpuSeconds);
  return {
    result: {
      requests,
      seconds,
      rps: seconds > 0 ? requests / seconds : 0,
      bytes: sum((r) => r.bytes),
      socketErrors: sum((r) => r.socketErrors),
      non2xx: sum((r) => r.non2xx),
      generatorCores: seconds > 0 ? sum((r) => r.generatorCores * r.seconds) / seconds : 0,
      latencyUs: {
        p50: percentileOf(answers, 50),
        p90: percentileOf(answers, 90),
        p99: percentileOf(answers, 99),
        max: Math.max(...results.map((r) => r.latencyUs.max)),
        mean: requests > 0 ? sum((r) => r.latencyUs.mean * r.requests) / requests : 0,
      },
      quantiles,
    },
    peakRssKb: Math.max(...slices.map((m) => m.peakRssKb)),
    ...(cpu.every((c) => c !== undefined) ? { serverCpuSeconds: cpu.reduce((n, c) => n + c, 0) } : {}),
  };
}

/** The order of slice `k` of a round: the round's order, reversed every other slice. */
export function sliceOrder<T>(order: readonly T[], k: number): T[] {
  return k % 2 === 0 ? [...order] : [...order].reverse();
}
