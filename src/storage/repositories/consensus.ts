/**
 * The consensus markets' publication state and their published points
 * (docs/decisions.md 109). A publication writes, in one transaction guarded
 * by a compare-and-set on the market's version: the observation (a `parallel`
 * rate or a gold price), an import record that feeds the same events as an
 * import (`data.imported`, rate alerts), the point with its inputs, and the
 * market's new state, then moves the data version so every instance reloads.
 * Implemented in Kysely (kysely/consensus.ts). Tested on both backends by
 * test/storage/consensus.contract.test.ts.
 */
import type { ConsensusPoint, MarketId, MarketState, PointQuality } from '../reporter-records.js';

export interface ConsensusRepository {
  marketState(market: MarketId): Promise<MarketState | undefined>;
  marketStates(): Promise<MarketState[]>;
  /** Markets with a quote received after `since`, or a state row: what the periodic pass recomputes. */
  activeMarkets(since: number): Promise<MarketId[]>;
  /**
   * Publishes `point` as `kind`'s observation and sets `next` as the market's
   * state, if the market's version is still `expectedVersion` (0: no state
   * row yet). False, and nothing written, when another computation changed it
   * first or an observation of that series already holds that instant.
   */
  publish(
    kind: 'rates' | 'gold',
    point: ConsensusPoint,
    next: Omit<MarketState, 'version'>,
    expectedVersion: number,
  ): Promise<boolean>;
  /** Records a computation that published nothing; the same compare-and-set. */
  saveState(next: Omit<MarketState, 'version'>, expectedVersion: number): Promise<boolean>;
  pointAt(market: MarketId, at: number): Promise<ConsensusPoint | undefined>;
  /** Oldest first, `at` in [from, to]. */
  points(market: MarketId, from: number, to: number): Promise<ConsensusPoint[]>;
  /**
   * The points of `markets` at any of `instants`, without their inputs, in
   * one query: the quality of a snapshot's latest records or of a history
   * page (decisions 114). May hold pairs not asked for; callers match both.
   */
  qualities(markets: readonly MarketId[], instants: readonly number[]): Promise<PointQuality[]>;
}
