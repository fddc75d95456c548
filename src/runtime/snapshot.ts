/**
 * The market snapshot: everything "latest" the API serves, built once per data
 * change and shared by every request until the next one. Records are kept
 * pre-serialised, so a request for the latest rates only joins strings and
 * writes its own `meta` (do per request only what must be).
 */

import { microsToNumber } from '../domain/decimal.js';
import { premiumItem } from '../domain/premium.js';
import {
  type Asset,
  type AssetType,
  GOLD_UNIT,
  type GoldObservation,
  PURITIES,
  QUOTE,
  type RateObservation,
  SOURCES,
  type Source,
} from '../domain/types.js';
import { PageCache } from './page-cache.js';
import type { PremiumSeries } from './premium-history.js';
import { type Prepared, prepare } from './prepared.js';

export interface SourceView {
  /** Codes with an observation for this source, in code order. */
  codes: string[];
  /** Serialised latest record per code. */
  records: Map<string, string>;
  /** The whole `/v1/rates/latest?source=…` body without a filter. */
  all: Prepared;
}

export class MarketSnapshot {
  readonly assetsByCode: Map<string, Asset>;
  readonly bySource: Record<Source, SourceView>;
  readonly premium: Map<string, string>;
  /** `/v1/assets` bodies, per filter ('' = all). */
  readonly assets: Map<string, Prepared>;
  /** `/v1/gold/latest` body, or null when no gold record is stored. */
  readonly goldLatest: Prepared | null;
  /** History pages prepared for this version of the data. */
  readonly pages = new PageCache();
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

  constructor(
    readonly version: number,
    assets: Asset[],
    latest: RateObservation[],
    gold: GoldObservation[],
  ) {
    this.assetsByCode = new Map(assets.map((a) => [a.code, a]));

    this.assets = new Map();
    for (const filter of ['', 'currency', 'metal', 'crypto'] as const) {
      const list = filter === '' ? assets : assets.filter((a) => a.type === (filter as AssetType));
      this.assets.set(
        filter,
        prepare(JSON.stringify(list), `"count":${list.length},"type":${filter ? `"${filter}"` : 'null'}`),
      );
    }

    const latestBy = new Map<string, RateObservation>();
    for (const r of latest) latestBy.set(`${r.source}:${r.currency}`, r);

    const bySource = {} as Record<Source, SourceView>;
    for (const source of SOURCES) {
      const records = new Map<string, string>();
      const rows = latest
        .filter((r) => r.source === source && this.assetsByCode.has(r.currency))
        .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
      for (const r of rows) {
        const asset = this.assetsByCode.get(r.currency)!;
        records.set(
          r.currency,
          JSON.stringify({
            currency: r.currency,
            names: asset.names,
            type: asset.type,
            source,
            quote: QUOTE,
            buy: microsToNumber(r.buy),
            sell: microsToNumber(r.sell),
            updatedAt: new Date(r.updatedAt).toISOString(),
          }),
        );
      }
      const codes = rows.map((r) => r.currency);
      this.newest[source] = newestOf(rows);
      bySource[source] = {
        codes,
        records,
        all: prepare(
          `[${[...records.values()].join(',')}]`,
          `"count":${codes.length},"source":"${source}","quote":"DZD","currencies":${JSON.stringify(codes)}`,
        ),
      };
    }
    this.bySource = bySource;

    this.premium = new Map();
    for (const code of bySource.parallel.codes) {
      const p = latestBy.get(`parallel:${code}`);
      const o = latestBy.get(`official:${code}`);
      if (p && o && o.buy > 0 && o.sell > 0) this.premium.set(code, JSON.stringify(premiumItem(code, p, o)));
    }

    const goldRows = PURITIES.flatMap((purity) => gold.filter((g) => g.purity === purity));
    this.newest.gold = newestOf(goldRows);
    this.goldLatest =
      goldRows.length === 0
        ? null
        : prepare(
            `[${goldRows.map(goldJson).join(',')}]`,
            `"count":${goldRows.length},"quote":"DZD","unit":"gram"`,
          );
  }

  /** A series "exists" once it has had at least one observation (decisions §7). */
  hasSeries(currency: string, source: Source): boolean {
    return this.bySource[source].records.has(currency);
  }

  static empty(): MarketSnapshot {
    return new MarketSnapshot(0, [], [], []);
  }
}

/** The latest `updatedAt` of `rows`, null when there are none. */
function newestOf(rows: readonly { updatedAt: number }[]): number | null {
  let newest: number | null = null;
  for (const r of rows) if (newest === null || r.updatedAt > newest) newest = r.updatedAt;
  return newest;
}

export function goldJson(g: GoldObservation): string {
  return JSON.stringify({
    purity: g.purity,
    quote: QUOTE,
    unit: GOLD_UNIT,
    buy: microsToNumber(g.buy),
    sell: microsToNumber(g.sell),
    updatedAt: new Date(g.updatedAt).toISOString(),
  });
}

export function historyRateJson(r: RateObservation): string {
  return `{"currency":${JSON.stringify(r.currency)},"source":"${r.source}","quote":"DZD","buy":${microsToNumber(r.buy)},"sell":${microsToNumber(r.sell)},"updatedAt":"${new Date(r.updatedAt).toISOString()}"}`;
}
