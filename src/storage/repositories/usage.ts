/**
 * Usage: the monthly and daily counts, the store limiter's minute counts, and
 * the record of each usage commit (docs/decisions.md, 59). Reads in Kysely
 * (kysely/usage.ts); the commits on the request path are each backend's own
 * (sqlite-usage.ts, postgres.ts). Tested on both backends by
 * test/storage/usage.contract.test.ts and usage-records.contract.test.ts.
 */
import type { BatchOutcome, DailyUsage, StatementLine, UsageCommit } from '../usage-records.js';

export interface UsageIncrement {
  grantId: string;
  period: string;
  count: number;
}

/** One grant's requests of a tick, for the store's own check-and-consume. */
export interface ConsumeRequest {
  grantId: string;
  /** The month counted (`YYYY-MM`) and the start of the minute window (epoch ms). */
  period: string;
  window: number;
  requestsPerMinute: number;
  monthlyRequestLimit: number;
  /** Requests waiting, in arrival order. */
  count: number;
  /** The key of each waiting request, in the same order: the day's counts are per key. */
  keyIds?: readonly string[];
}

export interface ConsumeOutcome {
  /** The window counted: the request's, or a later one another instance already opened. */
  window: number;
  /** Counts before this batch. */
  minuteUsed: number;
  monthUsed: number;
  /** How many of the batch's requests were let through (the first ones). */
  allowed: number;
}

/**
 * The check-and-consume rule every limiter applies to a grant's batch: its
 * requests taken one after the other, each let through while both counts are
 * under their limits. Where the counts live decides where the rule runs: here
 * for SQLite, in Lua for Redis (limits/redis-scripts.ts), in PL/pgSQL for the
 * store limiter on PostgreSQL (migrations/0009-consume-function.ts); the limiter contract
 * suite holds the three to one behaviour.
 */
export function allowedOf(
  count: number,
  rpm: number,
  minuteUsed: number,
  monthly: number,
  monthUsed: number,
): number {
  return Math.max(0, Math.min(count, rpm - minuteUsed, monthly - monthUsed));
}

export interface UsageRepository {
  /**
   * SQLite, serving: while `quiet`, the usage commits checkpoint nothing on the
   * event loop (docs/decisions.md 98). Absent elsewhere.
   */
  quietCheckpoints?(quiet: boolean): void;
  /** One transaction: the months, and the days and batch id of `commit` (usage-records.ts). */
  addUsage(increments: readonly UsageIncrement[], now: number, commit?: UsageCommit): Promise<void>;
  getUsage(grantId: string, period: string): Promise<number>;
  /**
   * Checks both limits and consumes, in one transaction that serialises with
   * every other instance's (row locks on PostgreSQL, the write lock on SQLite):
   * per request, `allowed = min(count, rpm - minuteUsed, monthly - monthUsed)`,
   * and both counts grow by it. One entry per grant; outcomes in input order.
   */
  consumeUsage(requests: readonly ConsumeRequest[], now: number, batchId?: string): Promise<ConsumeOutcome[]>;
  /** The store limiter's minute count for `window` (0 when the stored window is another). */
  getMinuteUsage(grantId: string, window: number): Promise<number>;
  /** Takes `count` back from the minute count, if it still counts `window`. */
  releaseMinute(grantId: string, window: number, count: number): Promise<void>;

  /**
   * The grant's usage per UTC day from `fromDay` to `toDay` (inclusive,
   * `YYYY-MM-DD`), oldest first, each with its keys; days without use are absent.
   */
  dailyUsage(grantId: string, fromDay: string, toDay: string): Promise<DailyUsage[]>;
  /** Every grant created before the month ends, with its use in `period` (`YYYY-MM`). */
  monthlyStatement(period: string): Promise<StatementLine[]>;
  /**
   * Whether the usage commit `batchId` was applied. Decisive: when it was not,
   * it never will be (the id is claimed, so a commit still on its way fails).
   */
  usageBatchOutcome(batchId: string, now: number): Promise<BatchOutcome>;
}
