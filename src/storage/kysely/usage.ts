/**
 * Durable usage reads (the month, the days, the statement), the store
 * limiter's minute give-back, and the lookup of a usage commit's id, as Kysely
 * writes them for either dialect. The commits on the request path (addUsage,
 * consumeUsage) are each backend's own: sqlite-usage.ts, postgres.ts.
 */
import { type Kysely, sql } from 'kysely';
import type {
  ConsumeOutcome,
  ConsumeRequest,
  UsageIncrement,
  UsageRepository,
} from '../repositories/usage.js';
import type { Database } from '../schema.js';
import type {
  BatchOutcome,
  DailyUsage,
  StatementLine,
  UsageBatchesTable,
  UsageCommit,
  UsageDailyTable,
} from '../usage-records.js';
import type { Db } from './database.js';

type UsageDb = Kysely<Database & { usage_daily: UsageDailyTable; usage_batches: UsageBatchesTable }>;
const typed = (db: Db) => db as unknown as UsageDb;

/** The audit log's record of a change to `cancelled` (kysely/audit.ts writes `changes` as compact JSON). */
const CANCELLED_CHANGE = '%"status":{"before":%,"after":"cancelled"}%';

/**
 * PostgreSQL's answer: claim the id. A commit that wrote it holds or held its
 * row, so the claim waits for that commit to end and then finds it (applied);
 * otherwise the claim is inserted, and a commit still on its way fails on it.
 * A claim is marked as one: when its own reply is lost, asking again finds
 * the claim, not a commit.
 */
export async function claimBatch(db: Db, batchId: string, now: number): Promise<BatchOutcome> {
  const t = typed(db);
  const claimed = await t
    .insertInto('usage_batches')
    .values({ id: batchId, committed_at: now, detail: null, claimed: true })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (claimed) return { applied: false, detail: null };
  const row = await t
    .selectFrom('usage_batches')
    .select(['detail', 'claimed'])
    .where('id', '=', batchId)
    .executeTakeFirst();
  // A claim found (this question asked before, its answer lost): never applied. No
  // row at all is only possible past the retention, which askOutcome stops before.
  if (!row || row.claimed) return { applied: false, detail: null };
  return { applied: true, detail: row.detail ?? null };
}

/**
 * The usage repository: its reads as both backends run them; the commits on
 * the request path are each backend's own (sqlite-usage.ts, postgres.ts).
 */
export abstract class KyselyUsage implements UsageRepository {
  constructor(protected readonly db: Db) {}

  async getUsage(grantId: string, period: string): Promise<number> {
    const r = await this.db
      .selectFrom('usage')
      .select('used')
      .where('grant_id', '=', grantId)
      .where('period', '=', period)
      .executeTakeFirst();
    return r ? Number(r.used) : 0;
  }

  async getMinuteUsage(grantId: string, window: number): Promise<number> {
    const r = await this.db
      .selectFrom('minute_usage')
      .select(['window_start', 'used'])
      .where('grant_id', '=', grantId)
      .executeTakeFirst();
    return r && Number(r.window_start) === window ? Number(r.used) : 0;
  }

  async releaseMinute(grantId: string, window: number, count: number): Promise<void> {
    await this.db
      .updateTable('minute_usage')
      .set({ used: sql`case when used > ${count} then used - ${count} else 0 end` })
      .where('grant_id', '=', grantId)
      .where('window_start', '=', window)
      .execute();
  }

  async dailyUsage(grantId: string, fromDay: string, toDay: string): Promise<DailyUsage[]> {
    const rows = await typed(this.db)
      .selectFrom('usage_daily')
      .select(['day', 'key_id', 'used'])
      .where('grant_id', '=', grantId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .orderBy('day')
      .orderBy('key_id')
      .execute();
    const days: DailyUsage[] = [];
    for (const r of rows) {
      let last = days.at(-1);
      if (last?.day !== r.day) {
        last = { day: r.day, total: 0, keys: [] };
        days.push(last);
      }
      const used = Number(r.used);
      last.total += used;
      last.keys.push({ keyId: r.key_id, used });
    }
    return days;
  }

  async monthlyStatement(period: string): Promise<StatementLine[]> {
    const [year, month] = period.split('-').map(Number) as [number, number];
    const monthEnd = Date.UTC(year, month, 1);
    const rows = await typed(this.db)
      .selectFrom('grants')
      .innerJoin('accounts', 'accounts.id', 'grants.account_id')
      .leftJoin('usage', (j) => j.onRef('usage.grant_id', '=', 'grants.id').on('usage.period', '=', period))
      .select([
        'grants.id as grant_id',
        'grants.account_id',
        'accounts.external_id as account_external_id',
        'grants.external_id as grant_external_id',
        'grants.plan',
        'grants.provider',
        'grants.monthly_request_limit',
        'grants.status',
        sql<number>`coalesce(usage.used, 0)`.as('used'),
        // When it was cancelled: the audit record of that change (the log is append-only, decisions 57;
        // a grant is cancelled once, for good), the grant's last change if none were found.
        sql<number | null>`case when grants.status = 'cancelled' then coalesce(
          (select min(a.at) from audit_log a
            where a.target_id = grants.id and a.action in ('grant.create', 'grant.update')
              and a.changes like ${CANCELLED_CHANGE}),
          grants.updated_at) end`.as('cancelled_at'),
      ])
      .where('grants.created_at', '<', monthEnd)
      .orderBy('grants.account_id')
      .orderBy('grants.id')
      .execute();
    return rows.map((r) => ({
      grantId: r.grant_id,
      accountId: r.account_id,
      accountExternalId: r.account_external_id ?? null,
      grantExternalId: r.grant_external_id ?? null,
      plan: r.plan,
      provider: r.provider,
      monthlyRequestLimit: Number(r.monthly_request_limit),
      used: Number(r.used),
      status: r.status as StatementLine['status'],
      cancelledAt: r.cancelled_at === null ? null : Number(r.cancelled_at),
    }));
  }

  abstract addUsage(increments: readonly UsageIncrement[], now: number, commit?: UsageCommit): Promise<void>;
  abstract consumeUsage(
    requests: readonly ConsumeRequest[],
    now: number,
    batchId?: string,
  ): Promise<ConsumeOutcome[]>;
  abstract usageBatchOutcome(batchId: string, now: number): Promise<BatchOutcome>;
}
