/** Import records, revisions and the guards' view of a series, as Kysely writes them for either dialect. */
import { sql } from 'kysely';
import type { ImportSummary } from '../../domain/types.js';
import type {
  ImportMeta,
  ImportRecord,
  Point,
  RevisionQuery,
  RevisionRecord,
  SeriesKey,
} from '../import-records.js';
import {
  type ImportScope,
  importRow,
  REVISIONS_SHOWN,
  toImportRecord,
  toRevision,
} from '../import-records.js';
import type { Db, Runner } from './database.js';

export async function listImports(db: Db, limit: number): Promise<ImportRecord[]> {
  const rows = await db
    .selectFrom('imports')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toImportRecord);
}

export async function listRevisions(db: Db, q: RevisionQuery): Promise<RevisionRecord[]> {
  let query = db.selectFrom('revisions').selectAll();
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

export async function seriesAround(db: Db, s: SeriesKey, from: number, to: number): Promise<Point[]> {
  type Row = { updated_at: number; buy: number; sell: number };
  const table = sql.table(s.kind === 'rates' ? 'rates' : 'gold');
  const series =
    s.kind === 'rates' ? sql`currency = ${s.currency} and source = ${s.source}` : sql`purity = ${s.purity}`;
  // Both on the primary key: a range, and one seek for the observation before it.
  const [before, within] = await Promise.all([
    sql<Row>`select updated_at, buy, sell from ${table} where ${series} and updated_at < ${from}
      order by updated_at desc limit 1`.execute(db),
    sql<Row>`select updated_at, buy, sell from ${table} where ${series}
      and updated_at >= ${from} and updated_at <= ${to} order by updated_at`.execute(db),
  ]);
  return [...before.rows, ...within.rows].map((r) => ({
    updatedAt: Number(r.updated_at),
    buy: Number(r.buy),
    sell: Number(r.sell),
  }));
}
