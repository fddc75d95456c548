/**
 * Longer than 300 lines because the three kinds' record schemas and the one
 * compiler that reads every format through them belong together.
 *
 * The records of `mds import`, validated by rules compiled from the entity
 * schemas the API declares (src/schemas/common.ts, market.ts): the fields, which
 * are required, that no other field is allowed, and each field's rule (the
 * asset-code pattern, the enums, the bounded labels) and its `errorMessage`.
 * Nothing here restates a rule of the schemas.
 *
 * Two kinds of field are read rather than only checked: amounts (a JSON number
 * or decimal text, to micro-units) and the timestamp (to epoch ms). Their
 * schemas below name the reader that does it.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Asset, AssetType, GoldObservation, Purity, RateObservation, Source } from '../domain/types.js';
import { forbiddenCharacters } from '../schemas/admin-check.js';
import { EnteredNames, EnteredSymbol } from '../schemas/common.js';
import { Asset as AssetEntity, GoldRecord, HistoryRate } from '../schemas/market.js';
import { MSG_AMOUNT, readAmount } from './amounts.js';
import type { Delimiter } from './detect.js';
import { MSG_TIMESTAMP, type TimestampReader } from './timestamps.js';

export type ImportKind = 'assets' | 'rates' | 'gold';

/** `line` is 1-based in the input text. */
export interface ImportProblem {
  line: number;
  message: string;
  /** What the problem is, without the value (the report groups by it); the message when not given. */
  kind?: string;
}

/** What an invalid observation still tells: the fields that were read (the directory and spread checks). */
export interface PartialRecord {
  line: number;
  currency?: string;
  buy?: number;
  sell?: number;
}

/** What validation reports to and reads with. */
export interface RecordSink {
  problem(line: number, message: string, kind?: string): void;
  /** An invalid record's fields that were read, for the checks that need only them. */
  partial(record: PartialRecord): void;
  /** The name of a field in messages: its path (`names.en`) or, in CSV, its column (`name_en`). */
  label(path: string): string;
  readonly timestamps: TimestampReader;
  /** A CSV file's delimiter (the decimal marks its amounts may use); none in JSON and NDJSON. */
  readonly delimiter: Delimiter | undefined;
  /** Whether the input is CSV, where a quoted name may hold a tab or a line break. */
  readonly csv: boolean;
}

/** Characters of a value quoted in a message, at most. */
const ECHO_MAX = 40;

/** The first `max` characters (code points) of a text, and `…` when it was longer. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === max) return `${out}…`;
    out += ch;
    count++;
  }
  return out;
}

/** What JSON leaves as it is and a terminal must not be handed: DEL, the bidirectional controls, the line separators. */
const UNSHOWN = /[\u007f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const escaped = (text: string) =>
  text.replace(UNSHOWN, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A value as a problem quotes it: a string in double quotes (JSON escapes:
 * no control character reaches the terminal, nor a bidirectional one), anything
 * else as JSON; at most 40 characters, then `…` (docs/decisions.md 52).
 */
export function echo(value: unknown): string {
  if (typeof value === 'string') {
    const short = cut(value, ECHO_MAX);
    return escaped(short === value ? JSON.stringify(value) : `${JSON.stringify(short.slice(0, -1))}…`);
  }
  return escaped(cut(JSON.stringify(value) ?? String(value), ECHO_MAX));
}

/** A reason's first clause, without the fix or the example it goes on to: the kind of a problem. */
export function reasonKind(reason: string): string {
  let end = reason.length;
  for (const mark of [':', ';', ' (', ', e.g.']) {
    const i = reason.indexOf(mark);
    if (i !== -1 && i < end) end = i;
  }
  return reason.slice(0, end);
}

// ---------------------------------------------------------------------------
// The import records: the entities' own fields, amounts and timestamps read from text

/** `buy` and `sell`: a JSON number or decimal text (readAmount). */
const Amount = Type.Union([Type.String(), Type.Number()], { errorMessage: MSG_AMOUNT });
/** `updatedAt`: ISO 8601 text with a time zone (TimestampReader). */
const Instant = Type.String({ errorMessage: MSG_TIMESTAMP });

type Reader = (value: unknown, sink: RecordSink) => number | string;
const READERS = new Map<TSchema, Reader>([
  [Amount, (value, sink) => readAmount(value, sink.delimiter)],
  [Instant, (value, sink) => sink.timestamps.read(value)],
]);

const closed = { additionalProperties: false } as const;
/** The asset's fields, its labels as the directory takes them in (no formula's first character). */
export const AssetRecord = Type.Object(
  { ...AssetEntity.properties, symbol: EnteredSymbol, names: EnteredNames },
  closed,
);
export const RateRecord = Type.Object(
  {
    currency: HistoryRate.properties.currency,
    source: HistoryRate.properties.source,
    buy: Amount,
    sell: Amount,
    updatedAt: Instant,
  },
  closed,
);
export const GoldImportRecord = Type.Object(
  { purity: GoldRecord.properties.purity, buy: Amount, sell: Amount, updatedAt: Instant },
  closed,
);

// ---------------------------------------------------------------------------
// Compiling a record schema

interface Rule {
  check: (value: unknown) => boolean;
  message: string;
}

interface Field {
  key: string;
  required: boolean;
  message: string;
  /** The field's rules, each with its own message: one, or each member of an intersection. */
  rules?: readonly Rule[];
  read?: Reader;
  /** A nested object (names): its own fields. */
  object?: Shape;
}

interface Shape {
  known: ReadonlySet<string>;
  fields: readonly Field[];
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * The compiled check of a field. JSON Schema counts `maxLength` in code points
 * (as the OpenAPI document means it, and as ajv checks it), TypeBox's compiled
 * check in UTF-16 units: a longer string is counted again by code points.
 */
function compileCheck(schema: TSchema): (value: unknown) => boolean {
  const max: unknown = schema.maxLength;
  if (typeof max !== 'number') {
    const compiled = TypeCompiler.Compile(schema);
    return (value) => compiled.Check(value);
  }
  const { maxLength: _, ...rest } = schema;
  const compiled = TypeCompiler.Compile(rest as TSchema);
  return (value) =>
    compiled.Check(value) && ((value as string).length <= max || codePoints(value as string) <= max);
}

function compileShape(schema: TObject): Shape {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([key, field]): Field => {
    const base = { key, required: required.has(key), message: String(field.errorMessage ?? 'is invalid') };
    const read = READERS.get(field);
    if (read) return { ...base, read };
    if (field.type === 'object') return { ...base, object: compileShape(field as TObject) };
    const members = (field.allOf as TSchema[] | undefined) ?? [field];
    const rules = members.map((m) => ({
      check: compileCheck(m),
      message: String(m.errorMessage ?? base.message),
    }));
    return { ...base, rules };
  });
  return { known: new Set(Object.keys(schema.properties)), fields };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field that failed its rule, in the values `validate` returns. */
const INVALID = Symbol('invalid');

/**
 * The field values of `obj` in the schema's order (read fields as read, nested
 * objects as their own arrays, INVALID for a field that breaks its rule), and
 * whether all are valid, after reporting every problem: unknown fields first,
 * then each field in the schema's order. No string holds a character no
 * admin input may (forbiddenCharacters, docs/decisions.md 89): such a value
 * is refused with the sentence saying what to remove, never quoted. A tab or
 * line break is the structure of a CSV file inside a quoted name, and allowed
 * there only.
 */
function validate(
  shape: Shape,
  obj: Record<string, unknown>,
  prefix: string,
  line: number,
  sink: RecordSink,
): { values: unknown[]; ok: boolean } {
  let ok = true;
  for (const k in obj) {
    if (!shape.known.has(k)) {
      const forbidden = forbiddenCharacters(k);
      if (forbidden) sink.problem(line, `unknown field: its name ${forbidden.message}`, 'unknown field');
      else sink.problem(line, `unknown field ${echo(prefix + k)}`);
      ok = false;
    }
  }
  const values: unknown[] = [];
  for (const field of shape.fields) {
    const value = obj[field.key];
    const path = prefix + field.key;
    if (value === undefined) {
      if (field.required) {
        sink.problem(line, `missing field "${sink.label(path)}"`);
        ok = false;
      }
      values.push(field.required ? INVALID : undefined);
      continue;
    }
    let result: unknown = value;
    let reason: string | null = null;
    let quoted = true;
    const forbidden =
      typeof value === 'string' ? forbiddenCharacters(value, '', sink.csv && prefix === 'names.') : null;
    if (forbidden) {
      reason = forbidden.message;
      quoted = false;
    } else if (field.read) {
      const read = field.read(value, sink);
      if (typeof read === 'number') result = read;
      else reason = read;
    } else if (field.object) {
      if (!isObject(value)) reason = field.message;
      else {
        const nested = validate(field.object, value, `${path}.`, line, sink);
        ok &&= nested.ok;
        result = nested.ok ? nested.values : INVALID;
      }
    } else {
      const broken = field.rules!.find((rule) => !rule.check(value));
      if (broken) reason = broken.message;
    }
    if (reason !== null) {
      const label = sink.label(path);
      sink.problem(
        line,
        `${label}: ${quoted ? `${echo(value)} ` : ''}${reason}`,
        `${label} ${reasonKind(reason)}`,
      );
      ok = false;
      result = INVALID;
    }
    values.push(result);
  }
  return { values, ok };
}

/** A field's value when it was valid. */
const valid = <T>(value: unknown): T | undefined => (value === INVALID ? undefined : (value as T));

// ---------------------------------------------------------------------------
// The kinds

/** What the collector needs of a kind: validation, and the key that finds duplicates. */
export interface KindRule<T> {
  validate(obj: Record<string, unknown>, line: number, sink: RecordSink): T | null;
  /** The duplicate key is (group, subgroup, time). */
  group(record: T): string;
  subgroup(record: T): string;
  time(record: T): number;
  /** Whether two records with the same key carry the same values. */
  same(a: T, b: T): boolean;
}

function kinds() {
  const asset = compileShape(AssetRecord);
  const rate = compileShape(RateRecord);
  const gold = compileShape(GoldImportRecord);
  const assets: KindRule<Asset> = {
    validate(obj, line, sink) {
      const { values: v, ok } = validate(asset, obj, '', line, sink);
      if (!ok) return null;
      const n = v[2] as unknown[];
      return {
        code: v[0] as string,
        symbol: v[1] as string,
        names: { en: n[0] as string, fr: n[1] as string, ar: n[2] as string },
        type: v[3] as AssetType,
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
  const rates: KindRule<RateObservation> = {
    validate(obj, line, sink) {
      const { values: v, ok } = validate(rate, obj, '', line, sink);
      if (!ok) {
        sink.partial({ line, currency: valid(v[0]), buy: valid(v[2]), sell: valid(v[3]) });
        return null;
      }
      return {
        currency: v[0] as string,
        source: v[1] as Source,
        buy: v[2] as number,
        sell: v[3] as number,
        updatedAt: v[4] as number,
      };
    },
    group: (r) => r.currency,
    subgroup: (r) => r.source,
    time: (r) => r.updatedAt,
    same: (a, b) => a.buy === b.buy && a.sell === b.sell,
  };
  const golds: KindRule<GoldObservation> = {
    validate(obj, line, sink) {
      const { values: v, ok } = validate(gold, obj, '', line, sink);
      if (!ok) {
        sink.partial({ line, buy: valid(v[1]), sell: valid(v[2]) });
        return null;
      }
      return { purity: v[0] as Purity, buy: v[1] as number, sell: v[2] as number, updatedAt: v[3] as number };
    },
    group: (r) => r.purity,
    subgroup: () => '',
    time: (r) => r.updatedAt,
    same: (a, b) => a.buy === b.buy && a.sell === b.sell,
  };
  return { assets, rates, gold: golds };
}

let compiled: ReturnType<typeof kinds> | undefined;

/** The rule of a kind, compiled on first use (not on every start of the CLI). */
export function kindRule(kind: 'assets'): KindRule<Asset>;
export function kindRule(kind: 'rates'): KindRule<RateObservation>;
export function kindRule(kind: 'gold'): KindRule<GoldObservation>;
export function kindRule(
  kind: ImportKind,
): KindRule<Asset> | KindRule<RateObservation> | KindRule<GoldObservation> {
  compiled ??= kinds();
  return compiled[kind];
}
