/**
 * The bench's load generator must not be what a run measures
 * (bench/wrk-report.lua says how it once was): wrk's CPU is read from the
 * shell's `times`, and a run where wrk kept its core busy fails a check.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generatorCheck, type TargetSummary } from '../../bench/load.js';
import { childCpuSeconds } from '../../bench/wrk.js';

const target = (generatorCoresMax: number) => ({ generatorCoresMax }) as TargetSummary;

describe('the load generator check', () => {
  it('reads the children’s user and system seconds from what `times` printed last', () => {
    expect(childCpuSeconds('BENCH_JSON {}\n0m0.010000s 0m0.020000s\n1m2.500000s 0m0.250000s\n')).toBeCloseTo(
      62.75,
    );
    expect(() => childCpuSeconds('BENCH_JSON {}\n')).toThrow(/no CPU times/);
    // The same shell line the bench runs: a busy child shows its CPU.
    const out = execFileSync(
      'sh',
      [
        '-c',
        '"$@"; s=$?; times; exit $s',
        'sh',
        process.execPath,
        '-e',
        'const t=Date.now(); while (Date.now() - t < 300);',
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(childCpuSeconds(out)).toBeGreaterThan(0.2);
  });

  it('fails when wrk used 90 % or more of its cores in any measured run, naming the run', () => {
    const ok = generatorCheck(
      [{ title: '/v1/rates/latest', targets: { service: target(0.62), 'node:http': target(0.8) } }],
      1,
    );
    expect(ok.ok).toBe(true);
    expect(ok.detail).toBe('at most 80 % of one core');
    const busy = generatorCheck(
      [
        {
          title: '/v1/rates/latest',
          targets: { service: target(0.6), 'node:http, same headers': target(0.97) },
        },
      ],
      1,
    );
    expect(busy.ok).toBe(false);
    expect(busy.detail).toContain('/v1/rates/latest, node:http, same headers: 97 %');
    // Two threads may use two cores.
    expect(generatorCheck([{ title: 'x', targets: { service: target(1.5) } }], 2).ok).toBe(true);
  });
});
