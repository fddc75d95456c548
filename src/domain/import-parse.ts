/**
 * Parser and validator behind `mds import assets|rates|gold <file|-> [--format ndjson|csv|json]`.
 *
 * The input text is walked once, record by record; each record is validated in full so
 * that every problem is reported with the 1-based line where the record starts. The caller
 * writes nothing when `problems` is non-empty.
 */

import { MAX_AMOUNT, parseMicros, SCALE } from './decimal.js';
import {
  ASSET_TYPES,
  type Asset,
  type AssetType,
  type GoldObservation,
  PURITIES,
  type Purity,
  type RateObservation,
  SOURCES,
  type Source,
} from './types.js';

export type ImportKind = 'assets' | 'rates' | 'gold';
export type ImportFormat = 'ndjson' | 'csv' | 'json';

/** `line` is 1-based in the input text. */
export interface ImportProblem {
  line: number;
  message: string;
}

export type ParsedRecords =
  | { kind: 'assets'; records: Asset[] }
  | { kind: 'rates'; records: RateObservation[] }
  | { kind: 'gold'; records: GoldObservation[] };

export type ParseResult = ParsedRecords & { problems: ImportProblem[]; lines: number[] };

// ---------------------------------------------------------------------------
// Format detection

const BOM = 0xfeff;
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const CLOSE_BRACE = 125;
const BACKSLASH = 92;

export function detectFormat(text: string, fileName?: string): ImportFormat {
  if (fileName !== undefined) {
    const lower = fileName.toLowerCase();
    if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
    if (lower.endsWith('.csv')) return 'csv';
    if (lower.endsWith('.json')) return 'json';
  }
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === BOM && i === 0) continue;
    if (c === SPACE || c === TAB || c === LF || c === CR) continue;
    if (c === OPEN_BRACKET) return 'json';
    if (c === OPEN_BRACE) return 'ndjson';
    return 'csv';
  }
  return 'csv';
}

// ---------------------------------------------------------------------------
// Field rules

const CODE = /^[A-Z0-9]{2,10}$/;
const EPOCH_1990 = Date.UTC(1990, 0, 1);
const DAY_MS = 86_400_000;
const SYMBOL_MAX = 16;
const NAME_MAX = 200;
const NAME_LANGS = ['en', 'fr', 'ar'] as const;

const SOURCE_SET: ReadonlySet<string> = new Set(SOURCES);
const ASSET_TYPE_SET: ReadonlySet<string> = new Set(ASSET_TYPES);
const PURITY_SET: ReadonlySet<string> = new Set(PURITIES);

const ASSET_FIELDS: ReadonlySet<string> = new Set(['code', 'symbol', 'names', 'type']);
const RATE_FIELDS: ReadonlySet<string> = new Set(['currency', 'source', 'buy', 'sell', 'updatedAt']);
const GOLD_FIELDS: ReadonlySet<string> = new Set(['purity', 'buy', 'sell', 'updatedAt']);
const NAME_FIELDS: ReadonlySet<string> = new Set(NAME_LANGS);

const CSV_COLUMNS: Record<ImportKind, readonly string[]> = {
  assets: ['code', 'symbol', 'type', 'name_en', 'name_fr', 'name_ar'],
  rates: ['currency', 'source', 'buy', 'sell', 'updatedAt'],
  gold: ['purity', 'buy', 'sell', 'updatedAt'],
};

const MSG_CODE = 'must be an uppercase asset code (2-10 of A-Z, 0-9)';
const MSG_AMOUNT = 'must be a positive decimal number with at most 6 decimal places';
const MSG_TIMESTAMP = 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z';
const MSG_SYMBOL = `must be a non-empty string of at most ${SYMBOL_MAX} characters`;
const MSG_NAME = `must be a non-empty string of at most ${NAME_MAX} characters`;
const MSG_SOURCE = `must be one of ${SOURCES.join(', ')}`;
const MSG_TYPE = `must be one of ${ASSET_TYPES.join(', ')}`;
const MSG_PURITY = `must be one of ${PURITIES.join(', ')}`;

function isDaysInMonthOk(y: number, mo: number, d: number): boolean {
  if (mo < 1 || mo > 12 || d < 1) return false;
  if (mo === 2) {
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    return d <= (leap ? 29 : 28);
  }
  return d <= (mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31);
}

/** The number written by `len` ASCII digits at `i`, or -1. */
function digits(s: string, i: number, len: number): number {
  let v = 0;
  for (let k = i; k < i + len; k++) {
    const d = s.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return -1; // NaN past the end
    v = v * 10 + d;
  }
  return v;
}

/**
 * Epoch ms of a strict ISO 8601 timestamp `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, or an error
 * message (without the field name). Hand-rolled: it runs once per imported record.
 */
function parseTimestamp(value: unknown, latest: number): number | string {
  if (typeof value !== 'string' || value.length < 20) return MSG_TIMESTAMP;
  const y = digits(value, 0, 4);
  const mo = digits(value, 5, 2);
  const d = digits(value, 8, 2);
  const h = digits(value, 11, 2);
  const mi = digits(value, 14, 2);
  const s = digits(value, 17, 2);
  if (
    y < 0 ||
    mo < 0 ||
    d < 0 ||
    h < 0 ||
    mi < 0 ||
    s < 0 ||
    value.charCodeAt(4) !== 45 || // -
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 || // T
    value.charCodeAt(13) !== 58 || // :
    value.charCodeAt(16) !== 58
  ) {
    return MSG_TIMESTAMP;
  }
  const n = value.length;
  let i = 19;
  let fracDigits = 0;
  if (value.charCodeAt(i) === 46) {
    // .
    let j = i + 1;
    while (j < n && digits(value, j, 1) >= 0) j++;
    fracDigits = j - i - 1;
    if (fracDigits === 0) return MSG_TIMESTAMP;
    i = j;
  }
  let offsetMinutes = 0;
  const z = value.charCodeAt(i);
  if (z === 90) {
    // Z
    if (n !== i + 1) return MSG_TIMESTAMP;
  } else if ((z === 43 || z === 45) && n === i + 6 && value.charCodeAt(i + 3) === 58) {
    const oh = digits(value, i + 1, 2);
    const om = digits(value, i + 4, 2);
    if (oh < 0 || om < 0) return MSG_TIMESTAMP;
    if (oh > 23 || om > 59) return `${value.slice(i)} is not a valid time zone offset`;
    offsetMinutes = (z === 45 ? -1 : 1) * (oh * 60 + om);
  } else {
    return MSG_TIMESTAMP;
  }
  if (fracDigits > 3) return 'must not be more precise than milliseconds (at most 3 fractional digits)';
  if (!isDaysInMonthOk(y, mo, d)) return `${value.slice(0, 10)} is not a valid calendar date`;
  if (h > 23 || mi > 59 || s > 59) return `${value.slice(11, 19)} is not a valid time of day`;
  if (y < 1990) return 'must not be before 1990';
  const ms =
    fracDigits === 0
      ? 0
      : digits(value, 20, fracDigits) * (fracDigits === 1 ? 100 : fracDigits === 2 ? 10 : 1);
  const epoch = Date.UTC(y, mo - 1, d, h, mi, s, ms) - offsetMinutes * 60_000;
  if (epoch < EPOCH_1990) return 'must not be before 1990';
  if (epoch > latest) return 'must not be more than 1 day in the future';
  return epoch;
}

/**
 * `parseMicros` with a fast path for the common shape (at most 9 integer digits, at most 6
 * decimals, nothing else), where it computes the same exact integer; every other input goes
 * to `parseMicros` itself.
 */
function toMicros(value: unknown): number | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && value >= 0 && value < MAX_AMOUNT) {
    // The double nearest to m·10⁻⁶ prints with at most 6 decimals, which is what parseMicros
    // accepts; below 1e9 the product is within 0.2 of m, so the rounding finds m exactly.
    const m = Math.round(value * SCALE);
    if (m / SCALE === value) return m;
    return parseMicros(value);
  } else return parseMicros(value);
  const n = text.length;
  let i = 0;
  let whole = 0;
  const first = text.charCodeAt(0) - 48;
  if (first === 0) {
    i = 1;
  } else if (first >= 1 && first <= 9) {
    for (; i < n && i < 9; i++) {
      const d = text.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) break;
      whole = whole * 10 + d;
    }
  } else {
    return parseMicros(value);
  }
  if (i === n) return whole * SCALE;
  if (text.charCodeAt(i) !== 46 || n - i - 1 < 1 || n - i - 1 > 6) return parseMicros(value);
  let frac = 0;
  for (let k = i + 1; k < n; k++) {
    const d = text.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return parseMicros(value);
    frac = frac * 10 + d;
  }
  return whole * SCALE + frac * FRAC_SCALE[n - i - 1]!;
}

const FRAC_SCALE = [1, 100_000, 10_000, 1_000, 100, 10, 1];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBoundedString(value: unknown, max: number): value is string {
  if (typeof value !== 'string' || value.trim().length === 0) return false;
  if (value.length <= max) return true;
  let count = 0;
  for (const _ of value) {
    if (++count > max) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Collection: validation, duplicates, problems

/** What validators see of the collector. */
interface Sink {
  readonly problems: ImportProblem[];
  /** Latest accepted `updatedAt` (now + 1 day). */
  readonly latest: number;
  /** Timestamps already parsed, by their text (cachedTimestamp). */
  readonly timestamps: Map<string, number | string>;
  /** The last currency of a canonical line, shared by the records that follow it. */
  lastCode: string;
  /** True when the input is CSV: field names are reported as the CSV columns. */
  readonly csv: boolean;
  problem(line: number, message: string): void;
}

interface KindSpec<T> {
  validate(obj: Record<string, unknown>, line: number, c: Sink): T | null;
  /**
   * The record of an NDJSON line written in the canonical form (below), or null
   * for any other line, which then takes the general way (JSON.parse, validate).
   */
  canonical?(line: string, c: Sink): T | null;
  /** The duplicate key is (group, subgroup, time). */
  group(record: T): string;
  subgroup(record: T): string;
  time(record: T): number;
  /** Whether two records with the same key carry the same values. */
  same(a: T, b: T): boolean;
}

/**
 * Records sharing a (group, subgroup). Imports are usually in time order per series, so the
 * times are only indexed once a record arrives out of order.
 */
interface Series {
  /** Small integer naming the series in the `TimeIndex`. */
  id: number;
  last: number;
  /** Records of the series while it is in time order; null once indexed. */
  indices: number[] | null;
}

/**
 * Open-addressing hash table from (series id, epoch ms) to a record index: typed arrays, no
 * per-entry allocation, so that even a shuffled million-line import stays fast.
 */
class TimeIndex {
  private mask = 1023;
  private size = 0;
  private times = new Float64Array(1024);
  private ids = new Int32Array(1024);
  private values = new Int32Array(1024).fill(-1);

  private slot(id: number, time: number): number {
    let h = (time | 0) ^ Math.imul((time / 4_294_967_296) | 0, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b);
    h ^= h >>> 16;
    h = Math.imul(h, 0x45d9f3b);
    h ^= h >>> 16;
    return h & this.mask;
  }

  /** The value stored for the key, or -1 after storing `value` for it. */
  getOrInsert(id: number, time: number, value: number): number {
    let i = this.slot(id, time);
    for (;;) {
      const v = this.values[i] as number;
      if (v === -1) break;
      if (this.times[i] === time && this.ids[i] === id) return v;
      i = (i + 1) & this.mask;
    }
    this.times[i] = time;
    this.ids[i] = id;
    this.values[i] = value;
    if (++this.size * 2 > this.mask) this.grow();
    return -1;
  }

  private grow(): void {
    const { times, ids, values } = this;
    const capacity = (this.mask + 1) * 2;
    this.mask = capacity - 1;
    this.times = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
    this.values = new Int32Array(capacity).fill(-1);
    for (let j = 0; j < values.length; j++) {
      const v = values[j] as number;
      if (v === -1) continue;
      const id = ids[j] as number;
      const time = times[j] as number;
      let i = this.slot(id, time);
      while (this.values[i] !== -1) i = (i + 1) & this.mask;
      this.times[i] = time;
      this.ids[i] = id;
      this.values[i] = v;
    }
  }
}

interface RecordSink extends Sink {
  add(value: unknown, line: number): void;
  addCanonical(text: string, line: number): boolean;
}

class Collector<T> implements RecordSink {
  readonly records: T[] = [];
  readonly problems: ImportProblem[] = [];
  private readonly series = new Map<string, Map<string, Series>>();
  private seriesCount = 0;
  private readonly index = new TimeIndex();
  /** The input line of each record, parallel to `records`. */
  readonly lines: number[] = [];
  readonly latest: number;
  readonly timestamps = new Map<string, number | string>();
  lastCode = '';

  constructor(
    private readonly spec: KindSpec<T>,
    readonly csv: boolean,
  ) {
    this.latest = Date.now() + DAY_MS;
  }

  problem(line: number, message: string): void {
    this.problems.push({ line, message });
  }

  add(value: unknown, line: number): void {
    if (!isObject(value)) {
      this.problem(line, 'record must be a JSON object');
      return;
    }
    const before = this.problems.length;
    const record = this.spec.validate(value, line, this);
    if (record === null || this.problems.length !== before) return;
    this.addValid(record, line);
  }

  /** A line the kind recognises in its canonical form, or false to take the general way. */
  addCanonical(text: string, line: number): boolean {
    const record = this.spec.canonical?.(text, this);
    if (record == null) return false;
    this.addValid(record, line);
    return true;
  }

  /** A valid record: kept, or checked against the earlier record with its key. */
  private addValid(record: T, line: number): void {
    const index = this.findOrIndex(record);
    if (index !== -1) {
      const existing = this.records[index] as T;
      if (!this.spec.same(existing, record)) {
        this.problem(line, `duplicate of line ${this.lines[index]} with different values`);
      }
      return;
    }
    this.records.push(record);
    this.lines.push(line);
  }

  /** Index of an earlier record with the same key, or -1 after registering this one as the next record. */
  private findOrIndex(record: T): number {
    const spec = this.spec;
    const next = this.records.length;
    const group = spec.group(record);
    const sub = spec.subgroup(record);
    const t = spec.time(record);
    let inner = this.series.get(group);
    if (inner === undefined) {
      inner = new Map();
      this.series.set(group, inner);
    }
    const series = inner.get(sub);
    if (series === undefined) {
      inner.set(sub, { id: this.seriesCount++, last: t, indices: [next] });
      return -1;
    }
    const indices = series.indices;
    if (indices !== null) {
      if (t > series.last) {
        series.last = t;
        indices.push(next);
        return -1;
      }
      // Out of order: index the series from now on.
      for (const i of indices) this.index.getOrInsert(series.id, spec.time(this.records[i] as T), i);
      series.indices = null;
    }
    return this.index.getOrInsert(series.id, t, next);
  }

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

function checkUnknown(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  prefix: string,
  line: number,
  c: Sink,
): void {
  for (const k in obj) {
    if (!known.has(k)) c.problem(line, `unknown field "${prefix}${k}"`);
  }
}

/** Validates a present-or-missing field; reports `missing field` for undefined values. */
function present(obj: Record<string, unknown>, field: string, line: number, c: Sink): boolean {
  if (obj[field] === undefined) {
    c.problem(line, `missing field "${field}"`);
    return false;
  }
  return true;
}

function amount(obj: Record<string, unknown>, field: string, line: number, c: Sink): number {
  if (!present(obj, field, line, c)) return 0;
  const value = obj[field];
  const micros = toMicros(value);
  if (micros !== null && micros > 0) return micros;
  if (micros === null && (typeof value === 'number' || typeof value === 'string')) {
    const n = Number(value);
    if (Number.isFinite(n) && n > MAX_AMOUNT) {
      c.problem(line, `${field}: must not exceed ${MAX_AMOUNT}`);
      return 0;
    }
  }
  c.problem(line, `${field}: ${MSG_AMOUNT}`);
  return 0;
}

/** Distinct timestamps remembered before the cache starts over (over five years of hours). */
const TIMESTAMP_CACHE = 50_000;

/**
 * `parseTimestamp`, remembering the strings already parsed. An import holds many
 * series over the same instants (every currency and source at each hour), so
 * most timestamps repeat: a lookup by text replaced most of the parsing, which
 * was an eighth of a million-line import (profile, issue #5).
 */
function cachedTimestamp(value: unknown, c: Sink): number | string {
  if (typeof value !== 'string') return parseTimestamp(value, c.latest);
  let r = c.timestamps.get(value);
  if (r === undefined) {
    r = parseTimestamp(value, c.latest);
    if (c.timestamps.size === TIMESTAMP_CACHE) c.timestamps.clear();
    c.timestamps.set(value, r);
  }
  return r;
}

function timestamp(obj: Record<string, unknown>, field: string, line: number, c: Sink): number {
  if (!present(obj, field, line, c)) return 0;
  const r = cachedTimestamp(obj[field], c);
  if (typeof r === 'string') {
    c.problem(line, `${field}: ${r}`);
    return 0;
  }
  return r;
}

const assetSpec: KindSpec<Asset> = {
  validate(obj, line, c) {
    checkUnknown(obj, ASSET_FIELDS, '', line, c);
    const before = c.problems.length;
    if (present(obj, 'code', line, c) && (typeof obj['code'] !== 'string' || !CODE.test(obj['code']))) {
      c.problem(line, `code: ${MSG_CODE}`);
    }
    if (present(obj, 'symbol', line, c) && !isBoundedString(obj['symbol'], SYMBOL_MAX)) {
      c.problem(line, `symbol: ${MSG_SYMBOL}`);
    }
    const names = obj['names'];
    if (present(obj, 'names', line, c)) {
      if (!isObject(names)) {
        c.problem(line, 'names: must be an object with en, fr and ar');
      } else {
        checkUnknown(names, NAME_FIELDS, 'names.', line, c);
        for (const lang of NAME_LANGS) {
          const label = c.csv ? `name_${lang}` : `names.${lang}`;
          const v = names[lang];
          if (v === undefined) c.problem(line, `missing field "${label}"`);
          else if (!isBoundedString(v, NAME_MAX)) c.problem(line, `${label}: ${MSG_NAME}`);
        }
      }
    }
    if (
      present(obj, 'type', line, c) &&
      !(typeof obj['type'] === 'string' && ASSET_TYPE_SET.has(obj['type']))
    ) {
      c.problem(line, `type: ${MSG_TYPE}`);
    }
    if (c.problems.length !== before) return null;
    const n = names as Record<string, string>;
    return {
      code: obj['code'] as string,
      symbol: obj['symbol'] as string,
      names: { en: n['en'] as string, fr: n['fr'] as string, ar: n['ar'] as string },
      type: obj['type'] as AssetType,
    };
  },
  group: (r) => r.code,
  subgroup: () => '',
  time: () => 0,
  same: (a, b) =>
    a.symbol === b.symbol &&
    a.type === b.type &&
    a.names.en === b.names.en &&
    a.names.fr === b.names.fr &&
    a.names.ar === b.names.ar,
};

/*
 * The canonical NDJSON lines: the fields in the order of the README's table,
 * amounts and the timestamp as strings, no spaces, no escapes; what exporters
 * write, and what the sample and the bench generate. One regular expression
 * recognises such a line and yields the record that JSON.parse and `validate`
 * would: the same checks (toMicros, parseTimestamp) on the same strings. A line
 * it does not match, or whose values fail a check, takes the general way, which
 * reports the problem. In the import profile (issue #5) JSON.parse and the
 * field-by-field checks were two fifths of `mds import`.
 */
const AMOUNT_TEXT = '"([0-9]{1,9}(?:\\.[0-9]{1,6})?)"';
/** The asset-code rule (CODE) without its anchors. */
const CODE_TEXT = CODE.source.slice(1, -1);
const CANONICAL_RATE = new RegExp(
  `^\\{"currency":"(${CODE_TEXT})","source":"(${SOURCES.join('|')})","buy":${AMOUNT_TEXT},"sell":${AMOUNT_TEXT},"updatedAt":"([^"\\\\]{20,40})"\\}\r?$`,
);
const CANONICAL_GOLD = new RegExp(
  `^\\{"purity":"(${PURITIES.join('|')})","buy":${AMOUNT_TEXT},"sell":${AMOUNT_TEXT},"updatedAt":"([^"\\\\]{20,40})"\\}\r?$`,
);

const SOURCE_NAMES = Object.fromEntries(SOURCES.map((x) => [x, x])) as Record<Source, Source>;
const PURITY_NAMES = Object.fromEntries(PURITIES.map((x) => [x, x])) as Record<Purity, Purity>;

/** Amounts and timestamp of a canonical line, or null when one of them fails its check. */
function canonicalValues(
  buyText: string,
  sellText: string,
  timeText: string,
  c: Sink,
): [buy: number, sell: number, updatedAt: number] | null {
  const buy = toMicros(buyText);
  const sell = toMicros(sellText);
  if (buy === null || !(buy > 0) || sell === null || !(sell > 0)) return null;
  const updatedAt = cachedTimestamp(timeText, c);
  return typeof updatedAt === 'number' ? [buy, sell, updatedAt] : null;
}

const rateSpec: KindSpec<RateObservation> = {
  canonical(line, c) {
    const m = CANONICAL_RATE.exec(line);
    if (m === null) return null;
    const v = canonicalValues(m[3]!, m[4]!, m[5]!, c);
    if (v === null) return null;
    // One string per currency and source for the whole import, as JSON.parse
    // would give (it internalises short strings): a million copies of "EUR" were
    // a tenth of the import's time in the garbage collector.
    let currency = m[1]!;
    if (currency === c.lastCode) currency = c.lastCode;
    else c.lastCode = currency;
    return { currency, source: SOURCE_NAMES[m[2] as Source], buy: v[0], sell: v[1], updatedAt: v[2] };
  },
  validate(obj, line, c) {
    checkUnknown(obj, RATE_FIELDS, '', line, c);
    const before = c.problems.length;
    const currency = obj['currency'];
    if (present(obj, 'currency', line, c) && (typeof currency !== 'string' || !CODE.test(currency))) {
      c.problem(line, `currency: ${MSG_CODE}`);
    }
    const source = obj['source'];
    if (present(obj, 'source', line, c) && !(typeof source === 'string' && SOURCE_SET.has(source))) {
      c.problem(line, `source: ${MSG_SOURCE}`);
    }
    const buy = amount(obj, 'buy', line, c);
    const sell = amount(obj, 'sell', line, c);
    const updatedAt = timestamp(obj, 'updatedAt', line, c);
    if (c.problems.length !== before) return null;
    return { currency: currency as string, source: source as Source, buy, sell, updatedAt };
  },
  group: (r) => r.currency,
  subgroup: (r) => r.source,
  time: (r) => r.updatedAt,
  same: (a, b) => a.buy === b.buy && a.sell === b.sell,
};

const goldSpec: KindSpec<GoldObservation> = {
  canonical(line, c) {
    const m = CANONICAL_GOLD.exec(line);
    if (m === null) return null;
    const v = canonicalValues(m[2]!, m[3]!, m[4]!, c);
    if (v === null) return null;
    return { purity: PURITY_NAMES[m[1] as Purity], buy: v[0], sell: v[1], updatedAt: v[2] };
  },
  validate(obj, line, c) {
    checkUnknown(obj, GOLD_FIELDS, '', line, c);
    const before = c.problems.length;
    const purity = obj['purity'];
    if (present(obj, 'purity', line, c) && !(typeof purity === 'string' && PURITY_SET.has(purity))) {
      c.problem(line, `purity: ${MSG_PURITY}`);
    }
    const buy = amount(obj, 'buy', line, c);
    const sell = amount(obj, 'sell', line, c);
    const updatedAt = timestamp(obj, 'updatedAt', line, c);
    if (c.problems.length !== before) return null;
    return { purity: purity as Purity, buy, sell, updatedAt };
  },
  group: (r) => r.purity,
  subgroup: () => '',
  time: (r) => r.updatedAt,
  same: (a, b) => a.buy === b.buy && a.sell === b.sell,
};

// ---------------------------------------------------------------------------
// JSON error messages

function summarizeJsonError(err: unknown): string {
  let msg = err instanceof Error ? err.message : String(err);
  // The line is reported separately; offsets into the document would only confuse.
  msg = msg.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ (?:in JSON )?at position \d+/, '');
  // V8: `Unexpected token 'x', "<echo of the input>" is not valid JSON` — drop the echo.
  const echo = /^(.*?), (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s.exec(msg);
  if (echo) msg = echo[1] as string;
  if (msg.length > 160) msg = `${msg.slice(0, 157)}...`;
  return `invalid JSON: ${msg}`;
}

function lineAt(text: string, from: number, to: number, line: number): number {
  let l = line;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === LF) l++;
  return l;
}

// ---------------------------------------------------------------------------
// NDJSON

/** Parses the lines of `text`, the first numbered `line`; returns the number of the line after them. */
function parseNdjson(text: string, start: number, c: RecordSink, firstLine = 1): number {
  const n = text.length;
  let pos = start;
  let line = firstLine;
  while (pos < n) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = n;
    const first = text.charCodeAt(pos);
    if (eol > pos && !(first === CR && eol === pos + 1)) {
      const s = text.slice(pos, eol);
      if (first === OPEN_BRACE && c.addCanonical(s, line)) {
        // taken in its canonical form
      } else if (first === OPEN_BRACE || s.trim().length > 0) {
        let value: unknown;
        let ok = true;
        try {
          value = JSON.parse(s);
        } catch (err) {
          ok = false;
          c.problem(line, summarizeJsonError(err));
        }
        if (ok) c.add(value, line);
      }
    }
    pos = eol + 1;
    line++;
  }
  return line;
}

// ---------------------------------------------------------------------------
// JSON array

interface ElementSpans {
  /** 1-based line where each element starts. */
  lines: number[];
  /** Offsets of each element's first character and of the `,` or `]` after it. */
  starts: number[];
  ends: number[];
}

/**
 * Finds the elements of the top-level array by tracking strings and nesting. Exact when
 * `text` is valid JSON; on invalid text it still gives usable spans for error reporting.
 */
function arrayElements(text: string, start: number): ElementSpans {
  const lines: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const n = text.length;
  let line = 1;
  let depth = 0;
  let expect = false;
  let open = false;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      line++;
      continue;
    }
    if (c === SPACE || c === TAB || c === CR) continue;
    if (depth === 1 && expect) {
      expect = false;
      if (c !== CLOSE_BRACKET || open) {
        lines.push(line);
        starts.push(i);
        open = true;
      }
    }
    if (c === QUOTE) {
      // Valid JSON strings hold no raw newlines: skip to the closing quote.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
        else if (d === LF) line++;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      depth++;
      if (depth === 1) expect = true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (depth === 1 && open) {
        ends.push(i);
        open = false;
      }
      depth--;
    } else if (c === COMMA && depth === 1) {
      if (open) ends.push(i);
      open = true;
      expect = true;
    }
  }
  if (open) ends.push(n);
  return { lines, starts, ends };
}

/** Line of a JSON syntax error: V8 (Node 20) does not always give a position. */
function jsonErrorLine(text: string, start: number, err: unknown): { line: number; message: string } {
  const message = summarizeJsonError(err);
  const pos = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (pos) return { line: lineAt(text, start, Math.min(text.length, start + Number(pos[1])), 1), message };
  // Find the first element that does not parse on its own.
  const spans = arrayElements(text, start);
  for (let k = 0; k < spans.starts.length; k++) {
    const from = spans.starts[k] as number;
    const to = spans.ends[k] as number;
    if (text.slice(from, to).trim() === '') {
      return {
        line: spans.lines[k] as number,
        message: 'invalid JSON: missing array element (extra comma?)',
      };
    }
    try {
      JSON.parse(text.slice(from, to));
    } catch (inner) {
      const at = /at position (\d+)/.exec(inner instanceof Error ? inner.message : '');
      const line = spans.lines[k] as number;
      return {
        line: at ? lineAt(text, from, Math.min(text.length, from + Number(at[1])), line) : line,
        message: summarizeJsonError(inner),
      };
    }
  }
  if (message.includes('end of JSON input'))
    return { line: lineAt(text, start, text.trimEnd().length, 1), message };
  return { line: 1, message };
}

function parseJsonArray(text: string, start: number, c: RecordSink): void {
  let doc: unknown;
  try {
    doc = start === 0 ? JSON.parse(text) : JSON.parse(text.slice(start));
  } catch (err) {
    const { line, message } = jsonErrorLine(text, start, err);
    c.problem(line, message);
    return;
  }
  if (!Array.isArray(doc)) {
    let i = start;
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    c.problem(lineAt(text, start, i, 1), 'the document must be a JSON array of objects');
    return;
  }
  const lines = arrayElements(text, start).lines;
  for (let i = 0; i < doc.length; i++) {
    const line = lines[i] ?? 1;
    const el: unknown = doc[i];
    doc[i] = undefined; // let the parsed tree go as records are built
    if (!isObject(el)) c.problem(line, 'array element must be a JSON object');
    else c.add(el, line);
  }
}

// ---------------------------------------------------------------------------
// CSV (RFC 4180)

/**
 * Calls `onRow` with the fields and starting line of each non-empty row, `onError` on
 * malformed rows (which are skipped). Stops at an unterminated quoted field.
 */
function scanCsv(
  text: string,
  start: number,
  onRow: (fields: string[], line: number) => void,
  onError: (line: number, message: string) => void,
): void {
  const n = text.length;
  let pos = start;
  let line = 1;
  let nextQuote = text.indexOf('"', pos);
  while (pos < n) {
    const rowLine = line;
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = n;
    if (nextQuote !== -1 && nextQuote < pos) nextQuote = text.indexOf('"', pos);
    if (nextQuote === -1 || nextQuote >= eol) {
      // Fast path: no quotes on this line.
      const end = eol > pos && text.charCodeAt(eol - 1) === CR ? eol - 1 : eol;
      if (end > pos) onRow(text.slice(pos, end).split(','), rowLine);
      pos = eol + 1;
      line++;
      continue;
    }
    // Slow path: a quoted field somewhere in this row.
    const fields: string[] = [];
    let p = pos;
    let error: string | null = null;
    for (;;) {
      if (text.charCodeAt(p) === QUOTE) {
        let value = '';
        let q = p + 1;
        for (;;) {
          const close = text.indexOf('"', q);
          if (close === -1) {
            onError(rowLine, 'malformed CSV: unterminated quoted field');
            return;
          }
          value += text.slice(q, close);
          line = lineAt(text, q, close, line);
          if (text.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            q = close + 2;
          } else {
            p = close + 1;
            break;
          }
        }
        fields.push(value);
        const d = text.charCodeAt(p);
        if (d === COMMA) {
          p++;
          continue;
        }
        if (p >= n) break;
        if (d === LF) {
          p++;
          line++;
          break;
        }
        if (d === CR && text.charCodeAt(p + 1) === LF) {
          p += 2;
          line++;
          break;
        }
        error = 'malformed CSV: unexpected character after a closing quote';
        break;
      }
      let q = p;
      let d = 0;
      for (; q < n; q++) {
        d = text.charCodeAt(q);
        if (d === COMMA || d === LF || d === QUOTE) break;
      }
      if (q < n && d === QUOTE) {
        error = 'malformed CSV: quote inside an unquoted field';
        p = q;
        break;
      }
      if (q < n && d === COMMA) {
        fields.push(text.slice(p, q));
        p = q + 1;
        continue;
      }
      fields.push(text.slice(p, q > p && text.charCodeAt(q - 1) === CR ? q - 1 : q));
      p = q + 1;
      if (q < n) line++;
      break;
    }
    if (error !== null) {
      onError(rowLine, error);
      const skip = text.indexOf('\n', p);
      if (skip === -1) return;
      pos = skip + 1;
      line++;
      continue;
    }
    onRow(fields, rowLine);
    pos = p;
  }
}

function parseCsv(kind: ImportKind, text: string, start: number, c: RecordSink): void {
  const expected = CSV_COLUMNS[kind];
  let header: string[] | null = null;
  let headerFailed = false;
  const width = expected.length;
  // Builds the JSON-shaped object from a row; assets gather name_* into `names`.
  let build: ((fields: string[]) => Record<string, unknown>) | null = null;

  const onHeader = (fields: string[], line: number): void => {
    const names = fields.map((f) => f.trim());
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) problems.push(`duplicate column "${name}"`);
      else if (!expected.includes(name)) problems.push(`unknown column "${name}"`);
      seen.add(name);
    }
    for (const name of expected) if (!seen.has(name)) problems.push(`missing column "${name}"`);
    if (problems.length > 0) {
      c.problem(line, `header: ${problems.join('; ')} (expected ${expected.join(',')})`);
      headerFailed = true;
      return;
    }
    header = names;
    const idx = expected.map((name) => names.indexOf(name));
    if (kind === 'assets') {
      const [code, symbol, type, en, fr, ar] = idx as [number, number, number, number, number, number];
      build = (f) => ({
        code: f[code],
        symbol: f[symbol],
        type: f[type],
        names: { en: f[en], fr: f[fr], ar: f[ar] },
      });
    } else if (kind === 'rates') {
      const [currency, source, buy, sell, updatedAt] = idx as [number, number, number, number, number];
      build = (f) => ({
        currency: f[currency],
        source: f[source],
        buy: f[buy],
        sell: f[sell],
        updatedAt: f[updatedAt],
      });
    } else {
      const [purity, buy, sell, updatedAt] = idx as [number, number, number, number];
      build = (f) => ({ purity: f[purity], buy: f[buy], sell: f[sell], updatedAt: f[updatedAt] });
    }
  };

  scanCsv(
    text,
    start,
    (fields, line) => {
      if (headerFailed) return;
      if (fields.length === 1 && (fields[0] as string).trim() === '') return; // blank line
      if (header === null || build === null) {
        onHeader(fields, line);
        return;
      }
      if (fields.length !== width) {
        c.problem(line, `expected ${width} fields, found ${fields.length}`);
        return;
      }
      c.add(build(fields), line);
    },
    (line, message) => {
      if (headerFailed) return;
      if (header === null) headerFailed = true;
      c.problem(line, message);
    },
  );
  if (header === null && !headerFailed) c.problem(1, `missing header row (expected ${expected.join(',')})`);
}

// ---------------------------------------------------------------------------
// Entry point

/** Parses and validates an import; the caller writes nothing when `problems` is non-empty. */
export function parseImport(
  kind: 'assets',
  text: string,
  format: ImportFormat,
): ParseResult & { kind: 'assets' };
export function parseImport(
  kind: 'rates',
  text: string,
  format: ImportFormat,
): ParseResult & { kind: 'rates' };
export function parseImport(kind: 'gold', text: string, format: ImportFormat): ParseResult & { kind: 'gold' };
export function parseImport(kind: ImportKind, text: string, format: ImportFormat): ParseResult;
export function parseImport(kind: ImportKind, text: string, format: ImportFormat): ParseResult {
  const start = text.charCodeAt(0) === BOM ? 1 : 0;
  switch (kind) {
    case 'assets': {
      const c = new Collector(assetSpec, format === 'csv');
      run(kind, text, start, format, c);
      return { kind, records: c.records, lines: c.lines, problems: c.sortedProblems() };
    }
    case 'rates': {
      const c = new Collector(rateSpec, format === 'csv');
      run(kind, text, start, format, c);
      return { kind, records: c.records, lines: c.lines, problems: c.sortedProblems() };
    }
    case 'gold': {
      const c = new Collector(goldSpec, format === 'csv');
      run(kind, text, start, format, c);
      return { kind, records: c.records, lines: c.lines, problems: c.sortedProblems() };
    }
  }
}

/**
 * NDJSON handed over in pieces, each ending at a line end (the last one may
 * not): the import of a file read a piece at a time. Same records, lines and
 * problems as `parseImport(kind, pieces.join(''), 'ndjson')`.
 *
 * Why (issue #5): reading a 100 MB file whole and decoding it whole touches
 * 200 MB of fresh memory, and a page fault here costs about 3 ms per MB, a
 * seventh of a million-line import. Pieces of 64 KB reuse the same memory.
 */
export function parseNdjsonPieces(kind: 'assets', pieces: Iterable<string>): ParseResult & { kind: 'assets' };
export function parseNdjsonPieces(kind: 'rates', pieces: Iterable<string>): ParseResult & { kind: 'rates' };
export function parseNdjsonPieces(kind: 'gold', pieces: Iterable<string>): ParseResult & { kind: 'gold' };
export function parseNdjsonPieces(kind: ImportKind, pieces: Iterable<string>): ParseResult;
export function parseNdjsonPieces(kind: ImportKind, pieces: Iterable<string>): ParseResult {
  const feed = <T>(c: Collector<T>) => {
    let line = 1;
    let first = true;
    for (const piece of pieces) {
      // A byte-order mark only where the input starts.
      const start = first && piece.charCodeAt(0) === BOM ? 1 : 0;
      if (piece.length > 0) first = false;
      line = parseNdjson(piece, start, c, line);
    }
    return { records: c.records, lines: c.lines, problems: c.sortedProblems() };
  };
  switch (kind) {
    case 'assets':
      return { kind, ...feed(new Collector(assetSpec, false)) };
    case 'rates':
      return { kind, ...feed(new Collector(rateSpec, false)) };
    case 'gold':
      return { kind, ...feed(new Collector(goldSpec, false)) };
  }
}

function run(kind: ImportKind, text: string, start: number, format: ImportFormat, c: RecordSink): void {
  if (format === 'ndjson') parseNdjson(text, start, c);
  else if (format === 'json') parseJsonArray(text, start, c);
  else parseCsv(kind, text, start, c);
}
