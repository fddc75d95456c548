/** The harness's sample records as the API shows them, for the suites of the operations that serve them. */

import { percentChange } from '../../src/domain/decimal.js';
import { type GoldObservation, PURITIES, type RateObservation, type Source } from '../../src/domain/types.js';
import { generateSample } from '../../src/sample/generate.js';
import { DAY, SAMPLE_END } from './harness.js';

const sample = generateSample({ endDate: SAMPLE_END });
/** Every sample record was imported: its quality names no consensus (decisions 114). */
export const IMPORTED = {
  method: 'import',
  organisations: null,
  reporters: null,
  excluded: null,
  dispersionPercent: null,
  confidence: null,
};
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (date: string, n: number) => day(Date.parse(`${date}T00:00:00Z`) + n * DAY);
const record = (g: GoldObservation) => ({
  purity: g.purity,
  quote: 'DZD',
  unit: 'gram',
  buy: g.buy / 1e6,
  sell: g.sell / 1e6,
  updatedAt: new Date(g.updatedAt).toISOString(),
  quality: IMPORTED,
});
/** The sample's gold records from `from` to `to` (UTC days), newest first, ties in purity order. */
export function expectedGold(from: string, to: string) {
  const lo = Date.parse(`${from}T00:00:00.000Z`);
  const hi = Date.parse(`${to}T23:59:59.999Z`);
  return sample.gold
    .filter((g) => g.updatedAt >= lo && g.updatedAt <= hi)
    .sort((a, b) => b.updatedAt - a.updatedAt || PURITIES.indexOf(a.purity) - PURITIES.indexOf(b.purity))
    .map(record);
}

const json = (r: RateObservation) => ({
  currency: r.currency,
  source: r.source,
  quote: 'DZD',
  buy: r.buy / 1e6,
  sell: r.sell / 1e6,
  updatedAt: new Date(r.updatedAt).toISOString(),
  quality: IMPORTED,
});

/** The sample rate records of one series in [from, to] (dates, inclusive), newest first. */
export function expectedRates(currency: string, source: Source, from: string, to: string) {
  const lo = Date.parse(`${from}T00:00:00.000Z`);
  const hi = Date.parse(`${to}T23:59:59.999Z`);
  return sample.rates
    .filter((r) => r.currency === currency && r.source === source && r.updatedAt >= lo && r.updatedAt <= hi)
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .map(json);
}

type Observed = { buy: number; sell: number; updatedAt: number };

/**
 * The `change` of `current` within `series` (decisions 122): against the newest
 * observation before the start of its UTC day, at most 7 days before that start.
 */
export function expectedChange(series: readonly Observed[], current: Observed) {
  const start = current.updatedAt - (current.updatedAt % DAY);
  const previous = series
    .filter((o) => o.updatedAt < start && o.updatedAt >= start - 7 * DAY)
    .sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!previous) return null;
  const side = (c: number, p: number) => ({ amount: (c - p) / 1e6, percent: percentChange(c, p) });
  return {
    since: new Date(previous.updatedAt).toISOString(),
    buy: side(current.buy, previous.buy),
    sell: side(current.sell, previous.sell),
  };
}

/** The sample's latest gold records, with their change, in purity order. */
export function expectedLatestGold() {
  return PURITIES.flatMap((purity) => {
    const series = sample.gold.filter((g) => g.purity === purity);
    const latest = series.reduce<GoldObservation | undefined>(
      (a, g) => (a === undefined || g.updatedAt > a.updatedAt ? g : a),
      undefined,
    );
    return latest ? [{ ...record(latest), change: expectedChange(series, latest) }] : [];
  });
}
