/** Import records, revisions and the guards' view of a series, as Kysely writes them for either dialect. */
import type { ImportSummary } from '../../domain/types.js';
import type {
  ImportMeta,
  ImportRecord,
  Point,
  RevisionQuery,
  RevisionRecord,
  SeriesKey,
} from '../import-records.js';
import { importRow, REVISIONS_SHOWN, toImportRecord, toRevision } from '../import-records.js';
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

export async function insertImport(db: Runner, meta: ImportMeta, summary: ImportSummary, now: number) {
  await db
    .insertInto('imports')
    .values(importRow(meta, summary, now))
    .execute();
}

export async function seriesAround(db: Db, s: SeriesKey, from: number, to: number): Promise<Point[]> {
  const rows =
    s.kind === 'rates'
      ? await db
          .selectFrom('rates')
          .select(['updated_at', 'buy', 'sell'])
          .where('currency', '=', s.currency)
          .where('source', '=', s.source)
          .where('updated_at', '>=', from)
          .where('updated_at', '<=', to)
          .orderBy('updated_at')
          .execute()
      : await db
          .selectFrom('gold')
          .select(['updated_at', 'buy', 'sell'])
          .where('purity', '=', s.purity)
          .where('updated_at', '>=', from)
          .where('updated_at', '<=', to)
          .orderBy('updated_at')
          .execute();
  const before =
    s.kind === 'rates'
      ? await db
          .selectFrom('rates')
          .select(['updated_at', 'buy', 'sell'])
          .where('currency', '=', s.currency)
          .where('source', '=', s.source)
          .where('updated_at', '<', from)
          .orderBy('updated_at', 'desc')
          .limit(1)
          .executeTakeFirst()
      : await db
          .selectFrom('gold')
          .select(['updated_at', 'buy', 'sell'])
          .where('purity', '=', s.purity)
          .where('updated_at', '<', from)
          .orderBy('updated_at', 'desc')
          .limit(1)
          .executeTakeFirst();
  const point = (r: { updated_at: number; buy: number; sell: number }): Point => ({
    updatedAt: Number(r.updated_at),
    buy: Number(r.buy),
    sell: Number(r.sell),
  });
  return [...(before ? [point(before)] : []), ...rows.map(point)];
}
