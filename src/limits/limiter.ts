/**
 * Limits (decisions §5): per grant, a fixed 60-second window aligned to the UTC
 * minute, then a calendar-month quota. Two implementations: in-process for the
 * embedded default (memory.ts) and Redis for scale-out (redis.ts).
 */

import { MINUTE_MS, minuteStart, monthPeriod } from '../domain/dates.js';

export interface GrantLimits {
  id: string;
  requestsPerMinute: number;
  monthlyRequestLimit: number;
}

export interface LimitState {
  /**
   * The instant the decision was taken, by the clock of the limiter's authority
   * (Redis's TIME for the Redis limiter, the caller's otherwise). Reset headers
   * count from it, so an instance whose clock is off still reports the window
   * every other instance reports.
   */
  at: number;
  /** Start of the minute window counted (epoch ms). */
  window: number;
  /** The calendar month counted (`YYYY-MM`). */
  period: string;
  minuteLimit: number;
  /** After this request. */
  minuteRemaining: number;
  /** Epoch ms when the current minute window ends. */
  minuteResetAt: number;
  monthLimit: number;
  monthRemaining: number;
  monthStart: number;
  monthResetAt: number;
  monthUsed: number;
}

export interface LimitDecision extends LimitState {
  allowed: boolean;
  reason?: 'rate_limited' | 'quota_exceeded';
  /** Epoch ms when the refusing window accepts a request again. */
  retryAt?: number;
}

/** The state both limiters report, from the counts after the request. */
export function limitState(
  grant: GrantLimits,
  now: number,
  minuteUsed: number,
  monthUsed: number,
): LimitState {
  return decisionAt(grant, now, minuteUsed, monthUsed, true);
}

/**
 * A state or decision, made with every field a decision has. Adding
 * `allowed` to an object made without it moved the object to another hidden
 * class and gave it a second array for the extra properties, on every
 * request; made whole, every decision shares one shape.
 */
function decisionAt(
  grant: GrantLimits,
  now: number,
  minuteUsed: number,
  monthUsed: number,
  allowed: boolean,
  reason?: 'rate_limited' | 'quota_exceeded',
  retryAt?: number,
): LimitDecision {
  const month = monthPeriod(now);
  const window = minuteStart(now);
  return {
    at: now,
    window,
    period: month.key,
    minuteLimit: grant.requestsPerMinute,
    minuteRemaining: Math.max(0, grant.requestsPerMinute - minuteUsed),
    minuteResetAt: window + MINUTE_MS,
    monthLimit: grant.monthlyRequestLimit,
    monthRemaining: Math.max(0, grant.monthlyRequestLimit - monthUsed),
    monthStart: month.start,
    monthResetAt: month.end,
    monthUsed,
    allowed,
    reason,
    retryAt,
  };
}

/**
 * How every limiter answers a grant's requests once it knows the counts before
 * them (one request, or a tick's batch): each request taken sees the counts
 * after itself (allowedAt); those it could not take share one refusal
 * (refusedAt), quota_exceeded while the month is used up (even if the minute
 * is full too: the month binds), else rate_limited.
 */
export function allowedAt(
  grant: GrantLimits,
  at: number,
  minuteUsed: number,
  monthUsed: number,
): LimitDecision {
  return decisionAt(grant, at, minuteUsed, monthUsed, true);
}

/**
 * The refusal of a grant's requests past its limits; `windowEnd` ends the minute
 * counted. When both limits are used up the month binds (docs/decisions.md,
 * §1): its Retry-After is the month's reset, where the minute's would send the
 * client back in seconds for nothing.
 */
export function refusedAt(
  grant: GrantLimits,
  at: number,
  minuteUsed: number,
  monthUsed: number,
  windowEnd: number,
): LimitDecision {
  return minuteUsed >= grant.requestsPerMinute && monthUsed < grant.monthlyRequestLimit
    ? decisionAt(grant, at, minuteUsed, monthUsed, false, 'rate_limited', windowEnd)
    : decisionAt(grant, at, minuteUsed, monthUsed, false, 'quota_exceeded', monthPeriod(at).end);
}

export interface Limiter {
  readonly kind: 'memory' | 'redis' | 'store';
  /**
   * Checks both limits and, if both allow, consumes one unit of each in one
   * atomic step. Resolves only once the monthly unit is durable, counted on
   * its UTC day for `keyId` (the key's public id) too.
   */
  consume(grant: GrantLimits, now: number, keyId?: string): Promise<LimitDecision>;
  /** Current values without consuming (for the headers of a 400). */
  peek(grant: GrantLimits, now: number): Promise<LimitState>;
  /**
   * Gives back the unit `consumed` took, for a request that then failed with a
   * 5xx: to the window and month it was counted in (not the current ones), and
   * as durably as it was taken. Resolves once the give-back is committed; if
   * the store refuses it, it stays queued and is retried (UsageRecorder).
   */
  refund(grant: GrantLimits, consumed: LimitState, keyId?: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The limiter cannot decide now (its Redis, or the store it counts in, is
 * away). Every limiter throws this, and only this, for its failures: callers
 * test the type (docs/architecture.md, errors), never the cause's codes or messages.
 */
export class LimiterUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('limiter unavailable', { cause });
    this.name = 'LimiterUnavailableError';
  }
}

/** `err` as a limiter reports it: a LimiterUnavailableError, wrapping it unless it is one. */
export const limiterFailure = (err: unknown): LimiterUnavailableError =>
  err instanceof LimiterUnavailableError ? err : new LimiterUnavailableError(err);

/** Rethrows `err` as a limiter's failure (for `.catch` and `catch` blocks). */
export const rethrowLimiterFailure = (err: unknown): never => {
  throw limiterFailure(err);
};
