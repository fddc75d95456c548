/**
 * Usage by UTC day, the month's statement, and the record of each usage
 * commit (docs/decisions.md, 59): the types of the usage repository
 * (repositories/usage.ts), read by kysely/usage.ts. The commits themselves are
 * each backend's own (sqlite-usage.ts, postgres.ts).
 */
import type { Generated } from 'kysely';

/** Units of one key of a grant on one UTC day (`YYYY-MM-DD`); negative for a give-back. */
export interface DailyIncrement {
  grantId: string;
  keyId: string;
  day: string;
  count: number;
}

/** What a usage commit carries besides the monthly increments. */
export interface UsageCommit {
  /**
   * Written in the commit's transaction (PostgreSQL), so that after a lost
   * reply `usageBatchOutcome` can tell whether it was applied.
   */
  batchId?: string;
  /** The same units by key and day: their sum per month is the month's increment. */
  daily?: readonly DailyIncrement[];
}

/** The answer to "was this batch applied?", asked once its commit failed. */
export interface BatchOutcome {
  applied: boolean;
  /** What the commit recorded with its id (the store limiter's outcomes, as JSON). */
  detail: string | null;
}

export interface DailyUsage {
  day: string;
  /** The grant's units that day: the sum over its keys. */
  total: number;
  keys: Array<{ keyId: string; used: number }>;
}

export interface StatementLine {
  grantId: string;
  accountId: string;
  /** The billing system's customer id (accounts.external_id), when set. */
  accountExternalId: string | null;
  /** The provider's id for the grant (grants.external_id), when set. */
  grantExternalId: string | null;
  plan: string;
  provider: string;
  monthlyRequestLimit: number;
  /** Units counted in the month (0 when none). */
  used: number;
  /** The grant's status now. */
  status: 'active' | 'suspended' | 'cancelled';
  /** When it was cancelled; null unless it is. */
  cancelledAt: number | null;
}

/** The tables of migration 0007 (typed here, beside the queries that read them). */
export interface UsageDailyTable {
  grant_id: string;
  key_id: string;
  day: string;
  used: number;
}

export interface UsageBatchesTable {
  id: string;
  committed_at: number;
  detail: string | null;
  claimed: Generated<boolean>;
}

/**
 * How long a commit's id is kept (PostgreSQL). It is read only after that
 * commit failed, by the instance that sent it, within USAGE_LOOKUP_GIVE_UP_MS;
 * longer would only grow the table by one row per commit.
 */
export const BATCH_ID_RETENTION_MS = 3_600_000;
/** An instance stops asking about a failed commit after this (well inside the retention). */
export const USAGE_LOOKUP_GIVE_UP_MS = BATCH_ID_RETENTION_MS / 2;

/**
 * Errors of a usage commit that was never sent (no connection could be had):
 * nothing to look up. Marked on the driver's error, which the store wraps.
 */
const NOT_SENT = Symbol('usage commit not sent');
export function markNotSent(err: unknown): unknown {
  if (err !== null && typeof err === 'object') Object.defineProperty(err, NOT_SENT, { value: true });
  return err;
}
export function wasNotSent(err: unknown): boolean {
  for (let e = err; e !== null && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as Record<symbol, unknown>)[NOT_SENT] === true) return true;
  }
  return false;
}

/**
 * The day's counts per key of a store-limiter batch: the first `allowed`
 * requests of each grant were let through, so their keys, in arrival order,
 * are the ones counted. SQLite's; PostgreSQL counts them in mds_consume_usage
 * (migrations/0009-consume-function.ts), the same way.
 */
export function dailyOfTaken(
  taken: ReadonlyArray<{ grantId: string; keyIds?: readonly string[] }>,
  counts: readonly number[],
  day: string,
): DailyIncrement[] {
  const out: DailyIncrement[] = [];
  taken.forEach((r, i) => {
    const byKey = new Map<string, number>();
    for (let j = 0; j < counts[i]!; j++) {
      const key = r.keyIds?.[j] ?? '';
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
    }
    for (const [keyId, count] of [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
      out.push({ grantId: r.grantId, keyId, day, count });
  });
  return out;
}
