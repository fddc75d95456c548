/**
 * Market data as the public API reads it: the asset directory, rates and gold.
 * Implemented once in Kysely (kysely/market.ts); SQLite reads history pages on
 * a raw prepared statement (sqlite-market.ts). Tested on both backends by
 * test/storage/market.contract.test.ts.
 */
import type { Interval, IntervalSummary } from '../../domain/intervals.js';
import type { Asset, GoldObservation, Purity, RateObservation, Source } from '../../domain/types.js';

export interface RateHistoryQuery {
  currency: string;
  source: Source;
  from: number;
  to: number;
  /** Keyset position: only records strictly older than this instant. */
  before?: number;
  limit: number;
}

/** A series over a window of instants, both ends included. */
export interface DailyRatesQuery {
  currency: string;
  source: Source;
  from: number;
  to: number;
}

export interface GoldHistoryQuery {
  from: number;
  to: number;
  /** Keyset position: the last record of the previous page. */
  after?: { updatedAt: number; purity: Purity };
  limit: number;
}

/** Which series `ratesAsOf` reads: one source or all, as of an instant or now. */
export interface RatesAsOfQuery {
  /** The newest observation at or before this instant; without it, the newest of all. */
  at?: number;
  source?: Source;
}

/**
 * An observation and the one its `change` compares it with (decisions 122):
 * the newest of the same series before the start of its UTC day, at most
 * 7 days before that start; null without one.
 */
export interface RateAsOf {
  current: RateObservation;
  previous: RateObservation | null;
}

export interface GoldAsOf {
  current: GoldObservation;
  previous: GoldObservation | null;
}

/** A series and an instant: its newest observation at or before it. */
export interface RatePoint {
  currency: string;
  source: Source;
  at: number;
}

export interface MarketRepository {
  listAssets(): Promise<Asset[]>;
  /** Newest observation of every (currency, source) series. */
  latestRates(): Promise<RateObservation[]>;
  rateHistory(query: RateHistoryQuery): Promise<RateObservation[]>;
  /** The latest observation of each UTC day in the window on which the series has one, newest first. */
  dailyRates(query: DailyRatesQuery): Promise<RateObservation[]>;
  /** Each series of the directory (of one source or all) as of an instant, with its previous day's observation. */
  ratesAsOf(query?: RatesAsOfQuery): Promise<RateAsOf[]>;
  /** Each purity as of an instant (or now), with its previous day's record. */
  goldAsOf(at?: number): Promise<GoldAsOf[]>;
  /** The newest observation of each series at or before its instant, one statement; none, none listed. */
  ratesAt(points: readonly RatePoint[]): Promise<RateObservation[]>;
  /** Newest record of every purity. */
  latestGold(): Promise<GoldObservation[]>;
  goldHistory(query: GoldHistoryQuery): Promise<GoldObservation[]>;
  /** The series' intervals holding an observation in the window, newest first, in one query. */
  rateIntervals(query: RateIntervalsQuery): Promise<IntervalSummary[]>;
  /** Each purity's intervals holding a record in the window, newest first then purity order, in one query. */
  goldIntervals(query: GoldIntervalsQuery): Promise<GoldIntervalSummary[]>;
}

/** A page of intervals of one rate series (decisions 128): newest first. */
export interface RateIntervalsQuery {
  currency: string;
  source: Source;
  interval: Interval;
  from: number;
  to: number;
  /** Keyset position: only intervals that start before this instant (the previous page's last start). */
  before?: number;
  limit: number;
}

/** A page of gold intervals: newest first, ties in purity order. */
export interface GoldIntervalsQuery {
  interval: Interval;
  from: number;
  to: number;
  /** Keyset position: the start and purity of the previous page's last item. */
  after?: { start: number; purity: Purity };
  limit: number;
}

export interface GoldIntervalSummary extends IntervalSummary {
  purity: Purity;
}
