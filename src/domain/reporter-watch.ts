/**
 * Watching reporters (docs/decisions.md 116): each quote judged on its own
 * against the consensus in force at its instant, so that one rogue colleague
 * does not flag an honest reporter of the same organisation.
 *
 * A quote is judged against the published point in force at its effective
 * instant (the newest point at or before it, of its market): the point's
 * stored inputs hold every organisation's median buy and sell, kept or
 * excluded, so the exclusion test of domain/consensus.ts is applied exactly,
 * with the point's median and MAD, to the reporter's own mid, buy and sell.
 * The instant is min(observed, received), as the consensus counts it.
 * A point older than two heartbeats is no longer a consensus in force: a
 * quote then (or before a market's first point) is counted but not judged.
 */
import { beyond, HEARTBEAT_MS, spread, UNIT } from './consensus.js';

/** A point older than this at a quote's instant does not judge it: the market had lost its consensus. */
export const JUDGED_WITHIN_MS = 2 * HEARTBEAT_MS;
/** Flagged: more than 30 % of its last 20 quotes failed the test, that is 7 or more of them. */
export const FLAG_SAMPLE = 20;
export const FLAG_PERCENT = 30;

export interface WatchedQuote {
  id: string;
  market: string;
  /** Micro-units. */
  buy: number;
  sell: number;
  observedAt: number;
  receivedAt: number;
}

/** A published point as stored: its values and each organisation's median buy and sell (micro-units). */
export interface JudgingPoint {
  at: number;
  buy: number;
  sell: number;
  inputs: readonly { buy: number; sell: number }[];
}

export interface Judgement {
  quoteId: string;
  /** The point it was judged against; null: none in force, not judged. */
  pointAt: number | null;
  failed: boolean;
  /** (own mid − published mid) / published mid × 100; null when not judged. */
  deviationPercent: number | null;
}

const sixteenths = (micros: number) => BigInt(Math.round(micros * Number(UNIT)));

interface Spreads {
  mids: { centre: bigint; mad: bigint };
  buys: { centre: bigint; mad: bigint };
  sells: { centre: bigint; mad: bigint };
}

function spreadsOf(point: JudgingPoint): Spreads {
  const buys = point.inputs.map((o) => sixteenths(o.buy));
  const sells = point.inputs.map((o) => sixteenths(o.sell));
  return {
    mids: spread(buys.map((b, i) => (b + (sells[i] as bigint)) / 2n)),
    buys: spread(buys),
    sells: spread(sells),
  };
}

/** The newest point at or before `instant` and within JUDGED_WITHIN_MS of it; points oldest first. */
export function pointInForce<P extends JudgingPoint>(points: readonly P[], instant: number): P | undefined {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((points[mid] as P).at <= instant) lo = mid + 1;
    else hi = mid;
  }
  const found = points[lo - 1];
  return found && instant - found.at < JUDGED_WITHIN_MS ? found : undefined;
}

/**
 * Each quote against its market's point in force; `points` per market, oldest
 * first. The spreads of a point are computed once however many quotes it judges.
 */
export function judgeQuotes(
  quotes: readonly WatchedQuote[],
  points: ReadonlyMap<string, readonly JudgingPoint[]>,
): Judgement[] {
  const memo = new Map<JudgingPoint, Spreads>();
  return quotes.map((q) => {
    const point = pointInForce(points.get(q.market) ?? [], Math.min(q.observedAt, q.receivedAt));
    if (!point || point.inputs.length === 0) {
      return { quoteId: q.id, pointAt: null, failed: false, deviationPercent: null };
    }
    let s = memo.get(point);
    if (!s) {
      s = spreadsOf(point);
      memo.set(point, s);
    }
    const buy = BigInt(q.buy) * UNIT;
    const sell = BigInt(q.sell) * UNIT;
    const failed =
      beyond((buy + sell) / 2n, s.mids.centre, s.mids.mad) ||
      beyond(buy, s.buys.centre, s.buys.mad) ||
      beyond(sell, s.sells.centre, s.sells.mad);
    const published = (point.buy + point.sell) / 2;
    const own = (q.buy + q.sell) / 2;
    return {
      quoteId: q.id,
      pointAt: point.at,
      failed,
      deviationPercent: ((own - published) / published) * 100,
    };
  });
}

export interface ReporterStatistics {
  /** Quotes sent in the period. */
  quotes: number;
  /** Of them, judged against a consensus in force. */
  judged: number;
  failed: number;
  /** failed / judged × 100, 2 decimals; null when none was judged. */
  failedPercent: number | null;
  /** The median of the judged quotes' deviations from the consensus, percent, signed, 2 decimals. */
  medianDeviationPercent: number | null;
}

const hundredths = (v: number) => Math.round(v * 100) / 100;

export function statisticsOf(judgements: readonly Judgement[]): ReporterStatistics {
  const judged = judgements.filter((j) => j.pointAt !== null);
  const failed = judged.filter((j) => j.failed).length;
  const deviations = judged.map((j) => j.deviationPercent as number).sort((a, b) => a - b);
  const middle = deviations.length >> 1;
  const median =
    deviations.length === 0
      ? null
      : deviations.length % 2 === 1
        ? (deviations[middle] as number)
        : ((deviations[middle - 1] as number) + (deviations[middle] as number)) / 2;
  return {
    quotes: judgements.length,
    judged: judged.length,
    failed,
    failedPercent: judged.length === 0 ? null : hundredths((failed / judged.length) * 100),
    medianDeviationPercent: median === null ? null : hundredths(median),
  };
}

/**
 * Flagged when more than 30 % of its last 20 quotes failed (7 or more); a
 * quote not judged does not fail. `newestFirst` holds at least its last 20.
 */
export function isFlagged(newestFirst: readonly Judgement[]): boolean {
  const failed = newestFirst.slice(0, FLAG_SAMPLE).filter((j) => j.failed).length;
  return failed * 100 > FLAG_PERCENT * FLAG_SAMPLE;
}
