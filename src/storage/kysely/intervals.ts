/**
 * Series by interval in one query per page (decisions 130): observations are
 * grouped by an integer key per interval, the page's newest groups kept, and
 * each group's open and close read back on the primary key at its first and
 * last instants. Nothing of the window but the page's groups leaves the
 * database.
 */
import { type RawBuilder, sql } from 'kysely';
import { DAY_MS } from '../../domain/dates.js';
import { type Interval, type IntervalSummary, intervalKey, intervalStart } from '../../domain/intervals.js';
import type { Purity } from '../../domain/types.js';
import type { GoldIntervalSummary, GoldIntervalsQuery, RateIntervalsQuery } from '../repositories/market.js';
import type { Db } from './database.js';

type Dialect = 'sqlite' | 'postgres';

/**
 * The interval's key of `updated_at`, as domain/intervals.ts `intervalKey`:
 * instants are non-negative epoch ms, so integer division is the UTC day on
 * both dialects; a month is year × 12 + month − 1, read from the UTC calendar.
 */
function keyOf(interval: Interval, dialect: Dialect, column: string): RawBuilder<number> {
  const at = sql.ref(column);
  const day = sql`(${at} / ${sql.lit(DAY_MS)})`;
  if (interval === 'day') return sql<number>`${day}`;
  if (interval === 'week') return sql<number>`((${day} + 3) / 7)`;
  if (dialect === 'postgres') {
    const ts = sql`(to_timestamp(${at} / 1000) at time zone 'UTC')`;
    return sql<number>`(extract(year from ${ts})::int * 12 + extract(month from ${ts})::int - 1)`;
  }
  const part = (p: string) => sql`cast(strftime(${sql.lit(p)}, ${at} / 1000, 'unixepoch') as integer)`;
  return sql<number>`(${part('%Y')} * 12 + ${part('%m')} - 1)`;
}

interface Row {
  k: number | string;
  first_at: number | string;
  last_at: number | string;
  n: number | string;
  buy_open: number | string;
  buy_high: number | string;
  buy_low: number | string;
  buy_close: number | string;
  sell_open: number | string;
  sell_high: number | string;
  sell_low: number | string;
  sell_close: number | string;
}

// PostgreSQL's driver returns BIGINT and count(*) as strings.
const summary = (r: Row): IntervalSummary => ({
  key: Number(r.k),
  firstUpdatedAt: Number(r.first_at),
  lastUpdatedAt: Number(r.last_at),
  observations: Number(r.n),
  buy: {
    open: Number(r.buy_open),
    high: Number(r.buy_high),
    low: Number(r.buy_low),
    close: Number(r.buy_close),
  },
  sell: {
    open: Number(r.sell_open),
    high: Number(r.sell_high),
    low: Number(r.sell_low),
    close: Number(r.sell_close),
  },
});

const AGGREGATES = sql`min(updated_at) as first_at, max(updated_at) as last_at, count(*) as n,
  max(buy) as buy_high, min(buy) as buy_low, max(sell) as sell_high, min(sell) as sell_low`;
/**
 * Each group's open and close: the row at its first and last instant, read by
 * a scalar subquery on the primary key. A join on those instants was planned,
 * on PostgreSQL before its statistics knew the rows, as a scan of the series
 * per group (seconds); a scalar subquery is always one seek.
 */
function ends(table: 'rates' | 'gold', series: RawBuilder<unknown>) {
  const at = (column: 'buy' | 'sell', instant: 'first_at' | 'last_at') =>
    sql`(select e.${sql.ref(column)} from ${sql.table(table)} e where ${series} and e.updated_at = b.${sql.ref(instant)})`;
  return sql`${at('buy', 'first_at')} as buy_open, ${at('sell', 'first_at')} as sell_open,
    ${at('buy', 'last_at')} as buy_close, ${at('sell', 'last_at')} as sell_close`;
}

export async function rateIntervals(
  db: Db,
  dialect: Dialect,
  q: RateIntervalsQuery,
): Promise<IntervalSummary[]> {
  const upTo = q.before === undefined ? q.to : Math.min(q.to, q.before - 1);
  const series = sql`e.currency = ${q.currency} and e.source = ${q.source}`;
  const { rows } = await sql<Row>`
    select b.*, ${ends('rates', series)}
    from (
      select ${keyOf(q.interval, dialect, 'updated_at')} as k, ${AGGREGATES}
      from rates
      where currency = ${q.currency} and source = ${q.source} and updated_at >= ${q.from} and updated_at <= ${upTo}
      group by 1 order by 1 desc limit ${q.limit}
    ) b
    order by b.k desc`.execute(db);
  return rows.map(summary);
}

export async function goldIntervals(
  db: Db,
  dialect: Dialect,
  q: GoldIntervalsQuery,
): Promise<GoldIntervalSummary[]> {
  const after = q.after;
  let position = sql``;
  let upTo = q.to;
  if (after) {
    // The previous page ended inside the interval starting at `after.start`:
    // only its later purities, and older intervals, are left.
    const key = intervalKey(q.interval, after.start);
    upTo = Math.min(q.to, intervalStart(q.interval, key + 1) - 1);
    position = sql`where g.k < ${key} or (g.k = ${key} and g.purity > ${after.purity})`;
  }
  const { rows } = await sql<Row & { purity: string }>`
    select b.*, ${ends('gold', sql`e.purity = b.purity`)}
    from (
      select * from (
        select purity, ${keyOf(q.interval, dialect, 'updated_at')} as k, ${AGGREGATES}
        from gold
        where updated_at >= ${q.from} and updated_at <= ${upTo}
        group by purity, 2
      ) g
      ${position}
      order by g.k desc, g.purity asc limit ${q.limit}
    ) b
    order by b.k desc, b.purity asc`.execute(db);
  return rows.map((r) => ({ purity: r.purity as Purity, ...summary(r) }));
}
