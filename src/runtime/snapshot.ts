/**
 * The market snapshot: everything "latest" the API serves, built once per data
 * change and shared by every request until the next one. It keeps values, the
 * records as their response schemas declare them (runtime/records.ts), with
 * their change since the previous day (decisions 122, 124), and the latest
 * observation of each series for new calculations over them (`latest`); the
 * HTTP layer makes and caches the bytes (http/pipeline/bodies.ts).
 */

import type { Static } from '@sinclair/typebox';
import { premiumChangeOf } from '../domain/change.js';
import { DAY_MS, startOfDay } from '../domain/dates.js';
import { premiumItem } from '../domain/premium.js';
import { type Asset, PURITIES, type RateObservation, SOURCES, type Source } from '../domain/types.js';
import type { PremiumItem } from '../schemas/market.js';
import type { GoldAsOf, RateAsOf, RatePoint } from '../storage/repositories/market.js';
import { CARRY_FORWARD_MS, type PremiumSeries } from './premium-history.js';
import type { Qualities } from './quality.js';
import { type LatestGoldValue, type LatestRateValue, latestGold, latestRate } from './records.js';

export type PremiumItemValue = Static<typeof PremiumItem>;

export interface SourceView {
  source: Source;
  /** Codes with an observation for this source, in code order. */
  codes: string[];
  /** The latest record of each code, in code order. */
  records: LatestRateValue[];
  /** The same records by code. */
  byCode: Map<string, LatestRateValue>;
}

export class MarketSnapshot {
  /** The asset directory, in code order. */
  readonly assets: readonly Asset[];
  readonly assetsByCode: Map<string, Asset>;
  readonly bySource: Record<Source, SourceView>;
  /** The premium item of each currency with both a parallel and an official rate. */
  readonly premium: Map<string, PremiumItemValue>;
  /** The latest gold record of each purity present, in purity order. */
  readonly gold: readonly LatestGoldValue[];
  /** Premium series of this version of the data, per currency and window (routes/premium.ts). */
  readonly premiumSeries = new Map<string, PremiumSeries>();
  /**
   * The newest `updatedAt` (ms) each family serves, null without one: what
   * /status and the freshness gauges measure ages from (runtime/freshness.ts),
   * found once per version of the data.
   */
  readonly newest: Record<Source | 'gold', number | null> = {
    parallel: null,
    official: null,
    transfer: null,
    gold: null,
  };

  /** The latest observation per `source:currency`, and the one its change compares it with. */
  private readonly latestBy = new Map<string, RateObservation>();
  private readonly previousBy = new Map<string, RateObservation>();

  constructor(
    readonly version: number,
    assets: Asset[],
    series: readonly RateAsOf[],
    goldSeries: readonly GoldAsOf[],
    /** The published points behind these observations (runtime/quality.ts). */
    points: Qualities = new Map(),
    /** The official side of each previous day's premium, as `premiumPoints` asks for it (decisions 124). */
    previousOfficial: readonly RateObservation[] = [],
  ) {
    this.assets = assets;
    this.assetsByCode = new Map(assets.map((a) => [a.code, a]));
    const latest = series.map((s) => s.current);
    for (const { current: r, previous } of series) {
      this.latestBy.set(`${r.source}:${r.currency}`, r);
      if (previous) this.previousBy.set(`${r.source}:${r.currency}`, previous);
    }

    const bySource = {} as Record<Source, SourceView>;
    for (const source of SOURCES) {
      const rows = latest
        .filter((r) => r.source === source && this.assetsByCode.has(r.currency))
        .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
      const records = rows.map((r) =>
        latestRate(
          r,
          this.assetsByCode.get(r.currency)!,
          points,
          this.previousBy.get(`${r.source}:${r.currency}`) ?? null,
        ),
      );
      this.newest[source] = newestOf(rows);
      bySource[source] = {
        source,
        codes: rows.map((r) => r.currency),
        records,
        byCode: new Map(records.map((r) => [r.currency, r])),
      };
    }
    this.bySource = bySource;

    this.premium = new Map();
    const officialBy = new Map(previousOfficial.map((o) => [o.currency, o]));
    for (const code of bySource.parallel.codes) {
      const p = this.latest('parallel', code);
      const o = this.latest('official', code);
      if (!(p && o && o.buy > 0 && o.sell > 0)) continue;
      const item = premiumItem(code, p, o);
      // The previous day's premium as the premium history has it (runtime/premium-history.ts, decisions 124).
      const pp = this.previousBy.get(`parallel:${code}`);
      const po = officialBy.get(code);
      const previous =
        pp && po && pp.updatedAt - po.updatedAt <= CARRY_FORWARD_MS
          ? premiumItem(code, pp, po).premium
          : null;
      this.premium.set(code, {
        ...item,
        change: premiumChangeOf(item.premium, previous, pp?.updatedAt ?? 0),
      });
    }

    const goldRows = PURITIES.flatMap((purity) => goldSeries.filter((g) => g.current.purity === purity));
    this.newest.gold = newestOf(goldRows.map((g) => g.current));
    this.gold = goldRows.map((g) => latestGold(g.current, points, g.previous));
  }

  /** The latest observation of a series, in micro-DZD: what a calculation over the latest rates starts from. */
  latest(source: Source, currency: string): RateObservation | undefined {
    return this.latestBy.get(`${source}:${currency}`);
  }

  /** A series "exists" once it has had at least one observation (decisions §7). */
  hasSeries(currency: string, source: Source): boolean {
    return this.bySource[source].byCode.has(currency);
  }

  static empty(): MarketSnapshot {
    return new MarketSnapshot(0, [], [], []);
  }
}

/**
 * What the previous day's premium of each currency needs besides the series:
 * the newest official observation at or before the end of the UTC day of the
 * parallel rate's previous observation (decisions 124), read in one query.
 */
export function premiumPoints(series: readonly RateAsOf[]): RatePoint[] {
  const official = new Set(
    series.filter((s) => s.current.source === 'official').map((s) => s.current.currency),
  );
  const points: RatePoint[] = [];
  for (const { current, previous } of series) {
    if (current.source !== 'parallel' || previous === null || !official.has(current.currency)) continue;
    points.push({
      currency: current.currency,
      source: 'official',
      at: startOfDay(previous.updatedAt) + DAY_MS - 1,
    });
  }
  return points;
}

/** The latest `updatedAt` of `rows`, null when there are none. */
function newestOf(rows: readonly { updatedAt: number }[]): number | null {
  let newest: number | null = null;
  for (const r of rows) if (newest === null || r.updatedAt > newest) newest = r.updatedAt;
  return newest;
}
