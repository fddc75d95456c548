/**
 * The observation tables as the bulk imports write them: one descriptor per
 * kind, read by both backends (sqlite-import.ts, postgres-import.ts). Columns
 * are in table order, the primary key first, then `buy` and `sell`; each has
 * its PostgreSQL array type. `fill` writes a record's values in that order.
 */
import type { GoldObservation, RateObservation } from '../domain/types.js';
import type { ImportBatch } from './store.js';

export type Observation = RateObservation | GoldObservation;
export type ObservationBatch = Exclude<ImportBatch, { kind: 'assets' }>;

export interface ObservationTable {
  name: 'rates' | 'gold';
  columns: ReadonlyArray<{ name: string; type: 'text' | 'bigint' }>;
  /** How many leading columns form the primary key; the two after it are buy and sell. */
  keyWidth: number;
  /**
   * Writes the record's values, in column order, into `out` from `at`. One
   * function per kind rather than an accessor per column: the SQLite import
   * calls it for every record, a million times for a large file.
   */
  fill(r: Observation, out: Array<string | number>, at: number): void;
}

const RATES: ObservationTable = {
  name: 'rates',
  columns: [
    { name: 'currency', type: 'text' },
    { name: 'source', type: 'text' },
    { name: 'updated_at', type: 'bigint' },
    { name: 'buy', type: 'bigint' },
    { name: 'sell', type: 'bigint' },
  ],
  keyWidth: 3,
  fill(r, out, at) {
    const o = r as RateObservation;
    out[at] = o.currency;
    out[at + 1] = o.source;
    out[at + 2] = o.updatedAt;
    out[at + 3] = o.buy;
    out[at + 4] = o.sell;
  },
};

const GOLD: ObservationTable = {
  name: 'gold',
  columns: [
    { name: 'purity', type: 'text' },
    { name: 'updated_at', type: 'bigint' },
    { name: 'buy', type: 'bigint' },
    { name: 'sell', type: 'bigint' },
  ],
  keyWidth: 2,
  fill(r, out, at) {
    const o = r as GoldObservation;
    out[at] = o.purity;
    out[at + 1] = o.updatedAt;
    out[at + 2] = o.buy;
    out[at + 3] = o.sell;
  },
};

export const observationTable = (kind: ObservationBatch['kind']): ObservationTable =>
  kind === 'rates' ? RATES : GOLD;

export const columnNames = (t: ObservationTable): string[] => t.columns.map((c) => c.name);
export const keyColumns = (t: ObservationTable): string[] => columnNames(t).slice(0, t.keyWidth);
