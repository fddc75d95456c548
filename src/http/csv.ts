/**
 * The CSV representation of a history page (decisions §12): a header row, one
 * record a line, `\r\n` line ends, RFC 4180 quoting. Columns are the record's
 * fields in the order of its schema (the JSON order), nested fields joined
 * with `_`; numbers are written as JSON writes them.
 *
 * A CSV page is made from its JSON page, once per data version, so the two
 * always hold the same records; it is cached beside it (PageCache) and served
 * like it.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { bodyFor, etagOf, type Prepared } from './respond.js';

/** Each column's path in the record, whether it is a number column, and the header row. */
export interface CsvColumns {
  paths: readonly (readonly string[])[];
  numeric: readonly boolean[];
  header: string;
}

/** A number (or integer) schema, alone or with null: its values are never text. */
function isNumeric(schema: TSchema): boolean {
  const members = (schema.anyOf as TSchema[] | undefined) ?? [schema];
  return members.every((m) => m.type === 'number' || m.type === 'integer' || m.type === 'null');
}

export function csvColumns(record: TObject): CsvColumns {
  const paths: string[][] = [];
  const numeric: boolean[] = [];
  const walk = (schema: TObject, prefix: string[]) => {
    for (const [name, property] of Object.entries(schema.properties) as [string, TSchema][]) {
      if (property.type === 'object' && property.properties) walk(property as TObject, [...prefix, name]);
      else {
        paths.push([...prefix, name]);
        numeric.push(isNumeric(property));
      }
    }
  };
  walk(record, []);
  return { paths, numeric, header: paths.map((p) => field(p.join('_'), false)).join(',') };
}

const NEEDS_QUOTES = /[",\r\n]/;
/** The first characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field: text that would be a formula neutralised, then quoted only when RFC 4180 requires it. */
function field(value: unknown, numeric: boolean): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!numeric && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(columns: CsvColumns, records: readonly unknown[]): string {
  let out = `${columns.header}\r\n`;
  for (const record of records) {
    const fields: string[] = [];
    columns.paths.forEach((path, i) => {
      let value: unknown = record;
      for (const name of path) value = (value as Record<string, unknown> | null)?.[name];
      fields.push(field(value, columns.numeric[i]!));
    });
    out += `${fields.join(',')}\r\n`;
  }
  return out;
}

/**
 * The CSV page of a prepared JSON page: the same records, the same next page.
 * Its bytes hold no request id (that is in X-Request-Id), so `head` is the
 * whole body; its ETag is its own.
 */
export function csvPage(json: Prepared, columns: CsvColumns): Prepared {
  const { data } = JSON.parse(bodyFor(json, '').toString('utf8')) as { data: unknown[] };
  const head = Buffer.from(toCsv(columns, data));
  return { head, tail: EMPTY, etag: etagOf(head), csv: true, next: json.next ?? null };
}

const EMPTY = Buffer.alloc(0);
