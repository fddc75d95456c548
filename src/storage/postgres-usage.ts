/**
 * The usage commits' statements on PostgreSQL (docs/decisions.md, 59): apart
 * from postgres.ts for size.
 */
import { utcDay } from '../domain/dates.js';
import type { ConsumeRequest, UsageIncrement } from './store.js';
import { BATCH_ID_RETENTION_MS, type UsageCommit } from './usage-records.js';

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
function addUsageText(prune: boolean): string {
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

/** A usage round trip as node-postgres sends it: a named (prepared) statement and its values. */
export interface UsageStatement {
  name: string;
  text: string;
  values: unknown[];
}

// Built once: a commit runs on every tick that served a request.
const ADD_USAGE = addUsageText(false);
const ADD_USAGE_PRUNE = addUsageText(true);

/**
 * The usage commit of one tick: the month increments, the day increments and
 * the batch id of `commit`; `prune` adds the bounded delete of expired batch ids.
 */
export function addUsageStatement(
  increments: readonly UsageIncrement[],
  now: number,
  commit: UsageCommit,
  prune: boolean,
): UsageStatement {
  const daily = commit.daily ?? [];
  const values = [
    increments.map((i) => i.grantId),
    increments.map((i) => i.period),
    increments.map((i) => i.count),
    now,
    commit.batchId ?? null,
    daily.map((d) => d.grantId),
    daily.map((d) => d.day),
    daily.map((d) => d.keyId),
    daily.map((d) => d.count),
  ];
  return prune
    ? { name: 'mds_add_usage_prune', text: ADD_USAGE_PRUNE, values }
    : { name: 'mds_add_usage', text: ADD_USAGE, values };
}

/** The store limiter's check-and-consume: one call (migrations/0009-consume-function.ts), one round trip. */
const CONSUME_TEXT =
  'select window_start, minute_used, month_used, allowed from mds_consume_usage($1::text[], $2::text[], ' +
  '$3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::int[], $8::int[], $9::text[], $10::bigint, $11::text, $12::text)';

/** A row of mds_consume_usage: bigints, read as numbers (postgres.ts, INT8_OID). */
export interface ConsumeRow {
  window_start: number;
  minute_used: number;
  month_used: number;
  allowed: number;
}

/** The store limiter's call for the requests of one tick, with its batch id. */
export function consumeStatement(
  requests: readonly ConsumeRequest[],
  now: number,
  batchId?: string,
): UsageStatement {
  // Each waiting request: its grant (1-based), its place among that grant's, its key.
  const keyGrant: number[] = [];
  const keyPos: number[] = [];
  const keyIds: string[] = [];
  requests.forEach((r, i) => {
    for (let j = 0; j < r.count; j++) {
      keyGrant.push(i + 1);
      keyPos.push(j + 1);
      keyIds.push(r.keyIds?.[j] ?? '');
    }
  });
  const values = [
    requests.map((r) => r.grantId),
    requests.map((r) => r.period),
    requests.map((r) => r.window),
    requests.map((r) => r.count),
    requests.map((r) => r.requestsPerMinute),
    requests.map((r) => r.monthlyRequestLimit),
    keyGrant,
    keyPos,
    keyIds,
    now,
    utcDay(now),
    batchId ?? null,
  ];
  return { name: 'mds_consume_usage', text: CONSUME_TEXT, values };
}
