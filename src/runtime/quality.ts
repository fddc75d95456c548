/**
 * The `quality` of a served record (decisions 114): a published consensus
 * point of the same market at the same instant with the same values makes a
 * `consensus` record; anything else was imported. Points are read in one
 * query per snapshot or per history page (`loadQualities`), never per record.
 */
import type { Static } from '@sinclair/typebox';
import type { GoldObservation, RateObservation } from '../domain/types.js';
import type { Quality } from '../schemas/market.js';
import type { PointQuality } from '../storage/reporter-records.js';
import type { Store } from '../storage/store.js';

export type QualityValue = Static<typeof Quality>;

/** The published points that may stand behind some records, by market and instant. */
export type Qualities = ReadonlyMap<string, PointQuality>;

const NONE: Qualities = new Map();

const IMPORTED: QualityValue = Object.freeze({
  method: 'import',
  organisations: null,
  reporters: null,
  excluded: null,
  dispersionPercent: null,
  confidence: null,
}) as QualityValue;

const keyOf = (market: string, at: number) => `${market}@${at}`;

/**
 * The quality of an observation of `market` (a currency's parallel rate or a
 * gold purity). The values must match too: an import that later replaced
 * the published values at that instant is what is served, and it is an import.
 */
export function qualityOf(
  points: Qualities,
  market: string,
  o: { buy: number; sell: number; updatedAt: number },
): QualityValue {
  const p = points.get(keyOf(market, o.updatedAt));
  if (p === undefined || p.buy !== o.buy || p.sell !== o.sell) return IMPORTED;
  return {
    method: 'consensus',
    organisations: p.organisations,
    reporters: p.reporters,
    excluded: p.excluded,
    dispersionPercent: p.dispersionPercent,
    confidence: p.confidence,
  };
}

/** The quality of a rate: only the parallel source is ever published from reporters. */
export function rateQuality(points: Qualities, r: RateObservation): QualityValue {
  return r.source === 'parallel' ? qualityOf(points, r.currency, r) : IMPORTED;
}

/** The points behind `rates` (parallel ones) and `gold`, in one query; none asked, none read. */
export async function loadQualities(
  store: Store,
  rates: readonly RateObservation[],
  gold: readonly GoldObservation[],
): Promise<Qualities> {
  const markets: string[] = [];
  const instants: number[] = [];
  for (const r of rates) {
    if (r.source !== 'parallel') continue;
    markets.push(r.currency);
    instants.push(r.updatedAt);
  }
  for (const g of gold) {
    markets.push(g.purity);
    instants.push(g.updatedAt);
  }
  if (markets.length === 0) return NONE;
  const points = await store.consensus.qualities(markets, instants);
  return new Map(points.map((p) => [keyOf(p.market, p.at), p]));
}
