/**
 * A round's load is taken in slices alternated between the targets, and each
 * target's slices are merged into its run of the round (bench/load.ts,
 * decision 78). The merge must give the rate of all the slices' answers over
 * all their seconds, and the latency percentiles of all their answers, not a
 * statistic of the slices' own percentiles. No load is generated here.
 */
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/options.js';
import { type Measured, mergeQuantiles, mergeSlices, sliceOrder } from '../../bench/slices.js';
import type { WrkResult } from '../../bench/wrk.js';

/** bench/wrk-report.lua's grid: every 1 % to 95, every 0.05 % above, the maximum last. */
const GRID: number[] = [
  ...Array.from({ length: 95 }, (_, i) => i + 1),
  ...Array.from({ length: 99 }, (_, i) => (9500 + 5 * (i + 1)) / 100),
  100,
];

/** wrk's own percentile (stats.c): the smallest value whose count reaches round(p/100·n + 0.5). */
function wrkPercentile(sorted: number[], p: number): number {
  if (p === 100) return sorted.at(-1) ?? 0;
  const rank = Math.round((p / 100) * sorted.length + 0.5);
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

/** A run as wrk-report.lua reports it, from its answers' latencies in µs. */
function run(latencies: number[], seconds = 1, cpu?: number, rss = 1000): Measured {
  const sorted = [...latencies].sort((a, b) => a - b);
  const result: WrkResult = {
    requests: sorted.length,
    seconds,
    rps: sorted.length / seconds,
    bytes: sorted.length * 100,
    socketErrors: 0,
    non2xx: 0,
    generatorCores: 0.5,
    latencyUs: {
      p50: wrkPercentile(sorted, 50),
      p90: wrkPercentile(sorted, 90),
      p99: wrkPercentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
      mean: sorted.reduce((n, x) => n + x, 0) / sorted.length,
    },
    quantiles: GRID.map((p) => [p, wrkPercentile(sorted, p)]),
  };
  return { result, peakRssKb: rss, ...(cpu === undefined ? {} : { serverCpuSeconds: cpu }) };
}

/** Deterministic latencies: a body around `base` µs and a tail to about 10× it. */
function latencies(n: number, base: number, seed: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const u = x / 2147483648;
    out.push(Math.round(base * (u < 0.97 ? 0.5 + u : 1.5 + (u - 0.97) * 300)));
  }
  return out;
}

describe('merging a target’s slices of a round', () => {
  it('gives back one run’s own percentiles at every grid point', () => {
    const one = run(latencies(30_000, 1_500, 7));
    for (const [p, value] of one.result.quantiles) expect(mergeQuantiles([one.result], p)).toBe(value);
    expect(mergeSlices([one])).toBe(one);
  });

  it('weighs each slice by its answers', () => {
    const fast = run(Array(900).fill(1_000));
    const slow = run(Array(100).fill(5_000));
    const both = [fast.result, slow.result];
    expect(mergeQuantiles(both, 50)).toBe(1_000);
    expect(mergeQuantiles(both, 90)).toBe(1_000);
    expect(mergeQuantiles(both, 90.05)).toBe(5_000);
    expect(mergeQuantiles(both, 99)).toBe(5_000);
    // The median of the two slices' p99s would say 3,000 µs: no answer took that long.
    expect(mergeSlices([fast, slow]).result.latencyUs.p99).toBe(5_000);
  });

  it('puts the merged p99 where the p99 of all the answers together is', () => {
    // Five slices of one round, a slow one among them, as a machine that changes speed gives.
    const slices = [
      latencies(30_000, 1_500, 1),
      latencies(31_000, 1_400, 2),
      latencies(18_000, 2_600, 3),
      latencies(29_000, 1_550, 4),
      latencies(30_500, 1_450, 5),
    ];
    const merged = mergeSlices(slices.map((l) => run(l))).result;
    const all = slices.flat().sort((a, b) => a - b);
    for (const p of [50, 90, 99]) {
      const got = merged.latencyUs[`p${p}` as 'p50' | 'p90' | 'p99'];
      // Within the answers a grid step holds: between the pooled p−0.05 and p+0.05 (p−1 and p+1 below 95).
      const step = p >= 95 ? 0.05 : 1;
      expect(got).toBeGreaterThanOrEqual(wrkPercentile(all, p - step));
      expect(got).toBeLessThanOrEqual(wrkPercentile(all, p + step));
    }
    expect(merged.latencyUs.max).toBe(all.at(-1));
  });

  it('adds answers, seconds and CPU, so the rate is all the answers over all the seconds', () => {
    const a = run(Array(30_000).fill(1_000), 1, 0.9, 1_200);
    const b = run(Array(18_000).fill(2_000), 1, 0.95, 1_400);
    const m = mergeSlices([a, b, a]);
    expect(m.result.requests).toBe(78_000);
    expect(m.result.seconds).toBe(3);
    expect(m.result.rps).toBe(26_000);
    expect(m.serverCpuSeconds).toBeCloseTo(2.75);
    expect(m.peakRssKb).toBe(1_400);
    expect(m.result.latencyUs.mean).toBeCloseTo((60_000 * 1_000 + 18_000 * 2_000) / 78_000);
    // The CPU per answer is not known for a round if one slice lacked it.
    expect(mergeSlices([a, run(Array(10).fill(1_000))]).serverCpuSeconds).toBeUndefined();
  });

  it('alternates the order of the slices: the round’s order, then reversed', () => {
    expect(sliceOrder(['s', 'h', 'f', 'same'], 0)).toEqual(['s', 'h', 'f', 'same']);
    expect(sliceOrder(['s', 'h', 'f', 'same'], 1)).toEqual(['same', 'f', 'h', 's']);
    expect(sliceOrder(['s', 'h', 'f', 'same'], 4)).toEqual(['s', 'h', 'f', 'same']);
  });
});

describe('--slices', () => {
  it('defaults to one a second of --duration, and must divide it', () => {
    const full = parseOptions([]);
    expect(full !== 'help' && [full.duration, full.slices]).toEqual([5, 5]);
    const quick = parseOptions(['--quick']);
    expect(quick !== 'help' && [quick.duration, quick.slices]).toEqual([1, 1]);
    const one = parseOptions(['--slices', '1']);
    expect(one !== 'help' && one.slices).toBe(1);
    expect(() => parseOptions(['--duration', '5', '--slices', '2'])).toThrow(
      /--slices 2: must divide --duration 5 .*try --slices 5 or 1/,
    );
  });
});
