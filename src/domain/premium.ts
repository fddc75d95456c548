/**
 * The premium of the parallel market over the official rate: one currency's
 * item, as /v1/market/premium and each day of its history serve it. Shared by
 * the snapshot (runtime/snapshot.ts) and the daily series
 * (runtime/premium-history.ts).
 */
import { microsToNumber, percentChange } from './decimal.js';
import { QUOTE, type RateObservation } from './types.js';

function side(r: RateObservation) {
  return {
    buy: microsToNumber(r.buy),
    sell: microsToNumber(r.sell),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}

/** Amounts are differences of integer micro-units: exact, then scaled once. */
export function premiumItem(currency: string, parallel: RateObservation, official: RateObservation) {
  return {
    currency,
    quote: QUOTE,
    parallel: side(parallel),
    official: side(official),
    premium: {
      buy: {
        amount: microsToNumber(parallel.buy - official.buy),
        percent: percentChange(parallel.buy, official.buy),
      },
      sell: {
        amount: microsToNumber(parallel.sell - official.sell),
        percent: percentChange(parallel.sell, official.sell),
      },
    },
  };
}
