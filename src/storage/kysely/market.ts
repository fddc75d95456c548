/** Market data queries, as Kysely writes them for either dialect. */
import { sql } from 'kysely';
import { DAY_MS } from '../../domain/dates.js';
import {
  type Asset,
  type AssetType,
  type GoldObservation,
  type ImportSummary,
  PURITIES,
  type Purity,
  type RateObservation,
  SOURCES,
  type Source,
} from '../../domain/types.js';
import { DryRunRollback, type ImportOutcome, metaOf } from '../import-records.js';
import type { DailyRatesQuery, GoldHistoryQuery, ImportOptions, RateHistoryQuery } from '../store.js';
import { appendImportAudit } from './audit.js';
import { bump, type Db } from './database.js';
import { insertImport } from './imports.js';

type RateRow = { currency: string; source: string; updated_at: number; buy: number; sell: number };
type GoldRow = { purity: string; updated_at: number; buy: number; sell: number };

const toRate = (r: RateRow): RateObservation => ({
  currency: r.currency,
  source: r.source as Source,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});
const toGold = (r: GoldRow): GoldObservation => ({
  purity: r.purity as Purity,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});

export async function listAssets(db: Db): Promise<Asset[]> {
  const rows = await db.selectFrom('assets').selectAll().orderBy('code').execute();
  return rows.map((r) => ({
    code: r.code,
    symbol: r.symbol,
    names: { en: r.name_en, fr: r.name_fr, ar: r.name_ar },
    type: r.type as AssetType,
  }));
}

/** A one-column table of constants, written as both dialects read it (SQLite has no VALUES aliases). */
const oneColumn = (name: string, values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`select ${sql.lit(v)} as ${sql.ref(name)}`),
    sql` union all `,
  );

/**
 * The newest observation of every (currency, source) series: one primary-key
 * seek per series of the directory, not a GROUP BY over the whole table. The
 * GROUP BY took about 105 ms per million stored rows on SQLite, on the serving
 * process's main thread, each time an import changed the data (decisions 55).
 */
export async function latestRates(db: Db): Promise<RateObservation[]> {
  const { rows } = await sql<RateRow>`
    select r.currency, r.source, r.updated_at, r.buy, r.sell
    from assets a
    cross join (${oneColumn('source', SOURCES)}) s
    join rates r on r.currency = a.code and r.source = s.source
      and r.updated_at = (select max(m.updated_at) from rates m where m.currency = a.code and m.source = s.source)
    order by r.currency, r.source`.execute(db);
  return rows.map(toRate);
}

/** PostgreSQL's history page; SQLite reads it with a raw prepared statement (sqlite.ts). */
export async function rateHistory(db: Db, q: RateHistoryQuery): Promise<RateObservation[]> {
  let query = db
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

export async function dailyRates(db: Db, q: DailyRatesQuery): Promise<RateObservation[]> {
  // Instants are non-negative epoch ms: integer division by a day's length is the
  // UTC day on both dialects (SQLite and PostgreSQL divide integers as integers).
  // A window holds up to 366 days, and may hold many observations a day: the
  // day's latest is picked here, on the primary key, rather than in the process.
  const day = sql`updated_at / ${sql.lit(DAY_MS)}`;
  const rows = await db
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
export async function latestGold(db: Db): Promise<GoldObservation[]> {
  const { rows } = await sql<GoldRow>`
    select g.purity, g.updated_at, g.buy, g.sell
    from (${oneColumn('purity', PURITIES)}) p
    join gold g on g.purity = p.purity
      and g.updated_at = (select max(m.updated_at) from gold m where m.purity = p.purity)
    order by g.purity`.execute(db);
  return rows.map(toGold);
}

export async function goldHistory(db: Db, q: GoldHistoryQuery): Promise<GoldObservation[]> {
  let query = db
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

export async function unknownAssets(db: Db, codes: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(codes)];
  if (wanted.length === 0) return [];
  const known = new Set((await db.selectFrom('assets').select('code').execute()).map((r) => r.code));
  return wanted.filter((c) => !known.has(c)).sort();
}

/**
 * The asset directory is small: row-by-row upserts in one transaction are
 * plenty. The import's record goes in the same transaction; a dry run rolls it
 * all back after counting (decisions 51).
 */
export async function importAssets(
  db: Db,
  records: readonly Asset[],
  options: ImportOptions,
): Promise<ImportOutcome> {
  const meta = metaOf(options.meta);
  const summary: ImportSummary = {
    kind: 'assets',
    received: records.length,
    inserted: 0,
    updated: 0,
    unchanged: 0,
  };
  await db
    .transaction()
    .execute(async (trx) => {
      const existing = new Map(
        (await trx.selectFrom('assets').selectAll().execute()).map((r) => [r.code, r]),
      );
      for (const a of records) {
        const row = {
          code: a.code,
          symbol: a.symbol,
          type: a.type,
          name_en: a.names.en,
          name_fr: a.names.fr,
          name_ar: a.names.ar,
        };
        const old = existing.get(a.code);
        if (!old) {
          await trx.insertInto('assets').values(row).execute();
          summary.inserted++;
        } else if (
          old.symbol !== row.symbol ||
          old.type !== row.type ||
          old.name_en !== row.name_en ||
          old.name_fr !== row.name_fr ||
          old.name_ar !== row.name_ar
        ) {
          await trx.updateTable('assets').set(row).where('code', '=', a.code).execute();
          summary.updated++;
        } else {
          summary.unchanged++;
        }
      }
      if (summary.inserted + summary.updated > 0) await bump(trx, 'data');
      const now = Date.now();
      await insertImport(trx, meta, summary, now);
      // Its audit record, beside its own (docs/decisions.md, 57).
      await appendImportAudit(trx, meta, summary, now);
      if (options.dryRun) throw new DryRunRollback(outcome(true));
    })
    .catch((err: unknown) => {
      if (!(err instanceof DryRunRollback)) throw err;
    });
  return outcome(options.dryRun === true);

  function outcome(dryRun: boolean): ImportOutcome {
    return { ...summary, importId: meta.id, revisions: [], dryRun };
  }
}
