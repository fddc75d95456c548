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
import { type ImportKind, type ImportProblem, kindRule } from './records.js';
import { timeZoneProblem, Zone } from './timestamps.js';

export type ParsedRecords =
  | { kind: 'assets'; records: Asset[] }
  | { kind: 'rates'; records: RateObservation[] }
  | { kind: 'gold'; records: GoldObservation[] };

export type ParseResult = ParsedRecords & { problems: ImportProblem[]; lines: number[] };

/** How to read a file written by a spreadsheet (docs/decisions.md 52). */
export interface ParseOptions {
  /** A CSV file's delimiter; found from its header row when not given. */
  delimiter?: Delimiter;
  /** The IANA zone local times are read in (`Africa/Algiers`); without it they are refused. */
  timezone?: string;
}

/** @throws RangeError when `timezone` is not a time zone (the CLI checks it first) */
function zoneOf(timezone: string | undefined): Zone | undefined {
  if (timezone === undefined) return undefined;
  const problem = timeZoneProblem(timezone);
  if (problem !== null) throw new RangeError(`--timezone: ${problem}`);
  return new Zone(timezone);
}

function collector(kind: ImportKind, format: ImportFormat, options: ParseOptions) {
  const label = format === 'csv' ? csvLabel : undefined;
  const zone = zoneOf(options.timezone);
  switch (kind) {
    case 'assets':
      return { kind, c: new Collector(kindRule(kind), label, undefined, zone) } as const;
    case 'rates':
      return { kind, c: new Collector(kindRule(kind), label, canonicalReader(kind), zone) } as const;
    case 'gold':
      return { kind, c: new Collector(kindRule(kind), label, canonicalReader(kind), zone) } as const;
  }
}

function result({ kind, c }: ReturnType<typeof collector>): ParseResult {
  const { records, lines } = c;
  return { kind, records, lines, problems: c.sortedProblems() } as ParseResult;
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
