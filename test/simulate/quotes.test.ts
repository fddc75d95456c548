/**
 * The simulator's quotes (docs/decisions.md 118), with no clock: the same
 * seed gives the same stream, another seed another; every reporter quotes
 * every market, in time order, at intervals around the mean; honest quotes
 * stay near the base, rogue ones at their offset, colluding ones together.
 */
import { describe, expect, it } from 'vitest';
import { parseBase, parseDuration, parseGroup, parsePercent } from '../../src/simulate/options.js';
import {
  mulberry32,
  organisationsOf,
  type SimulationSpec,
  simulatedQuotes,
  specProblem,
} from '../../src/simulate/quotes.js';

const spec: SimulationSpec = {
  seed: 42,
  markets: ['EUR', 'USD'],
  organisations: 8,
  reportersPerOrganisation: 1,
  noise: 0.003,
  rogue: { count: 1, offset: 0.1 },
  collude: { count: 2, offset: 0.05 },
  intervalMs: 1_000,
  base: { EUR: { buy: 260, sell: 262 }, USD: { buy: 230, sell: 232 } },
};
const HOUR = 3_600_000;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describe('the simulated quotes', () => {
  it('mulberry32 is the published generator: the same seed, the same numbers in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    // The reference implementation's first output for seed 1.
    expect(mulberry32(1)()).toBeCloseTo(0.6270739405881613, 15);
  });

  it('is the same for the same seed and differs for another', () => {
    const one = [...simulatedQuotes(spec, 60_000)];
    expect([...simulatedQuotes(spec, 60_000)]).toEqual(one);
    expect([...simulatedQuotes({ ...spec, seed: 43 }, 60_000)]).not.toEqual(one);
    // A shorter run is the start of a longer one.
    expect([...simulatedQuotes(spec, 10_000)]).toEqual(one.filter((q) => q.atMs < 10_000));
  });

  it('sends every reporter’s every market in time order, about once an interval', () => {
    const quotes = [...simulatedQuotes({ ...spec, reportersPerOrganisation: 2 }, 100_000)];
    for (let i = 1; i < quotes.length; i++)
      expect(quotes[i]!.atMs).toBeGreaterThanOrEqual(quotes[i - 1]!.atMs);
    const streams = new Map<string, number[]>();
    for (const q of quotes) {
      const key = `${q.organisation}/${q.reporter}/${q.market}`;
      streams.set(key, [...(streams.get(key) ?? []), q.atMs]);
    }
    expect(streams.size).toBe(8 * 2 * 2);
    for (const times of streams.values()) {
      expect(times[0]).toBeLessThan(1_000);
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(499);
        expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(1_501);
      }
      expect(times.length).toBeGreaterThan(80);
      expect(times.length).toBeLessThan(120);
    }
  });

  it('puts honest quotes near the base, colluders together at their offset, the rogue at its own', () => {
    expect(organisationsOf(spec).map((o) => o.role)).toEqual([
      ...Array(5).fill('honest'),
      'colluding',
      'colluding',
      'rogue',
    ]);
    // The first quotes, before the price has wandered.
    const quotes = [...simulatedQuotes(spec, 1_000)];
    const eur = (role: number[]) =>
      quotes.filter((q) => q.market === 'EUR' && role.includes(q.organisation)).map((q) => q.buy);
    const honest = eur([1, 2, 3, 4, 5]);
    for (const buy of honest) expect(Math.abs(buy / 260 - 1)).toBeLessThan(0.015);
    expect(median(eur([6, 7])) / median(honest)).toBeCloseTo(1.05, 1);
    expect(eur([8])[0]! / median(honest)).toBeCloseTo(1.1, 1);
    for (const q of quotes) {
      expect(q.sell).toBeGreaterThanOrEqual(q.buy);
      expect(Math.round(q.buy * 100) / 100).toBe(q.buy);
    }
    // Colluders share one draw per market: their quotes differ by the price's wander only.
    const [six, seven] = [6, 7].map(
      (o) => quotes.find((q) => q.market === 'EUR' && q.organisation === o)!.buy,
    );
    expect(Math.abs(six! - seven!) / six!).toBeLessThan(0.003);
  });

  it('stays near its base over an hour: the wander is small', () => {
    const honest = [...simulatedQuotes({ ...spec, intervalMs: 30_000 }, HOUR)].filter(
      (q) => q.organisation <= 5 && q.market === 'USD',
    );
    for (const q of honest) expect(Math.abs(q.buy / 230 - 1)).toBeLessThan(0.05);
  });

  it('with seed 1 and a 2 s interval, the rogue quotes each market a second before the fifth honest organisation', () => {
    // test/cli/simulate.test.ts counts on it: its one point per market then holds the rogue.
    const first = new Map<string, number>();
    for (const q of simulatedQuotes({ ...spec, seed: 1, intervalMs: 2_000 }, 5_000))
      if (!first.has(`${q.market}/${q.organisation}`)) first.set(`${q.market}/${q.organisation}`, q.atMs);
    for (const m of spec.markets) {
      const fifth = Math.max(...[1, 2, 3, 4, 5].map((o) => first.get(`${m}/${o}`)!));
      expect(fifth - first.get(`${m}/8`)!).toBeGreaterThan(1_000);
    }
  });

  it('refuses a spec it cannot run, naming the option', () => {
    expect(specProblem({ ...spec, organisations: 2 })).toContain('raise --organisations');
    expect(specProblem({ ...spec, markets: ['EUR', 'GBP'] })).toContain('--base GBP=260');
    expect(specProblem(spec)).toBeNull();
  });

  it('reads its options, or names the value and the form to write', () => {
    expect(parseDuration('--duration', '10m')).toEqual({ ok: true, value: 600_000 });
    expect(parseDuration('--interval', '250ms')).toEqual({ ok: true, value: 250 });
    expect(parseDuration('--duration', '10 minutes')).toMatchObject({
      ok: false,
      message: expect.stringContaining('write e.g. 10m'),
    });
    expect(parsePercent('--noise', '0.3%', false)).toEqual({ ok: true, value: 0.003 });
    expect(parsePercent('--noise', '-1%', false).ok).toBe(false);
    expect(parseGroup('--rogue', '1:+10%')).toEqual({ ok: true, value: { count: 1, offset: 0.1 } });
    expect(parseGroup('--collude', '2:-5%')).toEqual({ ok: true, value: { count: 2, offset: -0.05 } });
    expect(parseGroup('--rogue', '+10%')).toMatchObject({
      ok: false,
      message: expect.stringContaining('"+10%" is not COUNT:OFFSET'),
    });
    expect(parseBase('EUR=260, USD=229.5/231')).toEqual({
      ok: true,
      value: { EUR: { buy: 260, sell: 262.6 }, USD: { buy: 229.5, sell: 231 } },
    });
    expect(parseBase('EUR=262/260')).toMatchObject({
      ok: false,
      message: expect.stringContaining('sell at least buy'),
    });
  });
});
