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
 * Appends the quota headers to a flat [name, value, …] list, in a fixed order.
 * The reset counts from the limiter's own instant (`state.at`), not this
 * instance's clock: instances then agree on it (issue #13).
 */
export function pushQuotaHeaders(state: LimitState, headers: string[]): void {
  headers.push(
    'ratelimit-limit',
    String(state.minuteLimit),
    'ratelimit-remaining',
    String(state.minuteRemaining),
    'ratelimit-reset',
    String(secondsUntil(state.minuteResetAt, state.at)),
    'ratelimit-policy',
    `${state.minuteLimit};w=60`,
    'x-monthly-quota-limit',
    String(state.monthLimit),
    'x-monthly-quota-remaining',
    String(state.monthRemaining),
    'x-monthly-quota-reset',
    monthPeriod(state.monthStart).endIso,
  );
}
