/**
 * Collects the records of one import: validates each with its kind's rule,
 * keeps the problems with their lines, and finds duplicates (the same key
 * twice: an identical row is read once and listed, docs/decisions.md 94;
 * different values are a problem).
 */
import type { CanonicalReader } from './canonical.js';
import type { Delimiter } from './detect.js';
import {
  type ImportProblem,
  isObject,
  type KindRule,
  type PartialRecord,
  type RecordSink,
} from './records.js';
import { TimestampReader } from './timestamps.js';

/**
 * Records sharing a (group, subgroup). Imports are usually in time order per
 * series, so the times are only indexed once a record arrives out of order,
 * in a standard Map: the typed-array hash table it replaced parsed a million
 * shuffled NDJSON lines in 1.2 s against 1.7-1.8 s with the Map, a cost only
 * out-of-order imports pay, still far above the bench's 200k obs/s target.
 */
interface Series {
  last: number;
  /** Records of the series while it is in time order; null once indexed. */
  indices: number[] | null;
  /** Record index by time, once the series went back in time. */
  byTime: Map<number, number> | null;
}

const samePath = (path: string) => path;

/** What a format reader hands its values and syntax problems to. */
export interface RecordInput {
  problem(line: number, message: string, kind?: string): void;
  /** A row of empty cells or a blank line of a CSV file, ignored and counted. */
  emptyRow(): void;
  /** Columns with an empty header after the named ones, ignored and counted. */
  emptyColumns(count: number): void;
  /** A parsed value, to be checked as a record. */
  add(value: unknown, line: number): void;
  /** A line read in its canonical form (canonical.ts), or false: it takes the general way. */
  addCanonical(text: string, line: number): boolean;
  /** The delimiter of the CSV file being read (the decimal marks its amounts may use). */
  useDelimiter(delimiter: Delimiter): void;
}

export class Collector<T> implements RecordSink, RecordInput {
  readonly records: T[] = [];
  /** The input line of each record, parallel to `records`. */
  readonly lines: number[] = [];
  readonly problems: ImportProblem[] = [];
  /** Invalid records' fields that were read (records.ts PartialRecord). */
  readonly partials: PartialRecord[] = [];
  /** Rows that repeat an earlier row exactly, each naming the line it repeats. */
  readonly duplicates: ImportProblem[] = [];
  readonly counts = { emptyRows: 0, emptyColumns: 0 };
  readonly timestamps: TimestampReader;
  delimiter: Delimiter | undefined;
  private readonly series = new Map<string, Map<string, Series>>();

  /**
   * @param label the name of a field in messages (a CSV column's, for CSV)
   * @param timestamps how `updatedAt` is read (`--timezone`, `--date-order`)
   */
  constructor(
    private readonly rule: KindRule<T>,
    readonly csv: boolean,
    readonly label: (path: string) => string = samePath,
    private readonly canonical?: CanonicalReader<T>,
    timestamps: TimestampReader = new TimestampReader(),
  ) {
    this.timestamps = timestamps;
  }

  useDelimiter(delimiter: Delimiter): void {
    this.delimiter = delimiter;
  }

  problem(line: number, message: string, kind?: string): void {
    this.problems.push(kind === undefined ? { line, message } : { line, message, kind });
  }

  partial(record: PartialRecord): void {
    this.partials.push(record);
  }

  emptyRow(): void {
    this.counts.emptyRows++;
  }

  emptyColumns(count: number): void {
    this.counts.emptyColumns += count;
  }

  /** A parsed value: checked, then kept or compared with the earlier record of its key. */
  add(value: unknown, line: number): void {
    if (!isObject(value)) {
      this.problem(line, 'record must be a JSON object');
      return;
    }
    const record = this.rule.validate(value, line, this);
    if (record !== null) this.addValid(record, line);
  }

  addCanonical(text: string, line: number): boolean {
    const record = this.canonical?.(text, this.timestamps);
    if (record == null) return false;
    this.addValid(record, line);
    return true;
  }

  /** A valid record: kept, or checked against the earlier record with its key. */
  addValid(record: T, line: number): void {
    const index = this.findOrIndex(record);
    if (index !== -1) {
      const existing = this.records[index] as T;
      const first = this.lines[index];
      if (this.rule.same(existing, record)) {
        this.duplicates.push({
          line,
          message: `repeats line ${first}`,
          kind: 'row repeating an earlier row',
        });
      } else {
        this.problem(
          line,
          `duplicate of line ${first} with different values`,
          'duplicate with different values',
        );
      }
      return;
    }
    this.records.push(record);
    this.lines.push(line);
  }

  /** Index of an earlier record with the same key, or -1 after registering this one as the next record. */
  private findOrIndex(record: T): number {
    const rule = this.rule;
    const next = this.records.length;
    const group = rule.group(record);
    const t = rule.time(record);
    let inner = this.series.get(group);
    if (inner === undefined) {
      inner = new Map();
      this.series.set(group, inner);
    }
    const sub = rule.subgroup(record);
    const series = inner.get(sub);
    if (series === undefined) {
      inner.set(sub, { last: t, indices: [next], byTime: null });
      return -1;
    }
    let byTime = series.byTime;
    if (series.indices !== null) {
      if (t > series.last) {
        series.last = t;
        series.indices.push(next);
        return -1;
      }
      // Out of order: index the series by time from now on.
      byTime = new Map();
      for (const i of series.indices) byTime.set(rule.time(this.records[i] as T), i);
      series.indices = null;
      series.byTime = byTime;
    }
    const found = (byTime as Map<number, number>).get(t);
    if (found !== undefined) return found;
    (byTime as Map<number, number>).set(t, next);
    return -1;
  }

  /** The problems by line; those of one line stay in the order found. */
  sortedProblems(): ImportProblem[] {
    const p = this.problems;
    for (let i = 1; i < p.length; i++) {
      if ((p[i] as ImportProblem).line < (p[i - 1] as ImportProblem).line) {
        return p.sort((a, b) => a.line - b.line); // stable
      }
    }
    return p;
  }
}
