/**
 * Exact decimal handling for rates. Values are carried as integer micro-units
 * (six decimal places), which covers every quote we serve (JPY ≈ 0.9 DZD,
 * BTC ≈ 2e7 DZD) while staying far inside Number.MAX_SAFE_INTEGER (≈ 9e9 DZD).
 *
 * Dividing an integer by 1e6 is correctly rounded by IEEE 754, so the number we
 * emit is the double closest to the stored decimal and JSON.stringify prints the
 * short decimal back: 112.8, never 112.80000000000001.
 */

export const SCALE_DIGITS = 6;
export const SCALE = 1_000_000;
/** Upper bound for an accepted amount, in DZD (keeps micro-units exact). */
export const MAX_AMOUNT = 1_000_000_000;

const DECIMAL = /^(?:0|[1-9]\d{0,9})(?:\.(\d{1,6}))?$/;

/**
 * Parses a non-negative decimal given as a string or a JSON number into micro-units.
 * Returns null when the value is not a plain decimal with at most six places.
 */
export function parseMicros(value: unknown): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    // The shortest round-trip representation is what the author wrote.
    text = String(value);
    if (text.includes('e')) return null;
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [whole, frac = ''] = text.split('.') as [string, string?];
  const micros = Number(whole) * SCALE + Number(frac.padEnd(SCALE_DIGITS, '0'));
  if (micros > MAX_AMOUNT * SCALE) return null;
  return micros;
}

export function microsToNumber(micros: number): number {
  return micros / SCALE;
}

/**
 * (a − b) / b × 100 rounded half away from zero to 4 decimals, computed on
 * integers so that the rounding decision is exact (decisions §8).
 */
export function percentChange(parallelMicros: number, officialMicros: number): number {
  if (officialMicros === 0) throw new RangeError('official rate is zero');
  const diff = BigInt(parallelMicros - officialMicros);
  const base = BigInt(officialMicros);
  // percent × 10^4 = diff × 100 × 10^4 / base; round half away from zero.
  const scaled = diff * 1_000_000n;
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  let q = abs / base;
  if ((abs % base) * 2n >= base) q += 1n;
  const result = Number(negative ? -q : q) / 10_000;
  return result === 0 ? 0 : result;
}

/**
 * The mean of percents as percentChange gives them (multiples of 0.0001),
 * rounded the same way: half away from zero to 4 decimals. Summed as integer
 * ten-thousandths, so neither the sum nor the rounding sees binary noise.
 */
export function meanPercent(percents: readonly number[]): number {
  if (percents.length === 0) throw new RangeError('no percent to average');
  let sum = 0;
  for (const p of percents) sum += Math.round(p * 10_000);
  const n = percents.length;
  const abs = Math.abs(sum);
  let q = Math.floor(abs / n);
  if ((abs - q * n) * 2 >= n) q += 1;
  const result = (sum < 0 ? -q : q) / 10_000;
  return result === 0 ? 0 : result;
}

/** Decimal places an amount to convert may have (docs/decisions.md 134). */
export const AMOUNT_DIGITS = 8;
const AMOUNT_SCALE = 10n ** BigInt(AMOUNT_DIGITS);
const PLAIN_AMOUNT = /^(?:0|[1-9]\d{0,9})(?:\.(\d{1,8}))?$/;

/**
 * A plain decimal (`100`, `0.01`, `250.5`; no sign, exponent or leading zero)
 * as an integer of 10^-8 units, or null when it is not one. Bounds are the
 * caller's rule: this only reads.
 */
export function parseAmountUnits(text: string): bigint | null {
  const match = PLAIN_AMOUNT.exec(text);
  if (!match) return null;
  const dot = text.indexOf('.');
  const whole = dot === -1 ? text : text.slice(0, dot);
  return BigInt(whole) * AMOUNT_SCALE + BigInt((match[1] ?? '').padEnd(AMOUNT_DIGITS, '0'));
}

/** Units of 10^-8 as the shortest plain decimal: 10050000000n → `100.5`. */
export function unitsText(units: bigint): string {
  const whole = units / AMOUNT_SCALE;
  const frac = (units % AMOUNT_SCALE).toString().padStart(AMOUNT_DIGITS, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

/** n / d rounded half away from zero to an integer, exactly (d > 0). */
export function roundedQuotient(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  let q = abs / d;
  if ((abs % d) * 2n >= d) q += 1n;
  return negative ? -q : q;
}
