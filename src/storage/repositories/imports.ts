/**
 * Imports: the bulk writes of market data, the guards' reads around them, and
 * the record of every import and revision (decisions 51). Implemented in Kysely
 * (kysely/imports.ts) with each backend's own bulk write of rates and gold
 * (sqlite-import.ts, postgres-import.ts). Tested on both backends by
 * test/storage/imports.contract.test.ts.
 */
import type { Asset, GoldObservation, RateObservation } from '../../domain/types.js';
import type {
  ImportMeta,
  ImportOutcome,
  ImportRecord,
  Point,
  RevisionQuery,
  RevisionRecord,
  SeriesKey,
} from '../import-records.js';
import type { RetractionRecord, RetractOutcome, RetractRequest, StandingRow } from '../retraction-records.js';

export type ImportBatch =
  | { kind: 'assets'; records: Asset[] }
  | { kind: 'rates'; records: RateObservation[] }
  | { kind: 'gold'; records: GoldObservation[] };

/**
 * Rates whose currency is not in the asset directory: the import is refused
 * whole, nothing written. (The CLI reports such records by line before it
 * calls the store; this is the store's own guarantee, checked in the import's
 * transaction.)
 */
export class UnknownAssetsError extends Error {
  readonly code = 'unknown_assets';
  constructor(readonly currencies: readonly string[]) {
    super(`not in the asset directory: ${currencies.join(', ')}`);
    this.name = 'UnknownAssetsError';
  }
}

export interface ImportOptions {
  /** Called as records are written (for a progress display); `done` ≤ `total`. */
  onProgress?: (done: number, total: number) => void;
  /** The import's record; without it the store records one by `system`. */
  meta?: ImportMeta;
  /** Everything but the write: the same counts and revisions, then rolled back. */
  dryRun?: boolean;
  /** Records whose key stands retracted are written and their retractions lifted (docs/decisions.md, 105). */
  reinstate?: boolean;
}

export interface ImportRepository {
  /** Codes referenced by `records` that are not in the asset directory. */
  unknownAssets(codes: readonly string[]): Promise<string[]>;
  /**
   * All or nothing, idempotent: the same record twice changes nothing. Writes
   * the import's record and a revision for every observation it changes, in
   * the same transaction (decisions 51).
   */
  import(batch: ImportBatch, options?: ImportOptions): Promise<ImportOutcome>;
  /**
   * The stored observations of a series in [from, to], plus the latest one
   * before `from`: what the plausibility guards compare an import with.
   */
  seriesAround(series: SeriesKey, from: number, to: number): Promise<Point[]>;
  /**
   * Takes a published observation back (docs/decisions.md, 105): removed from
   * what is served, kept with the reason as a retraction that later imports
   * respect, audited, a `data.retracted` event, in one transaction.
   */
  retract(request: RetractRequest): Promise<RetractOutcome>;
  /** The retractions of a kind that stand: the records an import will leave out unless it reinstates them. */
  standingRetractions(kind: 'rates' | 'gold'): Promise<StandingRow[]>;
  /** The newest `limit` import records, newest first. */
  listImports(limit: number): Promise<ImportRecord[]>;
  /** Newest first. */
  listRevisions(query: RevisionQuery): Promise<RevisionRecord[]>;
  /** Retractions, lifted ones included, newest first; `since` is the time of the retraction. */
  listRetractions(query: RevisionQuery): Promise<RetractionRecord[]>;
}
