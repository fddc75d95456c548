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

/** Each column's path in the record, and the header row. */
export interface CsvColumns {
  paths: readonly (readonly string[])[];
  header: string;
}

export function csvColumns(record: TObject): CsvColumns {
  const paths: string[][] = [];
  const walk = (schema: TObject, prefix: string[]) => {
    for (const [name, property] of Object.entries(schema.properties) as [string, TSchema][]) {
      if (property.type === 'object' && property.properties) walk(property as TObject, [...prefix, name]);
      else paths.push([...prefix, name]);
    }
  };
  walk(record, []);
  return { paths, header: paths.map((p) => field(p.join('_'))).join(',') };
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One field, quoted only when RFC 4180 requires it. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(columns: CsvColumns, records: readonly unknown[]): string {
  let out = `${columns.header}\r\n`;
  for (const record of records) {
    const fields: string[] = [];
    for (const path of columns.paths) {
      let value: unknown = record;
      for (const name of path) value = (value as Record<string, unknown> | null)?.[name];
      fields.push(field(value));
    }
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
