/**
 * A conversion at the counter (docs/decisions.md 134, 135): a currency into
 * dinars at its buy rate, dinars into a currency at its sell rate, and one
 * foreign currency into another through the dinar, both legs in one exact
 * fraction. Amounts are integers of 10^-8, rates integer micro-DZD
 * (decisions 1); the result is rounded once, to the cent, half away from zero.
 */
import { roundedQuotient, SCALE } from './decimal.js';
import { QUOTE, type RateObservation } from './types.js';

/** Positive, at most 10^9 (docs/decisions.md 134). */
export const MAX_CONVERT_UNITS = 1_000_000_000n * 100_000_000n;

/** One rate a conversion applied: the currency's buy (into dinars) or sell (out of dinars). */
export interface ConversionLeg {
  currency: string;
  side: 'buy' | 'sell';
  /** Micro-DZD per unit. */
  micros: number;
  updatedAt: number;
}

export type Conversion =
  | { ok: true; cents: bigint; legs: ConversionLeg[] }
  /** No usable rate of `currency`: the caller's 404. */
  | { ok: false; missing: string };

const MICRO = BigInt(SCALE);

/**
 * `units` (10^-8 of `from`) into `to`; `rateOf` reads the latest observation
 * of a currency in the chosen source. `from` and `to` differ (the query's rule).
 */
export function convert(
  from: string,
  to: string,
  units: bigint,
  rateOf: (currency: string) => RateObservation | undefined,
): Conversion {
  const legs: ConversionLeg[] = [];
  // result = units / 10^8 × fromRate / toRate, in cents: units × fromRate / (10^6 × toRate),
  // a rate of DZD being 10^6 micro-DZD.
  let fromRate = MICRO;
  let toRate = MICRO;
  if (from !== QUOTE) {
    const r = rateOf(from);
    if (!r || r.buy <= 0) return { ok: false, missing: from };
    legs.push({ currency: from, side: 'buy', micros: r.buy, updatedAt: r.updatedAt });
    fromRate = BigInt(r.buy);
  }
  if (to !== QUOTE) {
    const r = rateOf(to);
    if (!r || r.sell <= 0) return { ok: false, missing: to };
    legs.push({ currency: to, side: 'sell', micros: r.sell, updatedAt: r.updatedAt });
    toRate = BigInt(r.sell);
  }
  return { ok: true, cents: roundedQuotient(units * fromRate, MICRO * toRate), legs };
}

/** Cents as a decimal with exactly two places: 2555000n → `25550.00`. */
export function centsText(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}
