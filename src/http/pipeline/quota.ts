/**
 * The quota headers of the specification (Errors), and which statuses carry them.
 */
import { monthPeriod, secondsUntil } from '../../domain/dates.js';
import type { LimitState } from '../../limits/limiter.js';

/** Statuses that carry the quota headers (specification, Errors). */
export const WITH_QUOTA: ReadonlySet<number> = new Set([200, 304, 400, 404, 429]);

export const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
] as const;

/**
 * The text of a limit, and its policy: limits are a grant's settings, few and
 * long-lived, so each is formatted once. A limit past 2^31 (the benchmark's key,
 * a generous plan) is a heap number whose formatting is not cached by V8; the
 * three conversions were about 1 % of a /v1/rates/latest request under wrk.
 */
const limitTexts = new Map<number, { text: string; policy: string }>();
function limitText(limit: number): { text: string; policy: string } {
  let t = limitTexts.get(limit);
  if (t === undefined) {
    // Bounded: limits come from grants an operator created, but a map must not grow without end.
    if (limitTexts.size >= 1_000) limitTexts.clear();
    t = { text: String(limit), policy: `${limit};w=60` };
    limitTexts.set(limit, t);
  }
  return t;
}

/**
 * The texts of the last limit seen in one place (the minute's, the month's):
 * a client sends its key again and again, so its grant's limit is compared,
 * not hashed for the map (each lookup of a heap number hashes it).
 */
class LastLimit {
  private limit = Number.NaN;
  private texts = { text: '', policy: '' };

  of(limit: number): { text: string; policy: string } {
    if (limit !== this.limit) {
      this.texts = limitText(limit);
      this.limit = limit;
    }
    return this.texts;
  }
}
const minuteLimit = new LastLimit();
const monthLimit = new LastLimit();

/** '0'…'999', and the same padded to three digits: the pieces of countText. */
const PLAIN = Array.from({ length: 1_000 }, (_, i) => String(i));
const PADDED = PLAIN.map((t) => t.padStart(3, '0'));

/**
 * The decimal text of a count, as `String(n)` writes it, without V8's
 * number-to-string conversion. That conversion keeps its result in a cache
 * that lives in the old generation, so V8 allocates every string it makes
 * for a number not seen lately there: two per answer (the remaining counts
 * change with every request), garbage only a full mark-compact reclaims,
 * about every 1.5 s under load (docs/performance-notes.md). Three digits at a
 * time from a table, joined, make a young string at half the cost. Counts
 * are whole numbers from 0 to 2^53; anything else goes to `String`.
 */
export function countText(n: number): string {
  if (!(Number.isSafeInteger(n) && n >= 0)) return String(n);
  let rest = n;
  let text = '';
  while (rest >= 1_000) {
    const high = Math.floor(rest / 1_000);
    text = PADDED[rest - high * 1_000]! + text;
    rest = high;
  }
  return PLAIN[rest]! + text;
}

/**
 * The quota headers, flat [name, value, …] in a fixed order: a new list that
 * the pipeline then extends (decide.ts). The reset counts from the limiter's
 * own instant (`state.at`), not this instance's clock: instances then agree on it.
 */
export function quotaHeaders(state: LimitState): string[] {
  const minute = minuteLimit.of(state.minuteLimit);
  return [
    'ratelimit-limit',
    minute.text,
    'ratelimit-remaining',
    countText(state.minuteRemaining),
    'ratelimit-reset',
    countText(secondsUntil(state.minuteResetAt, state.at)),
    'ratelimit-policy',
    minute.policy,
    'x-monthly-quota-limit',
    monthLimit.of(state.monthLimit).text,
    'x-monthly-quota-remaining',
    countText(state.monthRemaining),
    'x-monthly-quota-reset',
    monthPeriod(state.monthStart).endIso,
  ];
}
