/**
 * Parses and validates the input of `mds import assets|rates|gold`: every
 * record is checked, and every problem is reported with the 1-based line where
 * its record starts. The caller writes nothing when `problems` is non-empty.
 */
import type { Asset, GoldObservation, RateObservation } from '../domain/types.js';
import { canonicalReader } from './canonical.js';
import { Collector } from './collect.js';
import { csvLabel, readCsv } from './csv.js';
import { type Delimiter, type ImportFormat, textStart } from './detect.js';
import { readJsonArray } from './json-array.js';
import { readNdjson } from './ndjson.js';
import { type ImportKind, type ImportProblem, kindRule, type PartialRecord } from './records.js';
import { type DateOrder, TimestampReader, timeZoneProblem, Zone } from './timestamps.js';

export type ParsedRecords =
  | { kind: 'assets'; records: Asset[] }
  | { kind: 'rates'; records: RateObservation[] }
  | { kind: 'gold'; records: GoldObservation[] };

export type ParseResult = ParsedRecords & {
  problems: ImportProblem[];
  lines: number[];
  /** What the invalid records still tell (the directory and spread checks read them too). */
  partials: PartialRecord[];
  /** Rows repeating an earlier row exactly: read once, listed (docs/decisions.md 94). */
  duplicates: ImportProblem[];
  /** CSV rows of empty cells and blank lines, ignored. */
  emptyRows: number;
  /** CSV columns with an empty header after the named ones, ignored. */
  emptyColumns: number;
  /** A workbook's sheets not read, and why (official-boa.ts). */
  skippedSheets?: SkippedSheet[];
  /** A workbook's rates rounded to 6 decimals (official-boa.ts). */
  roundedRates?: number;
};

/** A sheet of a workbook that was not read: its name and why. */
export interface SkippedSheet {
  sheet: string;
  reason: string;
}

/** How to read a file written by a spreadsheet (docs/decisions.md 52 and 94). */
export interface ParseOptions {
  /** A CSV file's delimiter; found from its header row when not given. */
  delimiter?: Delimiter;
  /** The IANA zone local times are read in (`Africa/Algiers`); without it they are refused. */
  timezone?: string;
  /** How a date written `28/11/2026` is read: day first or month first; without it such dates are refused. */
  dateOrder?: DateOrder;
}

/** @throws RangeError when `timezone` is not a time zone (the CLI checks it first) */
function zoneOf(timezone: string | undefined): Zone | undefined {
  if (timezone === undefined) return undefined;
  const problem = timeZoneProblem(timezone);
  if (problem !== null) throw new RangeError(`--timezone: ${problem}`);
  return new Zone(timezone);
}

function collector(kind: ImportKind, format: ImportFormat, options: ParseOptions) {
  const csv = format === 'csv';
  const label = csv ? csvLabel : undefined;
  const t = new TimestampReader(undefined, zoneOf(options.timezone), options.dateOrder);
  switch (kind) {
    case 'assets':
      return { kind, c: new Collector(kindRule(kind), csv, label, undefined, t) } as const;
    case 'rates':
      return { kind, c: new Collector(kindRule(kind), csv, label, canonicalReader(kind), t) } as const;
    case 'gold':
      return { kind, c: new Collector(kindRule(kind), csv, label, canonicalReader(kind), t) } as const;
  }
}

/** What a collector gathered, as a parse's result (the workbook reader's too). */
export function result({
  kind,
  c,
}: ReturnType<typeof collector> | { kind: 'rates'; c: Collector<RateObservation> }): ParseResult {
  const { records, lines, partials, duplicates } = c;
  return {
    kind,
    records,
    lines,
    problems: c.sortedProblems(),
    partials,
    duplicates,
    ...c.counts,
  } as ParseResult;
}

/** Parses and validates an import; the caller writes nothing when `problems` is non-empty. */
export function parseImport(
  kind: 'assets',
  text: string,
  format: ImportFormat,
  options?: ParseOptions,
): ParseResult & { kind: 'assets' };
export function parseImport(
  kind: 'rates',
  text: string,
  format: ImportFormat,
  options?: ParseOptions,
): ParseResult & { kind: 'rates' };
export function parseImport(
  kind: 'gold',
  text: string,
  format: ImportFormat,
  options?: ParseOptions,
): ParseResult & { kind: 'gold' };
export function parseImport(
  kind: ImportKind,
  text: string,
  format: ImportFormat,
  options?: ParseOptions,
): ParseResult;
export function parseImport(
  kind: ImportKind,
  text: string,
  format: ImportFormat,
  options: ParseOptions = {},
): ParseResult {
  const start = textStart(text);
  const k = collector(kind, format, options);
  if (format === 'ndjson') readNdjson(text, start, k.c);
  else if (format === 'json') readJsonArray(text, start, k.c);
  else readCsv(kind, text, start, k.c, options.delimiter);
  return result(k);
}

/**
 * NDJSON handed over in pieces, each ending at a line end (the last one may
 * not): the import of a file read a piece at a time. Same records, lines and
 * problems as `parseImport(kind, pieces.join(''), 'ndjson', options)`.
 *
 * Why: reading a 100 MB file whole and decoding it whole touches
 * 200 MB of fresh memory, and a page fault here costs about 3 ms per MB, a
 * seventh of a million-line import. Pieces of 64 KB reuse the same memory.
 */
export function parseNdjsonPieces(
  kind: 'assets',
  pieces: Iterable<string>,
  options?: ParseOptions,
): ParseResult & { kind: 'assets' };
export function parseNdjsonPieces(
  kind: 'rates',
  pieces: Iterable<string>,
  options?: ParseOptions,
): ParseResult & { kind: 'rates' };
export function parseNdjsonPieces(
  kind: 'gold',
  pieces: Iterable<string>,
  options?: ParseOptions,
): ParseResult & { kind: 'gold' };
export function parseNdjsonPieces(
  kind: ImportKind,
  pieces: Iterable<string>,
  options?: ParseOptions,
): ParseResult;
export function parseNdjsonPieces(
  kind: ImportKind,
  pieces: Iterable<string>,
  options: ParseOptions = {},
): ParseResult {
  const k = collector(kind, 'ndjson', options);
  let line = 1;
  let first = true;
  for (const piece of pieces) {
    // A byte-order mark only where the input starts.
    const start = first ? textStart(piece) : 0;
    if (piece.length > 0) first = false;
    line = readNdjson(piece, start, k.c, line);
  }
  return result(k);
}
