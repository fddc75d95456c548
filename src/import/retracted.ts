/**
 * What the plausibility guards judge of an import (docs/decisions.md, 51 and
 * 105): the records it will write. A record of a retracted observation is left
 * out by the store unless the import reinstates it, so it is no reason to
 * refuse the file (the mistyped value it repeats is why it was retracted) and
 * no reference for the records after it.
 */
import type { GoldObservation, RateObservation } from '../domain/types.js';
import { standsRetracted } from '../storage/retraction-records.js';
import type { Store } from '../storage/store.js';

type Observations =
  | { kind: 'rates'; records: readonly RateObservation[] }
  | { kind: 'gold'; records: readonly GoldObservation[] };

/** `batch` and its `lines` without the records of standing retractions; unchanged when it reinstates them. */
export async function toBeWritten<T extends Observations>(
  store: Store,
  batch: T,
  lines: readonly number[],
  reinstate: boolean,
): Promise<{ batch: T; lines: readonly number[] }> {
  if (reinstate) return { batch, lines };
  const standing = await store.imports.standingRetractions(batch.kind);
  if (standing.length === 0) return { batch, lines };
  const retracted = standsRetracted(batch.kind, standing);
  const kept: number[] = [];
  batch.records.forEach((r, i) => {
    if (retracted(r) === undefined) kept.push(i);
  });
  const records = kept.map((i) => batch.records[i]!);
  return { batch: { ...batch, records }, lines: kept.map((i) => lines[i] ?? i + 1) };
}
