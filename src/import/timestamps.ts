/**
 * The `updatedAt` of an imported observation: a strict ISO 8601 timestamp with a
 * time zone, read to epoch milliseconds. Hand-rolled, not `Date.parse`: that one
 * accepts other shapes and rolls invalid dates over (2025-02-30 → March 2).
 */

export const MSG_TIMESTAMP = 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z';

const EPOCH_1990 = Date.UTC(1990, 0, 1);
export const DAY_MS = 86_400_000;

function isDaysInMonthOk(y: number, mo: number, d: number): boolean {
  if (mo < 1 || mo > 12 || d < 1) return false;
  if (mo === 2) {
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    return d <= (leap ? 29 : 28);
  }
  return d <= (mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31);
}

/** The number written by `len` ASCII digits at `i`, or -1. */
function digits(s: string, i: number, len: number): number {
  let v = 0;
  for (let k = i; k < i + len; k++) {
    const d = s.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return -1; // NaN past the end
    v = v * 10 + d;
  }
  return v;
}

/**
 * Epoch ms of `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, or an error message
 * (without the field name). `latest` is the latest instant accepted.
 */
export function parseTimestamp(value: unknown, latest: number): number | string {
  if (typeof value !== 'string' || value.length < 20) return MSG_TIMESTAMP;
  const y = digits(value, 0, 4);
  const mo = digits(value, 5, 2);
  const d = digits(value, 8, 2);
  const h = digits(value, 11, 2);
  const mi = digits(value, 14, 2);
  const s = digits(value, 17, 2);
  if (
    y < 0 ||
    mo < 0 ||
    d < 0 ||
    h < 0 ||
    mi < 0 ||
    s < 0 ||
    value.charCodeAt(4) !== 45 || // -
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 || // T
    value.charCodeAt(13) !== 58 || // :
    value.charCodeAt(16) !== 58
  ) {
    return MSG_TIMESTAMP;
  }
  const n = value.length;
  let i = 19;
  let fracDigits = 0;
  if (value.charCodeAt(i) === 46) {
    // .
    let j = i + 1;
    while (j < n && digits(value, j, 1) >= 0) j++;
    fracDigits = j - i - 1;
    if (fracDigits === 0) return MSG_TIMESTAMP;
    i = j;
  }
  let offsetMinutes = 0;
  const z = value.charCodeAt(i);
  if (z === 90) {
    // Z
    if (n !== i + 1) return MSG_TIMESTAMP;
  } else if ((z === 43 || z === 45) && n === i + 6 && value.charCodeAt(i + 3) === 58) {
    const oh = digits(value, i + 1, 2);
    const om = digits(value, i + 4, 2);
    if (oh < 0 || om < 0) return MSG_TIMESTAMP;
    if (oh > 23 || om > 59) return `${value.slice(i)} is not a valid time zone offset`;
    offsetMinutes = (z === 45 ? -1 : 1) * (oh * 60 + om);
  } else {
    return MSG_TIMESTAMP;
  }
  if (fracDigits > 3) return 'must not be more precise than milliseconds (at most 3 fractional digits)';
  if (!isDaysInMonthOk(y, mo, d)) return `${value.slice(0, 10)} is not a valid calendar date`;
  if (h > 23 || mi > 59 || s > 59) return `${value.slice(11, 19)} is not a valid time of day`;
  if (y < 1990) return 'must not be before 1990';
  const ms =
    fracDigits === 0
      ? 0
      : digits(value, 20, fracDigits) * (fracDigits === 1 ? 100 : fracDigits === 2 ? 10 : 1);
  const epoch = Date.UTC(y, mo - 1, d, h, mi, s, ms) - offsetMinutes * 60_000;
  if (epoch < EPOCH_1990) return 'must not be before 1990';
  if (epoch > latest) return 'must not be more than 1 day in the future';
  return epoch;
}

/** Distinct timestamps remembered before the cache starts over (over five years of hours). */
const CACHE_SIZE = 50_000;

/**
 * `parseTimestamp`, remembering the strings already read. An import holds many
 * series over the same instants (every currency and source at each hour), so
 * most timestamps repeat: a lookup by text replaced most of the parsing, which
 * was an eighth of a million-line import (profile, issue #5).
 */
export class TimestampReader {
  private readonly seen = new Map<string, number | string>();

  /** @param latest the latest instant accepted (now + 1 day) */
  constructor(private readonly latest: number = Date.now() + DAY_MS) {}

  read(value: unknown): number | string {
    if (typeof value !== 'string') return parseTimestamp(value, this.latest);
    let r = this.seen.get(value);
    if (r === undefined) {
      r = parseTimestamp(value, this.latest);
      if (this.seen.size === CACHE_SIZE) this.seen.clear();
      this.seen.set(value, r);
    }
    return r;
  }
}
