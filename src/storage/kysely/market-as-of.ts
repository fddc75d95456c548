/**
 * The market reads that pair an observation with the one its `change` is
 * computed against (decisions 122): the newest observation of each series at
 * or before an instant, and the newest of the same series before the start of
 * that observation's UTC day, at most 7 days before it. One statement each,
 * a primary-key seek per series and side, as kysely/market.ts reads the latest.
 */
import { type RawBuilder, sql } from 'kysely';
import { DAY_MS } from '../../domain/dates.js';
import {
  type GoldObservation,
  PURITIES,
  type Purity,
  type RateObservation,
  SOURCES,
  type Source,
} from '../../domain/types.js';
import type { GoldAsOf, RateAsOf, RatePoint, RatesAsOfQuery } from '../repositories/market.js';
import type { Db } from './database.js';

export type RateRow = { currency: string; source: string; updated_at: number; buy: number; sell: number };
export type GoldRow = { purity: string; updated_at: number; buy: number; sell: number };
type Previous = { p_updated_at: number | null; p_buy: number | null; p_sell: number | null };

export const toRate = (r: RateRow): RateObservation => ({
  currency: r.currency,
  source: r.source as Source,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});
export const toGold = (r: GoldRow): GoldObservation => ({
  purity: r.purity as Purity,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});
const previousOf = (r: Previous) =>
  r.p_updated_at === null
    ? null
    : { buy: Number(r.p_buy), sell: Number(r.p_sell), updatedAt: Number(r.p_updated_at) };

/** A one-column table of constants, written as both dialects read it (SQLite has no VALUES aliases). */
export const oneColumn = (name: string, values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`select ${sql.lit(v)} as ${sql.ref(name)}`),
    sql` union all `,
  );

/** Instants are non-negative epoch ms: `x - x % day` is the start of x's UTC day on both dialects. */
const dayStart = (column: string) => sql`(${sql.ref(column)} - ${sql.ref(column)} % ${sql.lit(DAY_MS)})`;
/** The previous observation's window: [day start − 7 days, day start) of the current one (decisions 122). */
const previousWindow = (column: string) =>
  sql`m.updated_at < ${dayStart(column)} and m.updated_at >= ${dayStart(column)} - ${sql.lit(7 * DAY_MS)}`;
const atMost = (at: number | undefined) => (at === undefined ? sql`` : sql` and m.updated_at <= ${at}`);

/** The statement of one table's "current and previous per series" read, in either dialect. */
function asOfStatement(
  dialect: 'sqlite' | 'postgres',
  table: 'rates' | 'gold',
  keys: RawBuilder<unknown>,
  match: (alias: string) => RawBuilder<unknown>,
  cols: string,
  at: number | undefined,
) {
  const t = sql.table(table);
  const c = (list: string, alias: string) =>
    sql.raw(
      list
        .split(',')
        .map((k) => `${alias}.${k.trim()}`)
        .join(', '),
    );
  if (dialect === 'postgres') {
    // A lateral seek per series (the correlated max() is planned as a scan, kysely/market.ts).
    return sql`
      select ${c(cols, 'c')}, c.updated_at, c.buy, c.sell,
        p.updated_at as p_updated_at, p.buy as p_buy, p.sell as p_sell
      from ${keys}
      cross join lateral (
        select ${c(cols, 'm')}, m.updated_at, m.buy, m.sell from ${t} m
        where ${match('m')}${atMost(at)} order by m.updated_at desc limit 1
      ) c
      left join lateral (
        select m.updated_at, m.buy, m.sell from ${t} m
        where ${sameSeries(cols, 'm', 'c')} and ${previousWindow('c.updated_at')}
        order by m.updated_at desc limit 1
      ) p on true
      order by ${c(cols, 'c')}`;
  }
  return sql`
    select ${c(cols, 'c')}, c.updated_at, c.buy, c.sell,
      p.updated_at as p_updated_at, p.buy as p_buy, p.sell as p_sell
    from ${keys}
    join ${t} c on ${match('c')}
      and c.updated_at = (select max(m.updated_at) from ${t} m where ${match('m')}${atMost(at)})
    left join ${t} p on ${sameSeries(cols, 'p', 'c')}
      and p.updated_at = (
        select max(m.updated_at) from ${t} m where ${sameSeries(cols, 'm', 'c')} and ${previousWindow('c.updated_at')}
      )
    order by ${c(cols, 'c')}`;
}

/** `a.k = b.k` for each key column. */
const sameSeries = (cols: string, a: string, b: string) =>
  sql.raw(
    cols
      .split(',')
      .map((k) => `${a}.${k.trim()} = ${b}.${k.trim()}`)
      .join(' and '),
  );

/** The newest rate of each series of the directory at or before `at`, with its previous day's. */
export async function ratesAsOf(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  q: RatesAsOfQuery,
): Promise<RateAsOf[]> {
  const sources = q.source === undefined ? SOURCES : [q.source];
  const keys = sql`assets a cross join (${oneColumn('source', sources)}) s`;
  const match = (m: string) => sql.raw(`${m}.currency = a.code and ${m}.source = s.source`);
  const { rows } = await asOfStatement(dialect, 'rates', keys, match, 'currency, source', q.at)
    .$castTo<RateRow & Previous>()
    .execute(db);
  return rows.map((r) => {
    const previous = previousOf(r);
    return {
      current: toRate(r),
      previous: previous && { ...previous, currency: r.currency, source: r.source as Source },
    };
  });
}

/** The newest gold record of each purity at or before `at`, with its previous day's. */
export async function goldAsOf(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  at: number | undefined,
): Promise<GoldAsOf[]> {
  const keys = sql`(${oneColumn('purity', PURITIES)}) k`;
  const match = (m: string) => sql.raw(`${m}.purity = k.purity`);
  const { rows } = await asOfStatement(dialect, 'gold', keys, match, 'purity', at)
    .$castTo<GoldRow & Previous>()
    .execute(db);
  return rows.map((r) => {
    const previous = previousOf(r);
    return { current: toGold(r), previous: previous && { ...previous, purity: r.purity as Purity } };
  });
}

/** The newest observation of each given series at or before its instant; a series without one is left out. */
export async function ratesAt(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  points: readonly RatePoint[],
): Promise<RateObservation[]> {
  if (points.length === 0) return [];
  // Codes and source names are the store's own (checked patterns), instants integers: literals are safe.
  const keys = sql.join(
    points.map(
      (p) =>
        sql`select ${sql.lit(p.currency)} as currency, ${sql.lit(p.source)} as source, ${sql.lit(Math.trunc(p.at))} as at`,
    ),
    sql` union all `,
  );
  const query =
    dialect === 'postgres'
      ? sql`
        select r.currency, r.source, r.updated_at, r.buy, r.sell from (${keys}) q
        cross join lateral (
          select m.currency, m.source, m.updated_at, m.buy, m.sell from rates m
          where m.currency = q.currency and m.source = q.source and m.updated_at <= q.at
          order by m.updated_at desc limit 1
        ) r
        order by r.currency, r.source`
      : sql`
        select r.currency, r.source, r.updated_at, r.buy, r.sell from (${keys}) q
        join rates r on r.currency = q.currency and r.source = q.source and r.updated_at = (
          select max(m.updated_at) from rates m where m.currency = q.currency and m.source = q.source and m.updated_at <= q.at
        )
        order by r.currency, r.source`;
  const { rows } = await query.$castTo<RateRow>().execute(db);
  return rows.map(toRate);
}
