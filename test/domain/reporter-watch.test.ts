/**
 * Each quote judged on its own against the point in force (docs/decisions.md
 * 116, 117), on hand-computed cases.
 *
 * The point P at T has four organisations (buy, sell): (258, 262), (259, 261),
 * (260, 262), (261, 263). Buys: median 259.5, MAD 1, threshold
 * max(5.1891 × 1, 1.5 % × 259.5 = 3.8925) = 5.1891. Mids 260, 260, 261, 262:
 * median 260.5, MAD 0.5, threshold max(2.59455, 3.9075) = 3.9075. Sells:
 * median 262, MAD 0.5, threshold max(2.59455, 3.93) = 3.93. P published
 * buy 259.5, sell 262: mid 260.75.
 */
import { describe, expect, it } from 'vitest';
import {
  isFlagged,
  type Judgement,
  type JudgingPoint,
  judgeQuotes,
  pointInForce,
  statisticsOf,
  type WatchedQuote,
} from '../../src/domain/reporter-watch.js';

const T = Date.parse('2026-11-28T12:00:00Z');
const HOUR = 3_600_000;
const micros = (v: number) => Math.round(v * 1_000_000);
const P: JudgingPoint = {
  at: T,
  buy: micros(259.5),
  sell: micros(262),
  inputs: [
    [258, 262],
    [259, 261],
    [260, 262],
    [261, 263],
  ].map(([buy, sell]) => ({ buy: micros(buy!), sell: micros(sell!) })),
};
const points = new Map([['EUR', [P]]]);

let seq = 0;
const quote = (
  buy: number,
  sell: number,
  at = T + 60_000,
  extra: Partial<WatchedQuote> = {},
): WatchedQuote => ({
  id: `q${++seq}`,
  market: 'EUR',
  buy: micros(buy),
  sell: micros(sell),
  observedAt: at,
  receivedAt: at,
  ...extra,
});
const judge = (q: WatchedQuote) => judgeQuotes([q], points)[0]!;

describe('a quote judged on its own', () => {
  it('passes near the consensus, with its signed deviation from the published mid', () => {
    // Mid 260.5: (260.5 − 260.75) / 260.75 × 100 = −0.0959 %.
    const j = judge(quote(260, 261));
    expect(j).toMatchObject({ pointAt: T, failed: false });
    expect(j.deviationPercent).toBeCloseTo(-0.0959, 4);
  });

  it('fails on its mid, on its buy alone, or on its sell alone; exactly at a threshold it stays', () => {
    // Mid 264.5 is 4 from 260.5 > 3.9075.
    expect(judge(quote(262.5, 266.5)).failed).toBe(true);
    // Buy 254.3109 is 5.1891 from 259.5: at the threshold, kept; mid 258.15545 and sell 262 are near.
    expect(judge(quote(254.3109, 262)).failed).toBe(false);
    expect(judge(quote(254.3108, 262)).failed).toBe(true);
    // Sell 265.93 is 3.93 from 262: kept; one micro-unit more fails (mid 262.965 stays within 3.9075).
    expect(judge(quote(260, 265.93)).failed).toBe(false);
    expect(judge(quote(260, 265.930001)).failed).toBe(true);
  });

  it('against the point in force at its instant: none before the first, none two heartbeats after', () => {
    expect(judge(quote(260, 261, T - 1))).toMatchObject({
      pointAt: null,
      failed: false,
      deviationPercent: null,
    });
    expect(judge(quote(300, 310, T - 1)).failed).toBe(false);
    expect(judge(quote(300, 310, T)).failed).toBe(true);
    expect(judge(quote(300, 310, T + 2 * HOUR - 1)).pointAt).toBe(T);
    expect(judge(quote(300, 310, T + 2 * HOUR)).pointAt).toBeNull();
    // Dated before its receipt: judged at its observation.
    expect(judge(quote(300, 310, T - 1, { receivedAt: T + 60_000 })).pointAt).toBeNull();
    expect(judge(quote(260, 261, T, { market: 'USD' })).pointAt).toBeNull();
  });

  it('finds the newest point at or before an instant', () => {
    const list = [1, 5, 9].map((at) => ({ ...P, at }));
    expect(pointInForce(list, 0)).toBeUndefined();
    expect(pointInForce(list, 5)?.at).toBe(5);
    expect(pointInForce(list, 8)?.at).toBe(5);
    expect(pointInForce(list, 100)?.at).toBe(9);
  });
});

const judged = (failed: boolean[], deviations: (number | null)[] = []): Judgement[] =>
  failed.map((f, i) => ({
    quoteId: `q${i}`,
    pointAt: deviations[i] === null ? null : T,
    failed: f,
    deviationPercent: deviations[i] === undefined ? 0 : deviations[i]!,
  }));

describe('a reporter’s statistics and flag', () => {
  it('counts the quotes, the judged ones, the failed share and the median deviation', () => {
    expect(statisticsOf(judged([true, false, false, false], [10, 0.5, -0.25, null]))).toEqual({
      quotes: 4,
      judged: 3,
      failed: 1,
      failedPercent: 33.33,
      medianDeviationPercent: 0.5,
    });
    // Even count: the mean of the two middle deviations, (0.1 + 0.3) / 2.
    expect(statisticsOf(judged([false, false], [0.1, 0.3])).medianDeviationPercent).toBe(0.2);
    expect(statisticsOf(judged([false], [null]))).toMatchObject({ judged: 0, failedPercent: null });
  });

  it('is flagged when more than 30 % of its last 20 quotes failed: 7, not 6', () => {
    const of = (failed: number, total = 20) => judged(Array.from({ length: total }, (_, i) => i < failed));
    expect(isFlagged(of(6))).toBe(false);
    expect(isFlagged(of(7))).toBe(true);
    expect(isFlagged(of(7, 7))).toBe(true);
    expect(isFlagged(of(6, 6))).toBe(false);
    // Only the last 20 (newest first) count: failures older than them do not.
    expect(isFlagged([...of(0), ...of(20)])).toBe(false);
  });
});
