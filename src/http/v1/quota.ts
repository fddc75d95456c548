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
 * The decimal text of a count. Counts past 2^30 (a generous plan, the
 * benchmark's key) are heap numbers, which V8 formats through its
 * floating-point printer (about 1,100 instructions each under callgrind):
 * two integer halves format far cheaper, to the same text.
 */
export function countText(n: number): string {
  if (n < 1_073_741_824) return String(n);
  const high = Math.floor(n / 1e9);
  return `${high}${String(n - high * 1e9).padStart(9, '0')}`;
}

/**
 * The quota headers, flat [name, value, …] in a fixed order: a new list that
 * the pipeline then extends (decide.ts). The reset counts from the limiter's
 * own instant (`state.at`), not this instance's clock: instances then agree on it.
 */
export function quotaHeaders(state: LimitState): string[] {
  const minute = limitText(state.minuteLimit);
  return [
    'ratelimit-limit',
    minute.text,
    'ratelimit-remaining',
    countText(state.minuteRemaining),
    'ratelimit-reset',
    String(secondsUntil(state.minuteResetAt, state.at)),
    'ratelimit-policy',
    minute.policy,
    'x-monthly-quota-limit',
    limitText(state.monthLimit).text,
    'x-monthly-quota-remaining',
    countText(state.monthRemaining),
    'x-monthly-quota-reset',
    monthPeriod(state.monthStart).endIso,
  ];
}
