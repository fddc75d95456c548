/**
 * CSV import read by csv-parse (src/import/csv.ts): the RFC 4180 cases the
 * hand-written scanner handled, read the same way, including where the input
 * is handed to csv-parse in runs of 1 MiB (a quoted field across the cut,
 * lines counted across runs) and where a malformed row spans lines.
 */
import { describe, expect, it } from 'vitest';
import { parseImport } from '../../src/import/parse.js';
import { plain } from '../support/import-problems.js';

const ASSETS_HEADER = 'code,symbol,type,name_en,name_fr,name_ar';
const asset = (code: string, en: string) => ({
  code,
  symbol: code,
  names: { en, fr: 'fr', ar: 'ar' },
  type: 'currency',
});
/** `n` asset rows AA0000, AA0001, … of about 40 bytes each. */
const rows = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => {
    const code = `AA${String(from + i).padStart(4, '0')}`;
    return `${code},${code},currency,Unit ${from + i},fr,ar`;
  });

describe('CSV read by csv-parse', () => {
  it('reads quoted fields, doubled quotes, CRLF and LF, a BOM and blank lines', () => {
    const text = `\uFEFF${ASSETS_HEADER}\r\n"AAA","A",currency,"a, ""b""",fr,ar\r\n\r\n   \nBBB,B,currency,"x\r\ny",fr,ar\nCCC,C,currency,z,fr,ar`;
    const r = parseImport('assets', text, 'csv');
    expect(plain(r.problems)).toEqual([]);
    expect(r.records.map((a) => [a.code, a.names.en])).toEqual([
      ['AAA', 'a, "b"'],
      ['BBB', 'x\r\ny'],
      ['CCC', 'z'],
    ]);
    expect(r.lines).toEqual([2, 5, 7]);
  });

  it('reads a quoted field that runs across the 1 MiB cut, and counts lines across runs', () => {
    const before = rows(30_000);
    const head = `${ASSETS_HEADER}\n${before.join('\n')}\n`;
    expect(head.length).toBeGreaterThan(1 << 20);
    // Rows up to 100 bytes before the cut, then a name of 24 short lines (181 characters) across it.
    let size = ASSETS_HEADER.length + 1;
    const fill = rows(
      before.findIndex((row) => {
        size += row.length + 1;
        return size > (1 << 20) - 100;
      }),
    );
    const start = `${ASSETS_HEADER}\n${fill.join('\n')}\n`;
    expect(start.length).toBeLessThan(1 << 20);
    const long = Array.from({ length: 24 }, (_, i) => `line ${i}`).join('\n');
    const opens = start.length + 'LONG,L,currency,"'.length;
    expect(opens).toBeLessThan(1 << 20);
    expect(opens + long.length).toBeGreaterThan(1 << 20);
    const after = rows(2, 90_000);
    const text = `${start}LONG,L,currency,"${long}",fr,ar\n${after[0]}\nbad,x,currency,a,b,c\n${after[1]}\n`;
    const r = parseImport('assets', text, 'csv');
    const longLine = fill.length + 2;
    const badLine = longLine + 24 + 1;
    expect(plain(r.problems)).toEqual([
      { line: badLine, message: 'code: "bad" must be an uppercase asset code (2-10 of A-Z, 0-9)' },
    ]);
    expect(r.records).toHaveLength(fill.length + 3);
    expect(r.records[fill.length]).toEqual({ ...asset('LONG', long), symbol: 'L' });
    expect(r.lines.slice(-3)).toEqual([longLine, longLine + 24, badLine + 1]);
    // Many runs: the line of a bad row far into the file.
    const far = parseImport('assets', `${head}bad,x,currency,a,b,c\n`, 'csv');
    expect(far.records).toHaveLength(30_000);
    expect(plain(far.problems)).toEqual([
      { line: 30_002, message: 'code: "bad" must be an uppercase asset code (2-10 of A-Z, 0-9)' },
    ]);
  });

  it('reports a malformed row that spans lines at its first line, and reads on after the fault', () => {
    const text = [ASSETS_HEADER, 'AAA,A,currency,"two', 'lines"x,fr,ar', 'BBB,B,currency,en,fr,ar'].join(
      '\n',
    );
    const r = parseImport('assets', text, 'csv');
    expect(plain(r.problems)).toEqual([
      { line: 2, message: 'malformed CSV: unexpected character after a closing quote' },
    ]);
    expect(r.records.map((a) => a.code)).toEqual(['BBB']);
    expect(r.lines).toEqual([4]);
  });

  it('stops at an unterminated quoted field, after the rows before it', () => {
    const text = [
      ASSETS_HEADER,
      'AAA,A,currency,en,fr,ar',
      'BBB,B,currency,"en,fr,ar',
      'CCC,C,currency,en,fr,ar',
    ].join('\r\n');
    const r = parseImport('assets', text, 'csv');
    expect(plain(r.problems)).toEqual([{ line: 3, message: 'malformed CSV: unterminated quoted field' }]);
    expect(r.records.map((a) => a.code)).toEqual(['AAA']);
  });

  it('a malformed header row is the one problem', () => {
    const r = parseImport('gold', '"purity"x,buy,sell,updatedAt\n"24K,1,2\n', 'csv');
    expect(plain(r.problems)).toEqual([
      { line: 1, message: 'malformed CSV: unexpected character after a closing quote' },
    ]);
  });
});
