/**
 * CSV answers (decisions §12) read back with a maintained RFC 4180 parser,
 * csv-parse, never with our own code, and compared with the JSON records of
 * the same request.
 */
import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** The rows of a CSV body, header row first, each field as its raw text. */
export function csvRows(text: string): string[][] {
  // Lines end with CRLF, the last one included: a bare LF would not split a record.
  expect(text.endsWith('\r\n'), 'the last record ends with CRLF').toBe(true);
  return parse(text, { record_delimiter: '\r\n', relax_column_count: false, skip_empty_lines: false });
}

/** A JSON record as CSV columns: nested fields joined with `_`, in JSON order, values as JSON writes them. */
export function flatten(record: Record<string, unknown>, prefix = ''): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(record)) {
    const column = prefix ? `${prefix}_${name}` : name;
    if (value !== null && typeof value === 'object')
      out.push(...flatten(value as Record<string, unknown>, column));
    // A null is an empty field (http/csv.ts).
    else out.push([column, value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return out;
}

/**
 * Fails unless `csv` is the CSV of `json` (the same request asked as JSON):
 * the header row is `columns`, then every JSON record, in order, field by field.
 */
export function expectCsvOf(
  csv: LightMyRequestResponse,
  json: LightMyRequestResponse,
  columns: string[],
): void {
  expect(csv.statusCode, csv.body).toBe(200);
  expect(csv.headers['content-type']).toBe(CSV_CONTENT_TYPE);
  expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
  const [header, ...rows] = csvRows(csv.body);
  expect(header).toEqual(columns);
  const records = json.json().data as Array<Record<string, unknown>>;
  const expected = records.map((r) => {
    const fields = flatten(r);
    expect(fields.map(([c]) => c)).toEqual(columns);
    return fields.map(([, v]) => v);
  });
  expect(rows).toEqual(expected);
}
