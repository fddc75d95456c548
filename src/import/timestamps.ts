/**
 * The `updatedAt` of an imported observation: a strict ISO 8601 timestamp with a
 * time zone, read to epoch milliseconds. Hand-rolled, not `Date.parse`: that one
 * accepts other shapes and rolls invalid dates over (2025-02-30 → March 2).
 *
 * A local time (no offset, `T` or a space before the time, as spreadsheets
 * write it) is read only in the zone the operator names (`--timezone`), and
 * refused when that zone's clocks skip it or show it twice; the shapes people
 * write by mistake get a message of their own (docs/decisions.md 52).
 *
 * Longer than 300 lines because it is one reader: every shape a spreadsheet
 * writes a time in (decisions 94), and the sentence each mistake gets.
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
    if (oh > 23 || om > 59) return `has an invalid time zone offset (${value.slice(i)})`;
    offsetMinutes = (z === 45 ? -1 : 1) * (oh * 60 + om);
  } else {
    return MSG_TIMESTAMP;
  }
  if (fracDigits > 3) return MSG_PRECISION;
  if (!isDaysInMonthOk(y, mo, d)) return invalidDate(value);
  if (h > 23 || mi > 59 || s > 59) return invalidTime(value.slice(11, 19));
  if (y < 1990) return MSG_BEFORE_1990;
  const ms =
    fracDigits === 0
      ? 0
      : digits(value, 20, fracDigits) * (fracDigits === 1 ? 100 : fracDigits === 2 ? 10 : 1);
  const epoch = Date.UTC(y, mo - 1, d, h, mi, s, ms) - offsetMinutes * 60_000;
  return inRange(epoch, latest);
}

const MSG_BEFORE_1990 = 'must not be before 1990';
const MSG_PRECISION = 'must not be more precise than milliseconds (at most 3 fractional digits)';
const invalidDate = (value: string) => `has an invalid calendar date (${value.slice(0, 10)})`;
const invalidTime = (time: string) => `has an invalid time of day (${time})`;

function inRange(epoch: number, latest: number): number | string {
  if (epoch < EPOCH_1990) return MSG_BEFORE_1990;
  if (epoch > latest) return 'must not be more than 1 day in the future';
  return epoch;
}

// ---------------------------------------------------------------------------
// Local times and the shapes of a spreadsheet's dates

/** A local time: date, `T` or a space, hours and minutes, maybe seconds and a fraction. */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;
/** A date in day/month (or month/day) order, maybe with a time after it. */
const DAY_MONTH = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:[ T,].*)?$/;
/** The same with its time, as spreadsheets write it (`28/11/2026 9:30`, seconds and a fraction maybe). */
const DAY_MONTH_TIME = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

/** How a date written with the day and the month before the year is read (`--date-order`, docs/decisions.md 94). */
export type DateOrder = 'dmy' | 'mdy';
export const DATE_ORDERS: readonly DateOrder[] = ['dmy', 'mdy'];
const ORDER_NAMES: Record<DateOrder, string> = { dmy: 'day/month/year', mdy: 'month/day/year' };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `±HH:MM` of an offset in minutes. */
function offsetText(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** The problem of a date in day/month order: the ISO date it can be read as. */
function dayMonthProblem(m: RegExpExecArray): string {
  const [a, b, y] = [Number(m[1]), Number(m[3]), m[4] as string];
  const readings: string[] = [];
  if (b >= 1 && b <= 12 && isDaysInMonthOk(Number(y), b, a)) readings.push(`${y}-${pad(b)}-${pad(a)}T…`);
  if (a >= 1 && a <= 12 && a !== b && isDaysInMonthOk(Number(y), a, b))
    readings.push(`${y}-${pad(a)}-${pad(b)}T…`);
  if (readings.length === 0) return MSG_TIMESTAMP;
  return `puts the day and the month before the year, which is ambiguous: write ${readings.join(' or ')} (year-month-day, then the time with its offset), or pass the order of the file's dates, --date-order dmy (day first) or mdy`;
}

/**
 * A date in the order the operator named (`28/11/2026 09:30` with dmy),
 * written year-month-day: the local time it is, read as any other; or the
 * problem.
 */
function orderedDate(
  value: string,
  order: DateOrder,
  latest: number,
  zone: Zone | undefined,
): number | string {
  const m = DAY_MONTH_TIME.exec(value);
  if (m === null) {
    return DAY_MONTH.test(value) && !/[ T]\d/.test(value)
      ? `is a date without a time: write the time of the quote after it, e.g. ${value} 09:30`
      : MSG_TIMESTAMP;
  }
  const [a, b, y] = [Number(m[1]), Number(m[3]), Number(m[4])];
  const [d, mo] = order === 'dmy' ? [a, b] : [b, a];
  if (!isDaysInMonthOk(y, mo, d)) {
    return `is not a date in ${ORDER_NAMES[order]} order (--date-order ${order}): check the date, or the order`;
  }
  const time = `${pad(Number(m[5]))}:${m[6]}${m[7] === undefined ? '' : `:${m[7]}`}${m[8] === undefined ? '' : `.${m[8]}`}`;
  return otherTimestamp(`${pad(y, 4)}-${pad(mo)}-${pad(d)} ${time}`, latest, zone, undefined);
}

/**
 * What a text that is not a timestamp with a time zone is: a local time read
 * in `zone`, or the problem, named for the shapes a spreadsheet writes.
 */
function otherTimestamp(
  value: string,
  latest: number,
  zone: Zone | undefined,
  order: DateOrder | undefined,
): number | string {
  const local = LOCAL.exec(value);
  if (local !== null) {
    const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((k) => Number(local[k]));
    const s = local[6] === undefined ? 0 : Number(local[6]);
    const frac = local[7] ?? '';
    if (frac.length > 3) return MSG_PRECISION;
    if (!isDaysInMonthOk(y as number, mo as number, d as number)) return invalidDate(value);
    if ((h as number) > 23 || (mi as number) > 59 || s > 59) {
      return invalidTime(`${local[4]}:${local[5]}${local[6] === undefined ? '' : `:${local[6]}`}`);
    }
    const wall = `${value.slice(0, 10)}T${local[4]}:${local[5]}:${pad(s)}${frac ? `.${frac}` : ''}`;
    if (zone === undefined) {
      return `has no time zone: write it with its UTC offset, e.g. ${wall}+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers`;
    }
    if ((y as number) < 1990) return MSG_BEFORE_1990;
    const ms = frac === '' ? 0 : Number(frac.padEnd(3, '0'));
    const wallMs = Date.UTC(y as number, (mo as number) - 1, d as number, h as number, mi as number, s, ms);
    const offsets = zone.offsetsAt(wallMs);
    if (offsets.length === 0) {
      return `does not exist in ${zone.name}: the clocks were put forward over it; write the instant with its UTC offset`;
    }
    if (offsets.length > 1) {
      const [first, second] = offsets.map((o) => `${wall}${offsetText(o)}`);
      return `occurs twice in ${zone.name} (the clocks were put back): write ${first} (the first) or ${second} (the second)`;
    }
    return inRange(wallMs - (offsets[0] as number) * 60_000, latest);
  }
  if (order !== undefined && DAY_MONTH.test(value)) return orderedDate(value, order, latest, zone);
  const dayMonth = DAY_MONTH.exec(value);
  if (dayMonth !== null) return dayMonthProblem(dayMonth);
  if (DATE_ONLY.test(value)) {
    return `is a date without a time: write ${value}T00:00:00Z or give the time of the quote`;
  }
  return MSG_TIMESTAMP;
}

/**
 * A time zone's offsets from UTC, found with `Intl.DateTimeFormat` (Node's
 * ICU time zone data).
 */
export class Zone {
  private readonly format: Intl.DateTimeFormat;
  /** The zone's canonical name (`Africa/Algiers`). */
  readonly name: string;

  /** @throws RangeError when `name` is not a time zone (timeZoneProblem says why) */
  constructor(name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    this.name = this.format.resolvedOptions().timeZone;
  }

  /** The offset in minutes at an instant (whole seconds). */
  offsetAt(instant: number): number {
    const p: Record<string, number> = {};
    for (const part of this.format.formatToParts(instant)) p[part.type] = Number(part.value);
    const wall = Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second);
    return Math.round((wall - Math.floor(instant / 1000) * 1000) / 60_000);
  }

  /**
   * The offsets (minutes) under which the wall-clock time `wall` (its fields
   * read as UTC) is an instant of this zone: none in a gap when the clocks are
   * put forward, two when they are put back, the earlier instant first.
   * Transitions are more than a day apart, so the offsets a day either side are
   * the only candidates.
   */
  offsetsAt(wall: number): number[] {
    const found: number[] = [];
    for (const o of [DAY_MS, 0, -DAY_MS].map((d) => this.offsetAt(wall - d))) {
      if (!found.includes(o) && this.offsetAt(wall - o * 60_000) === o) found.push(o);
    }
    // The earlier instant has the larger offset.
    return found.sort((a, b) => b - a);
  }
}

/** Why `name` is not a time zone this import can read local times in, or null. */
export function timeZoneProblem(name: string): string | null {
  try {
    new Zone(name);
    return null;
  } catch {
    return `"${name.length > 40 ? `${name.slice(0, 40)}…` : name}" is not an IANA time zone name; write one such as Africa/Algiers or Europe/Paris`;
  }
}

/**
 * `parseTimestamp`, then, for a text that is not a timestamp with a time zone,
 * a local time read in `zone` or the problem named for its shape. Only the
 * refused path pays for the second look.
 */
export function readTimestamp(
  value: unknown,
  latest: number,
  zone?: Zone,
  order?: DateOrder,
): number | string {
  const r = parseTimestamp(value, latest);
  return r === MSG_TIMESTAMP && typeof value === 'string' ? otherTimestamp(value, latest, zone, order) : r;
}

/** Distinct timestamps remembered before the cache starts over (over five years of hours). */
const CACHE_SIZE = 50_000;

/**
 * `readTimestamp`, remembering the strings already read. An import holds many
 * series over the same instants (every currency and source at each hour), so
 * most timestamps repeat: a lookup by text replaced most of the parsing, which
 * was an eighth of a million-line import (profile).
 */
export class TimestampReader {
  private readonly seen = new Map<string, number | string>();

  /**
   * @param latest the latest instant accepted (now + 1 day)
   * @param zone where local times are read (`--timezone`); without it they are refused
   * @param order how `28/11/2026 09:30` is read (`--date-order`); without it such dates are refused
   */
  constructor(
    private readonly latest: number = Date.now() + DAY_MS,
    private readonly zone?: Zone,
    private readonly order?: DateOrder,
  ) {}

  read(value: unknown): number | string {
    if (typeof value !== 'string') return parseTimestamp(value, this.latest);
    let r = this.seen.get(value);
    if (r === undefined) {
      r = readTimestamp(value, this.latest, this.zone, this.order);
      if (this.seen.size === CACHE_SIZE) this.seen.clear();
      this.seen.set(value, r);
    }
    return r;
  }
}
