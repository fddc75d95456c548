/** Market data queries, as Kysely writes them for either dialect. */
import { sql } from 'kysely';
import { DAY_MS } from '../../domain/dates.js';
import type { IntervalSummary } from '../../domain/intervals.js';
import {
  type Asset,
  type AssetType,
  type GoldObservation,
  PURITIES,
  type RateObservation,
  SOURCES,
} from '../../domain/types.js';
import type {
  DailyRatesQuery,
  GoldAsOf,
  GoldHistoryQuery,
  GoldIntervalSummary,
  GoldIntervalsQuery,
  MarketRepository,
  RateAsOf,
  RateHistoryQuery,
  RateIntervalsQuery,
  RatePoint,
  RatesAsOfQuery,
} from '../repositories/market.js';
import type { Db } from './database.js';
import { goldIntervals, rateIntervals } from './intervals.js';
import {
  type GoldRow,
  goldAsOf,
  oneColumn,
  type RateRow,
  ratesAsOf,
  ratesAt,
  toGold,
  toRate,
} from './market-as-of.js';

/** The market repository as both backends run it; SQLite reads history pages its own way (sqlite-market.ts). */
export class KyselyMarket implements MarketRepository {
  constructor(
    protected readonly db: Db,
    private readonly dialect: 'sqlite' | 'postgres' = 'sqlite',
  ) {}

  async listAssets(): Promise<Asset[]> {
    const rows = await this.db.selectFrom('assets').selectAll().orderBy('code').execute();
    return rows.map((r) => ({
      code: r.code,
      symbol: r.symbol,
      names: { en: r.name_en, fr: r.name_fr, ar: r.name_ar },
      type: r.type as AssetType,
    }));
  }

  /**
   * The newest observation of every (currency, source) series: one primary-key
   * seek per series of the directory, not a GROUP BY over the whole table. The
   * GROUP BY took about 105 ms per million stored rows on SQLite, on the serving
   * process's main thread, each time an import changed the data (decisions 55).
   */
  async latestRates(): Promise<RateObservation[]> {
    if (this.dialect === 'postgres') {
      // PostgreSQL plans the correlated max() below as a scan of every rate with a
      // subquery per row (1.6 s on the two-year sample, the reporter API reading it
      // per quote); a lateral seek of each series' newest row is 36 ms.
      const { rows } = await sql<RateRow>`
        select r.currency, r.source, r.updated_at, r.buy, r.sell
        from assets a
        cross join (${oneColumn('source', SOURCES)}) s
        cross join lateral (
          select m.currency, m.source, m.updated_at, m.buy, m.sell from rates m
          where m.currency = a.code and m.source = s.source
          order by m.updated_at desc limit 1
        ) r
        order by r.currency, r.source`.execute(this.db);
      return rows.map(toRate);
    }
    const { rows } = await sql<RateRow>`
      select r.currency, r.source, r.updated_at, r.buy, r.sell
      from assets a
      cross join (${oneColumn('source', SOURCES)}) s
      join rates r on r.currency = a.code and r.source = s.source
        and r.updated_at = (select max(m.updated_at) from rates m where m.currency = a.code and m.source = s.source)
      order by r.currency, r.source`.execute(this.db);
    return rows.map(toRate);
  }

  ratesAsOf(q: RatesAsOfQuery = {}): Promise<RateAsOf[]> {
    return ratesAsOf(this.db, this.dialect, q);
  }

  goldAsOf(at?: number): Promise<GoldAsOf[]> {
    return goldAsOf(this.db, this.dialect, at);
  }

  ratesAt(points: readonly RatePoint[]): Promise<RateObservation[]> {
    return ratesAt(this.db, this.dialect, points);
  }

  /** PostgreSQL's history page; SQLite reads it with a raw prepared statement (sqlite-market.ts). */
  async rateHistory(q: RateHistoryQuery): Promise<RateObservation[]> {
    let query = this.db
      .selectFrom('rates')
      .select(['currency', 'source', 'updated_at', 'buy', 'sell'])
      .where('currency', '=', q.currency)
      .where('source', '=', q.source)
      .where('updated_at', '>=', q.from)
      .where('updated_at', '<=', q.to);
    if (q.before !== undefined) query = query.where('updated_at', '<', q.before);
    const rows = await query.orderBy('updated_at', 'desc').limit(q.limit).execute();
    return rows.map(toRate);
  }

  async dailyRates(q: DailyRatesQuery): Promise<RateObservation[]> {
    // Instants are non-negative epoch ms: integer division by a day's length is the
    // UTC day on both dialects (SQLite and PostgreSQL divide integers as integers).
    // A window holds up to 366 days, and may hold many observations a day: the
    // day's latest is picked here, on the primary key, rather than in the process.
    const day = sql`updated_at / ${sql.lit(DAY_MS)}`;
    const rows = await this.db
      .selectFrom('rates as r')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('rates')
            .select((e) => e.fn.max('updated_at').as('latest'))
            .where('currency', '=', q.currency)
            .where('source', '=', q.source)
            .where('updated_at', '>=', q.from)
            .where('updated_at', '<=', q.to)
            .groupBy(day)
            .as('l'),
        (join) => join.onRef('l.latest', '=', 'r.updated_at'),
      )
      .select(['r.currency', 'r.source', 'r.updated_at', 'r.buy', 'r.sell'])
      .where('r.currency', '=', q.currency)
      .where('r.source', '=', q.source)
      .orderBy('r.updated_at', 'desc')
      .execute();
    return rows.map(toRate);
  }

  /** The newest record of every purity: a primary-key seek each, as latestRates. */
  async latestGold(): Promise<GoldObservation[]> {
    const { rows } = await sql<GoldRow>`
      select g.purity, g.updated_at, g.buy, g.sell
      from (${oneColumn('purity', PURITIES)}) p
      join gold g on g.purity = p.purity
        and g.updated_at = (select max(m.updated_at) from gold m where m.purity = p.purity)
      order by g.purity`.execute(this.db);
    return rows.map(toGold);
  }

  async goldHistory(q: GoldHistoryQuery): Promise<GoldObservation[]> {
    let query = this.db
      .selectFrom('gold')
      .select(['purity', 'updated_at', 'buy', 'sell'])
      .where('updated_at', '>=', q.from)
      .where('updated_at', '<=', q.to);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('updated_at', '<', after.updatedAt),
          eb.and([eb('updated_at', '=', after.updatedAt), eb('purity', '>', after.purity)]),
        ]),
      );
    }
    const rows = await query.orderBy('updated_at', 'desc').orderBy('purity', 'asc').limit(q.limit).execute();
    return rows.map(toGold);
  }

  rateIntervals(q: RateIntervalsQuery): Promise<IntervalSummary[]> {
    return rateIntervals(this.db, this.dialect, q);
  }

  goldIntervals(q: GoldIntervalsQuery): Promise<GoldIntervalSummary[]> {
    return goldIntervals(this.db, this.dialect, q);
  }
}
