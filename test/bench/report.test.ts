/**
 * The bench's report judges the targets from the figures measured in the run
 * (bench/report.ts judge): the hot path on CPU per answer against the
 * same-headers server, as the median of the rounds' own ratios; what a run
 * left out is SKIP, never FAIL; and `npm run bench`'s options.
 */
import { describe, expect, it } from 'vitest';
import type { TargetSummary } from '../../bench/load.js';
import { parseOptions } from '../../bench/options.js';
import { type BenchReport, judge, markdownReport } from '../../bench/report.js';

function target(cpuUs: number[]): TargetSummary {
  const rounds = cpuUs.map((c) => ({ cpuUs: c, rps: 1_000, p99Us: 5_000 }));
  const counts = { p50Us: 1_000, requests: 1, socketErrors: 0, non2xx: 0, peakRssKb: 100_000 };
  return { ...rounds[1]!, ...counts, rounds };
}

function report(over: Partial<BenchReport> = {}): Omit<BenchReport, 'targets'> {
  const settings = { durationSeconds: 1, warmupSeconds: 1, rounds: 3, pinning: 'taskset' };
  const machine = { cpus: 2, cpuModel: 'x', memoryGiB: 4, kernel: '6' };
  const run = {
    date: '2026-11-28T00:00:00.000Z',
    mode: 'quick',
    wallSeconds: 60,
    settings,
    machine,
  } as const;
  const commit = { sha: 'abc123', dirty: false };
  const figures = { loadAverage: { start: 1, end: 1 }, versions: {}, scenarios: [], checks: [] };
  return { ...run, commit, command: 'npm run bench -- --quick', ...figures, ...over };
}

const line = (r: Omit<BenchReport, 'targets'>, start: string) =>
  judge(r).find((t) => t.target.startsWith(start))!;

describe('the bench report', () => {
  it('judges the hot path on CPU per answer against the same-headers server, the median of the rounds’ ratios', () => {
    const latest = (service: number[]) => {
      const targets = { service: target(service), 'node:http, same headers': target([14, 19, 15]) };
      return report({
        scenarios: [{ id: 'latest', title: '/v1/rates/latest, embedded', targets }],
      });
    };
    // Rounds 0.70, 0.76, 0.68: a median of 0.70 where the medians' ratio, 15 / 22, would say 0.68.
    const passing = line(latest([20, 25, 22]), '/v1/rates/latest, embedded: CPU');
    expect(passing).toMatchObject({
      verdict: 'PASS',
      measured: expect.stringMatching(/^0\.70× \(rounds 0\.70, 0\.76, 0\.68\)/),
    });
    expect(line(latest([22, 30, 24]), '/v1/rates/latest, embedded: CPU').verdict).toBe('FAIL');
    expect(line(latest([22, 30, 24]), '/v1/rates/latest, embedded: p99').verdict).toBe('PASS');
  });

  it('judges a run’s parts left out as not run, never as failures, and says why PostgreSQL was left out', () => {
    const r = report({
      only: ['startup'],
      startup: { runsMs: [700], medianMs: 700 },
      scaleOutSkipped: 'left out (--only)',
    });
    const targets = judge(r);
    expect(targets.filter((t) => t.verdict === 'FAIL')).toEqual([]);
    expect(targets.filter((t) => t.verdict === 'PASS').map((t) => t.target)).toEqual([
      'Spawn of `mds serve` to the first 200, two-year sample',
    ]);
    expect(line(r, '/v1/rates/latest, PostgreSQL + Redis: req').measured).toBe('not run: left out (--only)');
  });

  it('writes only what the run measured, with the commit', () => {
    const r = report({ commit: { sha: 'abc123', dirty: true, changes: ['bench/run.ts'] } });
    const md = markdownReport({ ...r, targets: judge(r) });
    expect(md).toContain('abc123 with uncommitted changes (bench/run.ts)');
    expect(md).toContain('npm run bench -- --quick');
    expect(md).not.toMatch(/performance-notes/);
  });

  it('parses --quick, --only, --skip-postgres and --output, and refuses an unknown part', () => {
    const o = parseOptions(['--quick', '--only', 'latest,cli', '--skip-postgres', '--output', '/tmp/x']);
    expect(o).toMatchObject({ quick: true, duration: 1, rounds: 3, postgres: false, output: '/tmp/x' });
    expect(o !== 'help' && [...(o.only ?? [])]).toEqual(['latest', 'cli']);
    expect(() => parseOptions(['--only', 'soak'])).toThrow(/unknown part\(s\) soak/);
    expect(parseOptions(['-h'])).toBe('help');
  });
});
