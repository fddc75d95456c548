/**
 * Retractions as both backends keep them (docs/decisions.md, 105): an
 * observation an operator took back, what was published and why; and the
 * rule every import follows on the write path, in its own transaction: a
 * record whose key stands retracted is set aside, unless the import says
 * `reinstate`.
 */
import { randomBytes } from 'node:crypto';
import type { GoldObservation, Purity, RateObservation, Source } from '../domain/types.js';
import type { AuditActor } from './admin-records.js';
import type { Point } from './import-records.js';
import type { RetractionsTable } from './schema.js';

export const newRetractionId = (): string =>
  `ret_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').toLowerCase()}`;

/** One observation: its series and its instant, the key an import writes it under. */
export type ObservationKey =
  | { kind: 'rates'; currency: string; source: Source; updatedAt: number }
  | { kind: 'gold'; purity: Purity; updatedAt: number };

/** The key as the tables of revisions and retractions hold it: code, source (`gold` for gold), instant. */
export const keyColumnsOf = (k: ObservationKey) =>
  k.kind === 'rates'
    ? { kind: k.kind, code: k.currency, source: k.source as string, updated_at: k.updatedAt }
    : { kind: k.kind, code: k.purity as string, source: 'gold', updated_at: k.updatedAt };

export interface RetractionRecord {
  id: string;
  kind: 'rates' | 'gold';
  /** The currency, or the purity for gold. */
  code: string;
  /** The rate source, or `gold`. */
  source: Source | 'gold';
  updatedAt: number;
  /** What was published, in micro-DZD. */
  buy: number;
  sell: number;
  reason: string;
  actor: { id: string; label: string };
  retractedAt: number;
  /** The import that brought it back (`--reinstate`); null while it stands. */
  reinstatedBy: string | null;
  reinstatedAt: number | null;
}

export function toRetraction(r: RetractionsTable): RetractionRecord {
  return {
    id: r.id,
    kind: r.kind as RetractionRecord['kind'],
    code: r.code,
    source: r.source as RetractionRecord['source'],
    updatedAt: Number(r.updated_at),
    buy: Number(r.buy),
    sell: Number(r.sell),
    reason: r.reason,
    actor: { id: r.actor_id, label: r.actor_label },
    retractedAt: Number(r.retracted_at),
    reinstatedBy: r.reinstated_by,
    reinstatedAt: r.reinstated_at === null ? null : Number(r.reinstated_at),
  };
}

export interface RetractRequest {
  key: ObservationKey;
  reason: string;
  actor: AuditActor;
  now: number;
  /** Everything but the write: what latest would become, then rolled back. */
  dryRun?: boolean;
}

/** What a retraction did, or why it did nothing. `latest`: the series' latest observation after it. */
export type RetractOutcome =
  | { status: 'retracted'; retraction: RetractionRecord; latest: Point | null; dryRun: boolean }
  | { status: 'not_found' }
  | { status: 'already_retracted'; retraction: RetractionRecord };

/** A retraction's row as an import reads it: its id and key. */
export interface StandingRow {
  id: string;
  code: string;
  source: string;
  updated_at: number;
}

type Observation = RateObservation | GoldObservation;
/** An import's rates or gold (storage/observations.ts, ObservationBatch), named here without its module. */
type Batch =
  | { kind: 'rates'; records: readonly RateObservation[] }
  | { kind: 'gold'; records: readonly GoldObservation[] };

const keyText = (code: string, source: string, updatedAt: number) =>
  `${code}\u0000${source}\u0000${updatedAt}`;

/** What an import does with the records whose key stands retracted. */
export interface SetAside {
  /** The records to write. */
  records: readonly Observation[];
  /** Records left out because their key stands retracted. */
  retracted: number;
  /** Retractions the import lifts (`reinstate`): their ids. */
  reinstated: string[];
}

/** Whether a record of `kind` stands retracted, by its key, among `standing`. */
export function standsRetracted(
  kind: Batch['kind'],
  standing: readonly StandingRow[],
): (r: Observation) => StandingRow['id'] | undefined {
  const ids = new Map(standing.map((s) => [keyText(s.code, s.source, Number(s.updated_at)), s.id]));
  return kind === 'rates'
    ? (r) => ids.get(keyText((r as RateObservation).currency, (r as RateObservation).source, r.updatedAt))
    : (r) => ids.get(keyText((r as GoldObservation).purity, 'gold', r.updatedAt));
}

/**
 * The import's records against the standing retractions of its kind: without
 * `reinstate`, a record of a retracted key (whatever its values: the key is the
 * record, as for revisions) is left out and counted; with it, the record is
 * written and its retraction lifted. Nothing to do, the records unchanged.
 */
export function setAside(batch: Batch, standing: readonly StandingRow[], reinstate: boolean): SetAside {
  if (standing.length === 0) return { records: batch.records, retracted: 0, reinstated: [] };
  const retractionOf = standsRetracted(batch.kind, standing);
  const records: Observation[] = [];
  const reinstated = new Set<string>();
  let retracted = 0;
  for (const r of batch.records) {
    const id = retractionOf(r);
    if (id === undefined) records.push(r);
    else if (reinstate) {
      reinstated.add(id);
      records.push(r);
    } else retracted++;
  }
  return { records, retracted, reinstated: [...reinstated] };
}
