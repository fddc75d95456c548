/**
 * The records the API serves, as values: an observation in micro-DZD and epoch
 * milliseconds becomes the object its response schema declares (src/schemas/
 * market.ts), amounts as numbers (microsToNumber), instants as ISO strings.
 * The HTTP layer serializes them (http/serialize.ts). `points` are the
 * published consensus points that give records their quality (quality.ts).
 */
import type { Static } from '@sinclair/typebox';
import { changeOf } from '../domain/change.js';
import { microsToNumber } from '../domain/decimal.js';
import { type Asset, GOLD_UNIT, type GoldObservation, QUOTE, type RateObservation } from '../domain/types.js';
import type { GoldRecord, HistoryRate, LatestGoldRecord, LatestRate } from '../schemas/market.js';
import { type Qualities, qualityOf, rateQuality } from './quality.js';

export type LatestRateValue = Static<typeof LatestRate>;
export type HistoryRateValue = Static<typeof HistoryRate>;
export type GoldRecordValue = Static<typeof GoldRecord>;
export type LatestGoldValue = Static<typeof LatestGoldRecord>;

const iso = (ms: number) => new Date(ms).toISOString();

/** A latest record; `previous` is the observation its change is computed against (decisions 122). */
export function latestRate(
  r: RateObservation,
  asset: Asset,
  points: Qualities,
  previous: RateObservation | null,
): LatestRateValue {
  return {
    currency: r.currency,
    names: asset.names,
    type: asset.type,
    source: r.source,
    quote: QUOTE,
    buy: microsToNumber(r.buy),
    sell: microsToNumber(r.sell),
    updatedAt: iso(r.updatedAt),
    quality: rateQuality(points, r),
    change: changeOf(r, previous),
  };
}

export function historyRate(r: RateObservation, points: Qualities): HistoryRateValue {
  return {
    currency: r.currency,
    source: r.source,
    quote: QUOTE,
    buy: microsToNumber(r.buy),
    sell: microsToNumber(r.sell),
    updatedAt: iso(r.updatedAt),
    quality: rateQuality(points, r),
  };
}

export function goldRecord(g: GoldObservation, points: Qualities): GoldRecordValue {
  return {
    purity: g.purity,
    quote: QUOTE,
    unit: GOLD_UNIT,
    buy: microsToNumber(g.buy),
    sell: microsToNumber(g.sell),
    updatedAt: iso(g.updatedAt),
    quality: qualityOf(points, g.purity, g),
  };
}

export function latestGold(
  g: GoldObservation,
  points: Qualities,
  previous: GoldObservation | null,
): LatestGoldValue {
  return { ...goldRecord(g, points), change: changeOf(g, previous) };
}
