/** Import records, revisions and the guards' view of a series, as Kysely writes them for either dialect. */
import { sql } from 'kysely';
import type { Asset, ImportSummary } from '../../domain/types.js';
import {
  DryRunRollback,
  type ImportMeta,
  type ImportOutcome,
  type ImportRecord,
  type ImportScope,
  importRow,
  metaOf,
  type Point,
  REVISIONS_SHOWN,
  type RevisionQuery,
  type RevisionRecord,
  type SeriesKey,
  toImportRecord,
  toRevision,
} from '../import-records.js';
import type { ObservationBatch } from '../observations.js';
import type { ImportBatch, ImportOptions, ImportRepository } from '../repositories/imports.js';
import {
  type RetractionRecord,
  type RetractOutcome,
  type RetractRequest,
  type StandingRow,
  toRetraction,
} from '../retraction-records.js';
import { appendImportAudit } from './audit.js';
import { bump, type Db, type Runner } from './database.js';
import { retract, standingIn } from './retractions.js';

/** The first revisions of an import, as its outcome lists them. */
export async function firstRevisions(db: Runner, importId: string): Promise<RevisionRecord[]> {
  const rows = await db
    .selectFrom('revisions')
    .selectAll()
    .where('import_id', '=', importId)
    .orderBy('seq')
    .limit(REVISIONS_SHOWN)
    .execute();
  return rows.map(toRevision);
}

export async function insertImport(
  db: Runner,
  meta: ImportMeta,
  summary: ImportSummary,
  now: number,
  scope?: ImportScope,
) {
  await db
    .insertInto('imports')
    .values(importRow(meta, summary, now, scope))
    .execute();
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
    return { ...summary, importId: meta.id, revisions: [], dryRun, retracted: 0, reinstated: 0 };
  }
}

/**
 * The import repository as both backends run it, but for the bulk write of
 * rates and gold: each backend has its own fastest way (sqlite-import.ts,
 * postgres-import.ts).
 */
export abstract class KyselyImports implements ImportRepository {
  constructor(protected readonly db: Db) {}

  async listImports(limit: number): Promise<ImportRecord[]> {
    const rows = await this.db
      .selectFrom('imports')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toImportRecord);
  }

  async listRevisions(q: RevisionQuery): Promise<RevisionRecord[]> {
    let query = this.db.selectFrom('revisions').selectAll();
    if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
    if (q.code !== undefined) query = query.where('code', '=', q.code);
    if (q.source !== undefined) query = query.where('source', '=', q.source);
    if (q.since !== undefined) query = query.where('revised_at', '>=', q.since);
    const rows = await query
      .orderBy('revised_at', 'desc')
      .orderBy('import_id', 'desc')
      .orderBy('seq', 'asc')
      .limit(q.limit)
      .execute();
    return rows.map(toRevision);
  }

  async listRetractions(q: RevisionQuery): Promise<RetractionRecord[]> {
    let query = this.db.selectFrom('retractions').selectAll();
    if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
    if (q.code !== undefined) query = query.where('code', '=', q.code);
    if (q.source !== undefined) query = query.where('source', '=', q.source);
    if (q.since !== undefined) query = query.where('retracted_at', '>=', q.since);
    const rows = await query.orderBy('retracted_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(toRetraction);
  }

  async seriesAround(s: SeriesKey, from: number, to: number): Promise<Point[]> {
    type Row = { updated_at: number; buy: number; sell: number };
    const table = sql.table(s.kind === 'rates' ? 'rates' : 'gold');
    const series =
      s.kind === 'rates' ? sql`currency = ${s.currency} and source = ${s.source}` : sql`purity = ${s.purity}`;
    // Both on the primary key: a range, and one seek for the observation before it.
    const [before, within] = await Promise.all([
      sql<Row>`select updated_at, buy, sell from ${table} where ${series} and updated_at < ${from}
        order by updated_at desc limit 1`.execute(this.db),
      sql<Row>`select updated_at, buy, sell from ${table} where ${series}
        and updated_at >= ${from} and updated_at <= ${to} order by updated_at`.execute(this.db),
    ]);
    return [...before.rows, ...within.rows].map((r) => ({
      updatedAt: Number(r.updated_at),
      buy: Number(r.buy),
      sell: Number(r.sell),
    }));
  }

  standingRetractions(kind: 'rates' | 'gold'): Promise<StandingRow[]> {
    return standingIn(this.db, kind);
  }

  retract(request: RetractRequest): Promise<RetractOutcome> {
    return retract(this.db, request);
  }

  import(batch: ImportBatch, options: ImportOptions = {}): Promise<ImportOutcome> {
    return batch.kind === 'assets'
      ? importAssets(this.db, batch.records, options)
      : this.importObservations(batch, options);
  }

  unknownAssets(codes: readonly string[]): Promise<string[]> {
    return unknownAssets(this.db, codes);
  }

  /** Rates and gold, in bulk. */
  protected abstract importObservations(
    batch: ObservationBatch,
    options: ImportOptions,
  ): Promise<ImportOutcome>;
}
