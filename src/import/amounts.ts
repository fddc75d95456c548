/** The `buy` and `sell` of an imported observation: a JSON number or decimal text, read to micro-units. */
import { MAX_AMOUNT, parseMicros, SCALE } from '../domain/decimal.js';

export const MSG_AMOUNT = 'must be a positive decimal number with at most 6 decimal places';

const FRAC_SCALE = [1, 100_000, 10_000, 1_000, 100, 10, 1];

/**
 * `parseMicros` with a fast path for the common shape (at most 9 integer digits, at most 6
 * decimals, nothing else), where it computes the same exact integer; every other input goes
 * to `parseMicros` itself.
 */
export function toMicros(value: unknown): number | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && value >= 0 && value < MAX_AMOUNT) {
    // The double nearest to m·10⁻⁶ prints with at most 6 decimals, which is what parseMicros
    // accepts; below 1e9 the product is within 0.2 of m, so the rounding finds m exactly.
    const m = Math.round(value * SCALE);
    if (m / SCALE === value) return m;
    return parseMicros(value);
  } else return parseMicros(value);
  const n = text.length;
  let i = 0;
  let whole = 0;
  const first = text.charCodeAt(0) - 48;
  if (first === 0) {
    i = 1;
  } else if (first >= 1 && first <= 9) {
    for (; i < n && i < 9; i++) {
      const d = text.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) break;
      whole = whole * 10 + d;
    }
  } else {
    return parseMicros(value);
  }
  if (i === n) return whole * SCALE;
  if (text.charCodeAt(i) !== 46 || n - i - 1 < 1 || n - i - 1 > 6) return parseMicros(value);
  let frac = 0;
  for (let k = i + 1; k < n; k++) {
    const d = text.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return parseMicros(value);
    frac = frac * 10 + d;
  }
  return whole * SCALE + frac * FRAC_SCALE[n - i - 1]!;
}

/** Micro-units of a positive amount, or the problem (without the field name). */
export function readAmount(value: unknown): number | string {
  const micros = toMicros(value);
  if (micros !== null && micros > 0) return micros;
  if (micros === null && (typeof value === 'number' || typeof value === 'string')) {
    const n = Number(value);
    if (Number.isFinite(n) && n > MAX_AMOUNT) return `must not exceed ${MAX_AMOUNT}`;
  }
  return MSG_AMOUNT;
}
