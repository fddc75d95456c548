/**
 * Migration 0009_consume_function (listed in migrations/index.ts; never edited once
 * released): the store limiter's check-and-consume as one PostgreSQL
 * function, so that a tick's batch costs one round trip in autocommit instead
 * of five (BEGIN, two locking upserts, the update, COMMIT), each of which
 * waited for a turn of a busy event loop (docs/decisions.md, 74). The
 * statements are those the transaction ran, in the same lock order: every
 * grant's month row, then every grant's minute row, in grant order (byte
 * order, as the callers sort), then the days in (grant, key) order. Additive:
 * the previous release does not call it. Nothing on SQLite, whose commits run
 * in the process.
 *
 * Arguments, one entry per grant in the caller's order: ids, periods, windows,
 * counts, requests per minute, monthly limits; then one entry per waiting
 * request: its grant's index (1-based), its position among that grant's
 * requests (1-based) and its key; then now, the UTC day and the batch id (or
 * null). Returns one row per grant, in the caller's order: the window counted,
 * the minute and month counts before the batch, and the units allowed. The
 * batch id is written with those outcomes (usage_batches.detail), so a caller
 * whose reply was lost answers the requests as they were decided. `allowed`
 * and the day's counts follow store.ts `allowedOf` and usage-records.ts
 * `dailyOfTaken`, SQLite's copies of the same rules.
 */
import { type Kysely, type Migration, SqliteAdapter, sql } from 'kysely';

/**
 * The function's text. `updates` adds the allowed units to the month and
 * minute rows the function locked at its start.
 */
export const consumeFunction = (create: string, updates: string) => `
${create} function mds_consume_usage(
  p_ids text[], p_periods text[], p_windows bigint[], p_counts bigint[], p_rpms bigint[], p_monthlies bigint[],
  p_key_grant int[], p_key_pos int[], p_key_ids text[], p_now bigint, p_day text, p_batch text)
returns table (window_start bigint, minute_used bigint, month_used bigint, allowed bigint)
language plpgsql as $fn$
#variable_conflict use_column
declare
  n int := coalesce(array_length(p_ids, 1), 0);
  ord int[];
  v_month bigint[];
  v_window bigint[];
  v_minute bigint[];
  v_allowed bigint[];
  i int;
  u bigint;
  w bigint;
  m bigint;
begin
  if n = 0 then
    return;
  end if;
  v_month := array_fill(0::bigint, array[n]);
  v_window := v_month;
  v_minute := v_month;
  v_allowed := v_month;
  select array_agg(o order by g collate "C", o) into ord from unnest(p_ids) with ordinality as t(g, o);
  foreach i in array ord loop
    insert into usage as x (grant_id, period, used, updated_at) values (p_ids[i], p_periods[i], 0, p_now)
      on conflict (grant_id, period) do update set updated_at = x.updated_at
      returning x.used into u;
    v_month[i] := u;
  end loop;
  -- A window older than the stored one (an instance whose clock is behind)
  -- counts in the stored one: the window never moves backwards.
  foreach i in array ord loop
    insert into minute_usage as x (grant_id, window_start, used) values (p_ids[i], p_windows[i], 0)
      on conflict (grant_id) do update set
        used = case when excluded.window_start > x.window_start then 0 else x.used end,
        window_start = greatest(x.window_start, excluded.window_start)
      returning x.window_start, x.used into w, m;
    v_window[i] := w;
    v_minute[i] := m;
    v_allowed[i] := greatest(0, least(p_counts[i], p_rpms[i] - m, p_monthlies[i] - v_month[i]));
  end loop;
  if exists (select 1 from unnest(v_allowed) as a where a > 0) then
${updates}    insert into usage_daily as x (grant_id, day, key_id, used)
      select p_ids[k.r], p_day, k.key, count(*)
      from unnest(p_key_grant, p_key_pos, p_key_ids) as k(r, pos, key)
      where k.pos <= v_allowed[k.r]
      group by k.r, k.key
      order by p_ids[k.r] collate "C", k.key collate "C"
      on conflict (grant_id, day, key_id) do update set used = x.used + excluded.used;
    if p_batch is not null then
      insert into usage_batches (id, committed_at, detail)
        select p_batch, p_now, json_agg(json_build_object(
          'window', v_window[j], 'minuteUsed', v_minute[j], 'monthUsed', v_month[j], 'allowed', v_allowed[j]
        ) order by j)::text
        from generate_subscripts(p_ids, 1) as j;
    end if;
  end if;
  return query select v_window[j], v_minute[j], v_month[j], v_allowed[j]
    from generate_subscripts(p_ids, 1) as j order by j;
end
$fn$`;

/** 0009: the allowed units added by one UPDATE … FROM unnest() per table. */
const SET_UPDATES = `    update usage as x set used = x.used + d.n, updated_at = p_now
      from unnest(p_ids, p_periods, v_allowed) as d(g, p, n)
      where x.grant_id = d.g and x.period = d.p and d.n > 0;
    update minute_usage as x set used = x.used + d.n
      from unnest(p_ids, v_allowed) as d(g, n)
      where x.grant_id = d.g and d.n > 0;
`;

export const consumeMigration: Migration = {
  async up(db: Kysely<unknown>) {
    if (db.getExecutor().adapter instanceof SqliteAdapter) return;
    await sql.raw(consumeFunction('create', SET_UPDATES)).execute(db);
  },
};
