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
 * Appends the quota headers to a flat [name, value, …] list, in a fixed order.
 * The reset counts from the limiter's own instant (`state.at`), not this
 * instance's clock: instances then agree on it.
 */
export function pushQuotaHeaders(state: LimitState, headers: string[]): void {
  const minute = limitText(state.minuteLimit);
  headers.push(
    'ratelimit-limit',
    minute.text,
    'ratelimit-remaining',
    String(state.minuteRemaining),
    'ratelimit-reset',
    String(secondsUntil(state.minuteResetAt, state.at)),
    'ratelimit-policy',
    minute.policy,
    'x-monthly-quota-limit',
    limitText(state.monthLimit).text,
    'x-monthly-quota-remaining',
    String(state.monthRemaining),
    'x-monthly-quota-reset',
    monthPeriod(state.monthStart).endIso,
  );
}
