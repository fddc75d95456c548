/**
 * An import's record and its revisions as both backends write and read them
 * (decisions 51): one row per import that wrote, one per observation it
 * changed, in the import's own transaction.
 */
import { randomBytes } from 'node:crypto';
import type { ImportSummary } from '../domain/types.js';
import type { ImportsTable, RevisionsTable } from './schema.js';
import type { ImportMeta, ImportRecord, RevisionRecord } from './store.js';

export const newImportId = (): string =>
  `imp_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').toLowerCase()}`;

/** The record of an import nobody described (the sample seed, a test): written by `system`. */
export function metaOf(meta: ImportMeta | undefined): ImportMeta {
  return (
    meta ?? {
      id: newImportId(),
      actor: 'system',
      sourceName: null,
      format: null,
      acceptedOutliers: false,
      outliers: 0,
      maxChangePercent: null,
    }
  );
}

export function importRow(meta: ImportMeta, summary: ImportSummary, now: number): ImportsTable {
  return {
    id: meta.id,
    kind: summary.kind,
    source_name: meta.sourceName,
    format: meta.format,
    actor: meta.actor,
    created_at: now,
    received: summary.received,
    inserted: summary.inserted,
    updated: summary.updated,
    unchanged: summary.unchanged,
    accepted_outliers: meta.acceptedOutliers ? 1 : 0,
    outliers: meta.outliers,
    max_change_percent: meta.maxChangePercent,
  };
}

/** The columns of `imports` in the order `importValues` lists them. */
export const IMPORT_COLUMNS = [
  'id',
  'kind',
  'source_name',
  'format',
  'actor',
  'created_at',
  'received',
  'inserted',
  'updated',
  'unchanged',
  'accepted_outliers',
  'outliers',
  'max_change_percent',
] as const satisfies ReadonlyArray<keyof ImportsTable>;

export const importValues = (row: ImportsTable) => IMPORT_COLUMNS.map((c) => row[c]);

export const REVISION_COLUMNS = [
  'import_id',
  'seq',
  'kind',
  'code',
  'source',
  'updated_at',
  'old_buy',
  'old_sell',
  'new_buy',
  'new_sell',
  'revised_at',
] as const satisfies ReadonlyArray<keyof RevisionsTable>;

export function toImportRecord(r: ImportsTable): ImportRecord {
  return {
    id: r.id,
    kind: r.kind as ImportRecord['kind'],
    sourceName: r.source_name,
    format: r.format,
    actor: r.actor,
    createdAt: Number(r.created_at),
    received: Number(r.received),
    inserted: Number(r.inserted),
    updated: Number(r.updated),
    unchanged: Number(r.unchanged),
    acceptedOutliers: Number(r.accepted_outliers) === 1,
    outliers: Number(r.outliers),
    maxChangePercent: r.max_change_percent === null ? null : Number(r.max_change_percent),
  };
}

export function toRevision(r: RevisionsTable): RevisionRecord {
  return {
    importId: r.import_id,
    kind: r.kind as RevisionRecord['kind'],
    code: r.code,
    source: r.source as RevisionRecord['source'],
    updatedAt: Number(r.updated_at),
    old: { buy: Number(r.old_buy), sell: Number(r.old_sell) },
    new: { buy: Number(r.new_buy), sell: Number(r.new_sell) },
    revisedAt: Number(r.revised_at),
  };
}
