/**
 * The report of an import's problems (docs/decisions.md 93): every problem in
 * one pass, grouped by kind over consecutive rows, at most 100 groups, then
 * the count of each kind, bounded in size whatever the file holds; and what
 * spreadsheets add (decisions 94): rows of empty cells and empty trailing
 * columns ignored and counted, rows repeating an earlier row listed by line.
 */
import { describe, expect, it } from 'vitest';
import { parseImport } from '../../src/import/parse.js';
import { listingLines, listProblems, refusal } from '../../src/import/report.js';
import { BIDI_SENTENCE, CONTROL_SENTENCE } from '../../src/schemas/admin-check.js';
import { plain } from '../support/import-problems.js';

const HEADER = 'currency;source;buy;sell;updatedAt';
const NO_ZONE = (t: string) =>
  `has no time zone: write it with its UTC offset, e.g. ${t}+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers`;

describe('grouping', () => {
  it('groups one kind over consecutive rows; a row without it, or another kind, starts a new group', () => {
    const rows = [
      HEADER,
      'EUR;parallel;262,5;264;2026-11-20 09:00', // 2
      'EUR;parallel;262,5;264;2026-11-20 10:00', // 3
      '', // 4: a blank line is no row
      'EUR;parallel;262,5;264;2026-11-20 11:00', // 5
      'EUR;parallel;262,5;264;2026-11-20T12:00:00Z', // 6: fine
      'EUR;parallel;abc;264;2026-11-20 13:00', // 7
    ];
    const parsed = parseImport('rates', rows.join('\n'), 'csv');
    const report = refusal(parsed, parsed.problems);
    expect(report.problems).toEqual({
      count: 5,
      lines: 4,
      groups: [
        {
          line: 2,
          lastLine: 5,
          count: 3,
          kind: 'updatedAt has no time zone',
          message: `updatedAt: "2026-11-20 09:00" ${NO_ZONE('2026-11-20T09:00:00')}`,
        },
        {
          line: 7,
          lastLine: 7,
          count: 1,
          kind: 'buy must be a positive decimal number with at most 6 decimal places',
          message: 'buy: "abc" must be a positive decimal number with at most 6 decimal places',
        },
        {
          line: 7,
          lastLine: 7,
          count: 1,
          kind: 'updatedAt has no time zone',
          message: `updatedAt: "2026-11-20 13:00" ${NO_ZONE('2026-11-20T13:00:00')}`,
        },
      ],
      groupsNotListed: 0,
      byKind: [
        { kind: 'updatedAt has no time zone', count: 4 },
        { kind: 'buy must be a positive decimal number with at most 6 decimal places', count: 1 },
      ],
      kindsNotListed: 0,
    });
    expect(listingLines(report.problems)[0]).toBe(
      `lines 2–5 (3 problems): updatedAt: "2026-11-20 09:00" ${NO_ZONE('2026-11-20T09:00:00')}`,
    );
  });

  it('lists at most 100 groups, then the count of each kind', () => {
    // Two kinds alternating: each row starts a group of its own.
    const problems = Array.from({ length: 300 }, (_, i) => ({
      line: i + 2,
      message: `problem ${i}`,
      kind: i % 2 === 0 ? 'even' : 'odd',
    }));
    const listing = listProblems(problems, []);
    expect(listing.groups).toHaveLength(100);
    expect(listing.groupsNotListed).toBe(200);
    expect(listing.byKind).toEqual([
      { kind: 'even', count: 150 },
      { kind: 'odd', count: 150 },
    ]);
    const text = listingLines(listing);
    expect(text[100]).toBe('… and 200 more group(s); problems by kind:');
    expect(text.slice(101)).toEqual(['  150 × even', '  150 × odd']);
  });

  it('keeps the report of 300,000 bad rows small (a 12 MB file)', () => {
    const lines = [HEADER];
    for (let i = 0; i < 300_000; i++) {
      // Local times without a zone, as a spreadsheet saves them: each row refused.
      const day = String(1 + (i % 28)).padStart(2, '0');
      lines.push(`EUR;parallel;262,500000;264,750000;2026-11-${day} 09:${String(i % 60).padStart(2, '0')}`);
    }
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(12_000_000);
    const parsed = parseImport('rates', text, 'csv');
    expect(parsed.problems).toHaveLength(300_000);
    const report = refusal(parsed, parsed.problems);
    expect(report.problems.count).toBe(300_000);
    expect(report.problems.lines).toBe(300_000);
    expect(report.problems.groups.map((g) => [g.line, g.lastLine, g.count])).toEqual([[2, 300_001, 300_000]]);
    expect(JSON.stringify(report).length).toBeLessThan(2_000);
    // The worst case, each problem its own group and kind: still bounded.
    const scattered = Array.from({ length: 300_000 }, (_, i) => ({
      line: 2 * i + 2,
      message: `unknown field ${'"x'.padEnd(40, 'x')}${i}"`,
      kind: `unknown field "${'x'.repeat(40)}${i}"`,
    }));
    const worst = listProblems(scattered, []);
    expect(worst.groupsNotListed).toBe(299_900);
    expect(worst.kindsNotListed).toBe(299_900);
    expect(JSON.stringify(worst).length).toBeLessThan(64 * 1024);
  }, 180_000); // 300,000 rows parsed on a busy machine
});

describe('what spreadsheets add (decisions 94)', () => {
  it('ignores and counts rows of empty cells and blank lines, and empty columns after the named ones', () => {
    const text = [
      `${HEADER};;`,
      'EUR;parallel;262,5;264;2026-11-20T09:00:00Z;;',
      ';;;;;;',
      '',
      ' ; ; ;;;;',
      'USD;parallel;241;243;2026-11-20T09:00:00Z', // the empty cells left out
      'GBP;parallel;300;302;2026-11-20T09:00:00Z;;note',
    ].join('\r\n');
    const parsed = parseImport('rates', text, 'csv');
    expect(parsed.records.map((r) => r.currency)).toEqual(['EUR', 'USD']);
    expect(parsed.emptyRows).toBe(3);
    expect(parsed.emptyColumns).toBe(2);
    expect(plain(parsed.problems)).toEqual([
      {
        line: 7,
        message: 'a value in a column without a header (after column 5): name the column or empty the cell',
      },
    ]);
    // An empty column between named ones is not ignored: it may hold what the header forgot.
    const middle = parseImport('rates', 'currency;;source;buy;sell;updatedAt\n', 'csv');
    expect(middle.problems[0]?.message).toMatch(/^header: unknown column ""/);
  });

  it('lists a row repeating an earlier one by its line and reads it once; other values are a problem', () => {
    const row = 'EUR;parallel;262,5;264;2026-11-20T09:00:00Z';
    const parsed = parseImport(
      'rates',
      [HEADER, row, row, 'USD;parallel;1;2;2026-11-20T09:00:00Z', row].join('\n'),
      'csv',
    );
    expect(parsed.records).toHaveLength(2);
    expect(plain(parsed.problems)).toEqual([]);
    expect(plain(parsed.duplicates)).toEqual([
      { line: 3, message: 'repeats line 2' },
      { line: 5, message: 'repeats line 2' },
    ]);
    const notes = refusal(parsed, []).duplicateRows;
    expect(notes.groups.map((g) => [g.line, g.lastLine, g.count])).toEqual([
      [3, 3, 1],
      [5, 5, 1],
    ]);
  });
});

describe('characters no admin input may hold, in imported values (decisions 89)', () => {
  const asset = (code: string, en: string, ar = 'دينار', symbol = 'D') =>
    JSON.stringify({ code, symbol, names: { en, fr: 'Dinar', ar }, type: 'currency' });

  it('refuses a control character in any value, naming the line and never quoting it', () => {
    const ndjson = [
      asset('XAA', 'Nul\u0000dinar'),
      asset('XAB', 'Line\nbreak'),
      JSON.stringify({
        currency: 'EU\u0000R',
        source: 'parallel',
        buy: '1',
        sell: '2',
        updatedAt: '2026-11-20T09:00:00Z',
      }),
    ];
    expect(plain(parseImport('assets', ndjson.slice(0, 2).join('\n'), 'ndjson').problems)).toEqual([
      { line: 1, message: `names.en: ${CONTROL_SENTENCE}` },
      { line: 2, message: `names.en: ${CONTROL_SENTENCE}` },
    ]);
    expect(plain(parseImport('rates', ndjson[2] as string, 'ndjson').problems)).toEqual([
      { line: 1, message: `currency: ${CONTROL_SENTENCE}` },
    ]);
    // An unknown field's name is not quoted either.
    const odd = parseImport(
      'gold',
      '{"purity":"24K","buy":1,"sell":2,"updatedAt":"2026-11-20T09:00:00Z","x\\u001b[2J":1}',
      'ndjson',
    );
    expect(plain(odd.problems)).toEqual([
      { line: 1, message: `unknown field: its name ${CONTROL_SENTENCE}` },
    ]);
    // CSV: a raw NUL in a field, and a line break only inside a quoted name (the file's structure).
    const csv = [
      'code,symbol,type,name_en,name_fr,name_ar',
      'XAC,D,currency,"Two\r\nlines",Dinar,دينار',
      'XAD,D,currency,Nul\u0000,Dinar,دينار',
      'X\u0001E,D,currency,Dinar,Dinar,دينار',
      'XAF,"D\nX",currency,Dinar,Dinar,دينار',
    ].join('\n');
    const r = parseImport('assets', csv, 'csv');
    expect(r.records.map((a) => a.code)).toEqual(['XAC']);
    expect(plain(r.problems)).toEqual([
      {
        line: 4,
        message: `name_en: must not contain control characters other than tab, CR and LF (U+0000 to U+001F, U+007F): remove them`,
      },
      { line: 5, message: `code: ${CONTROL_SENTENCE}` },
      { line: 6, message: `symbol: ${CONTROL_SENTENCE}` },
    ]);
  });

  it('refuses bidirectional controls in names and identifiers; the marks Arabic needs pass in names.ar', () => {
    const r = parseImport(
      'assets',
      [
        asset('XBA', 'Dinar\u202e'),
        asset('XBB', 'Dinar', 'دينار\u2066'),
        JSON.stringify({
          code: 'X\u202eB',
          symbol: 'D',
          names: { en: 'a', fr: 'b', ar: 'c' },
          type: 'currency',
        }),
        asset('XBC', 'Dinar', '\u200fدينار\u061c'),
      ].join('\n'),
      'ndjson',
    );
    expect(r.records.map((a) => a.code)).toEqual(['XBC']);
    expect(r.records[0]?.names.ar).toBe('\u200fدينار\u061c');
    expect(plain(r.problems)).toEqual([
      { line: 1, message: `names.en: ${BIDI_SENTENCE}` },
      { line: 2, message: `names.ar: ${BIDI_SENTENCE}` },
      { line: 3, message: `code: ${BIDI_SENTENCE}` },
    ]);
    const rates = parseImport(
      'rates',
      'currency,source,buy,sell,updatedAt\nEUR,parallel\u2067,1,2,2026-11-20T09:00:00Z\n',
      'csv',
    );
    expect(plain(rates.problems)).toEqual([{ line: 2, message: `source: ${BIDI_SENTENCE}` }]);
  });
});
