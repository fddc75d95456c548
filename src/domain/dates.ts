/** Calendar arithmetic in UTC. All instants are epoch milliseconds. */

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of 00:00:00.000Z on a `YYYY-MM-DD` date, or null if the text is not a real date. */
export function parseDate(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear takes the year as given.
  const date = new Date(Date.UTC(2000, mo - 1, d));
  date.setUTCFullYear(y);
  const ms = date.getTime();
  const back = new Date(ms);
  // Date.UTC rolls 2025-02-30 over to March; a real date survives the round trip.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms;
}

export function startOfDay(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

export interface MonthPeriod {
  start: number;
  end: number;
  key: string;
  /** `end` as ISO 8601, for the X-Monthly-Quota-Reset header. */
  endIso: string;
}

// Every request asks for the current month; computing it once per month is enough.
let lastMonth: MonthPeriod = { start: 0, end: 0, key: '', endIso: '' };

/** The calendar month in UTC that contains `ms` (decisions §5). */
export function monthPeriod(ms: number): MonthPeriod {
  if (ms >= lastMonth.start && ms < lastMonth.end) return lastMonth;
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const end = Date.UTC(y, m + 1, 1);
  lastMonth = {
    start: Date.UTC(y, m, 1),
    end,
    key: `${y}-${String(m + 1).padStart(2, '0')}`,
    endIso: new Date(end).toISOString(),
  };
  return lastMonth;
}

/** The start of the UTC minute that contains `ms` (no allocation: on every request). */
export const minuteStart = (ms: number): number => ms - (ms % MINUTE_MS);

/** The fixed 60-second window aligned to the UTC minute that contains `ms`. */
export function minuteWindow(ms: number): { start: number; end: number } {
  const start = minuteStart(ms);
  return { start, end: start + MINUTE_MS };
}

/** Whole seconds from `now` until `end`, at least 1 (header semantics). */
export function secondsUntil(end: number, now: number): number {
  return Math.max(1, Math.ceil((end - now) / 1000));
}

// Every unit counted is counted on its UTC day too; as with the month, computing it once a day is enough.
let dayStart = 0;
let dayEnd = 0;
let dayKey = '1970-01-01';
/** The UTC day of `ms` as `YYYY-MM-DD`; the last one is kept, so a request costs a comparison. */
export function utcDay(ms: number): string {
  if (ms >= dayStart && ms < dayEnd) return dayKey;
  dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
  dayEnd = dayStart + DAY_MS;
  dayKey = new Date(dayStart).toISOString().slice(0, 10);
  return dayKey;
}
