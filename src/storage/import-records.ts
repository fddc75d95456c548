/**
 * An import's record and its revisions as both backends write and read them
 * (decisions 51): one row per import that wrote, one per observation it
 * changed, in the import's own transaction.
 */
import { randomBytes } from 'node:crypto';
import type { ImportSummary, Purity, Source } from '../domain/types.js';
import type { ImportsTable, RevisionsTable } from './schema.js';

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

/**
 * What an import covered, kept on its record for the `data.imported` event
 * (docs/decisions.md, 68): the record is the outbox entry of that event.
 */
export interface ImportScope {
  /** The source families of rates, `gold` for gold, none for the asset directory. */
  sources: string[];
  newestUpdatedAt: number | null;
}

export const NO_SCOPE: ImportScope = { sources: [], newestUpdatedAt: null };

export function importScope(
  kind: 'rates' | 'gold',
  records: ReadonlyArray<{ updatedAt: number; source?: string }>,
): ImportScope {
  const sources = new Set<string>();
  let newest: number | null = null;
  for (const r of records) {
    sources.add(kind === 'gold' ? 'gold' : r.source!);
    if (newest === null || r.updatedAt > newest) newest = r.updatedAt;
  }
  return { sources: [...sources].sort(), newestUpdatedAt: newest };
}

export function importRow(
  meta: ImportMeta,
  summary: ImportSummary,
  now: number,
  scope: ImportScope = NO_SCOPE,
): ImportsTable {
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
    sources: JSON.stringify(scope.sources),
    newest_updated_at: scope.newestUpdatedAt,
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
  'sources',
  'newest_updated_at',
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

/** Who ran an import, on what, and how it was checked: kept as the import's record (decisions 51). */
export interface ImportMeta {
  /** `imp_…`, made by the caller so that it can be reported even when nothing was written. */
  id: string;
  actor: string;
  sourceName: string | null;
  format: string | null;
  acceptedOutliers: boolean;
  outliers: number;
  maxChangePercent: number | null;
}

/** How many revisions an import's outcome lists (the rest are counted). */
export const REVISIONS_SHOWN = 20;

/** A stored observation's values before an import changed them (decisions 51). */
export interface RevisionRecord {
  importId: string;
  kind: 'rates' | 'gold';
  /** The currency, or the purity for gold. */
  code: string;
  /** The rate source, or `gold`. */
  source: Source | 'gold';
  updatedAt: number;
  old: { buy: number; sell: number };
  new: { buy: number; sell: number };
  revisedAt: number;
}

/** What an import did (or, dry, would do): its counts, its id and its first revisions. */
export interface ImportOutcome extends ImportSummary {
  importId: string;
  /** The first REVISIONS_SHOWN revisions, in input order; `updated` counts them all. */
  revisions: RevisionRecord[];
  dryRun: boolean;
  /** Records left out because their key stands retracted (docs/decisions.md, 105). */
  retracted: number;
  /** Retractions lifted because the import said `reinstate`. */
  reinstated: number;
}

/** An import's record as `mds imports list` shows it. */
export interface ImportRecord extends ImportSummary {
  id: string;
  actor: string;
  sourceName: string | null;
  format: string | null;
  createdAt: number;
  acceptedOutliers: boolean;
  outliers: number;
  maxChangePercent: number | null;
}

export interface RevisionQuery {
  kind?: 'rates' | 'gold';
  code?: string;
  source?: Source | 'gold';
  /** Revisions made at or after this instant. */
  since?: number;
  limit: number;
}

/** A series of observations: a currency and source, or a gold purity. */
export type SeriesKey =
  | { kind: 'rates'; currency: string; source: Source }
  | { kind: 'gold'; purity: Purity };

/** An observation's instant and values, as the guards compare them. */
export interface Point {
  updatedAt: number;
  buy: number;
  sell: number;
}

/** Thrown inside an import's transaction to roll a dry run back after counting. */
export class DryRunRollback extends Error {
  constructor(readonly outcome: ImportOutcome) {
    super('dry run');
  }
}
