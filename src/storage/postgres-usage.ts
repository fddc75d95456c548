/**
 * The usage commits' statements on PostgreSQL (docs/decisions.md, 59): apart
 * from postgres.ts for size.
 */
import { sql, type Transaction } from 'kysely';
import { utcDay } from '../domain/dates.js';
import type { Database } from './schema.js';
import { allowedOf, type ConsumeOutcome, type ConsumeRequest } from './store.js';
import { BATCH_ID_RETENTION_MS, dailyOfTaken } from './usage-records.js';

/** Every PRUNE_EVERY-th commit deletes up to PRUNE_LIMIT expired batch ids: four times the rate they are made. */
export const PRUNE_EVERY = 64;
const PRUNE_LIMIT = 256;

/**
 * One statement, one round trip: $1–$3 the month increments, $4 now, $5 the
 * batch id (or null), $6–$9 the day increments. The main query (the month rows)
 * runs before the WITH clauses it does not read, so every commit locks rows in
 * one order: usage, then the batch id, then the days, as the store limiter's
 * transaction does. A prune skips rows another instance's prune holds: no
 * waits, no deadlock.
 */
export function addUsageText(prune: boolean): string {
  const pruning = prune
    ? `,
    p as (delete from usage_batches where id in (select id from usage_batches
      where committed_at < $4::bigint - ${BATCH_ID_RETENTION_MS} order by committed_at limit ${PRUNE_LIMIT} for update skip locked))`
    : '';
  return `with b as (insert into usage_batches (id, committed_at) select $5::text, $4::bigint where $5::text is not null),
    d as (insert into usage_daily (grant_id, day, key_id, used)
      select g, dy, k, c from unnest($6::text[], $7::text[], $8::text[], $9::bigint[]) as t(g, dy, k, c)
      on conflict (grant_id, day, key_id) do update set used = usage_daily.used + excluded.used)${pruning}
    insert into usage (grant_id, period, used, updated_at)
    select g, p, c, $4::bigint from unnest($1::text[], $2::text[], $3::bigint[]) as t(g, p, c)
    on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`;
}

/** The store limiter's transaction (PostgresParts.consumeUsage): its statements, in lock order. */
export async function consumeIn(
  trx: Transaction<Database>,
  requests: readonly ConsumeRequest[],
  sorted: readonly ConsumeRequest[],
  ids: readonly string[],
  now: number,
  batchId: string | undefined,
): Promise<ConsumeOutcome[]> {
  const months = await sql<{ grant_id: string; used: number }>`
    insert into usage (grant_id, period, used, updated_at)
    select g, p, 0, ${now} from unnest(${ids}::text[], ${sorted.map((r) => r.period)}::text[]) with ordinality as t(g, p, o) order by o
    on conflict (grant_id, period) do update set updated_at = usage.updated_at
    returning grant_id, used`.execute(trx);
  // A window older than the stored one (an instance whose clock is behind) counts
  // in the stored one: the window never moves backwards.
  const minutes = await sql<{ grant_id: string; window_start: number; used: number }>`
    insert into minute_usage (grant_id, window_start, used)
    select g, w, 0 from unnest(${ids}::text[], ${sorted.map((r) => r.window)}::bigint[]) with ordinality as t(g, w, o) order by o
    on conflict (grant_id) do update set
      used = case when excluded.window_start > minute_usage.window_start then 0 else minute_usage.used end,
      window_start = greatest(minute_usage.window_start, excluded.window_start)
    returning grant_id, window_start, used`.execute(trx);
  const month = new Map(months.rows.map((r) => [r.grant_id, Number(r.used)]));
  const minute = new Map(minutes.rows.map((r) => [r.grant_id, r]));
  const outcomes = new Map<string, ConsumeOutcome>();
  for (const r of sorted) {
    const m = minute.get(r.grantId)!;
    const minuteUsed = Number(m.used);
    const monthUsed = month.get(r.grantId)!;
    const allowed = allowedOf(r.count, r.requestsPerMinute, minuteUsed, r.monthlyRequestLimit, monthUsed);
    outcomes.set(r.grantId, { window: Number(m.window_start), minuteUsed, monthUsed, allowed });
  }
  const taken = sorted.filter((r) => outcomes.get(r.grantId)!.allowed > 0);
  if (taken.length > 0) {
    const counts = taken.map((r) => outcomes.get(r.grantId)!.allowed);
    const takenIds = taken.map((r) => r.grantId);
    const daily = dailyOfTaken(taken, counts, utcDay(now));
    // The outcomes go with the batch id: after a lost reply, the requests can
    // still be answered as they were decided (StoreLimiter).
    const detail =
      batchId === undefined ? null : JSON.stringify(requests.map((r) => outcomes.get(r.grantId)!));
    // One statement: the month rows (already locked above), then the minute rows, the days, the id.
    await sql`
      with m as (update minute_usage set used = minute_usage.used + d.n
        from unnest(${takenIds}::text[], ${counts}::bigint[]) as d(g, n)
        where minute_usage.grant_id = d.g),
      dd as (insert into usage_daily (grant_id, day, key_id, used)
        select g, dy, k, c from unnest(${daily.map((d) => d.grantId)}::text[], ${daily.map((d) => d.day)}::text[],
          ${daily.map((d) => d.keyId)}::text[], ${daily.map((d) => d.count)}::bigint[]) as t(g, dy, k, c)
        on conflict (grant_id, day, key_id) do update set used = usage_daily.used + excluded.used),
      b as (insert into usage_batches (id, committed_at, detail) select ${batchId ?? null}::text, ${now}::bigint, ${detail}::text
        where ${batchId ?? null}::text is not null)
      update usage set used = usage.used + d.n, updated_at = ${now}
      from unnest(${takenIds}::text[], ${taken.map((r) => r.period)}::text[], ${counts}::bigint[]) as d(g, p, n)
      where usage.grant_id = d.g and usage.period = d.p`.execute(trx);
  }
  return requests.map((r) => outcomes.get(r.grantId)!);
}
