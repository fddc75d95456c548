import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMicros } from '../../src/domain/decimal.js';
import { detectFormat, type ImportFormat } from '../../src/import/detect.js';
import { parseImport, parseNdjsonPieces } from '../../src/import/parse.js';
import { plain } from '../support/import-problems.js';

const T0 = '2026-01-10T09:00:00.000Z';
const T0_MS = Date.UTC(2026, 0, 10, 9, 0, 0, 0);
const T1 = '2026-01-10T10:00:00Z';
const T1_MS = Date.UTC(2026, 0, 10, 10, 0, 0, 0);

const MSG_CODE = 'must be an uppercase asset code (2-10 of A-Z, 0-9)';
const MSG_AMOUNT = 'must be a positive decimal number with at most 6 decimal places';
const MSG_TS = 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z';

const rate = (over: Record<string, unknown> = {}) => ({
  currency: 'EUR',
  source: 'parallel',
  buy: '241.5',
  sell: '243',
  updatedAt: T0,
  ...over,
});

const ndjson = (...rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** Problems for a single rates NDJSON line built from `rate(over)`. */
function rateProblems(over: Record<string, unknown>): string[] {
  const r = parseImport('rates', ndjson(rate(over)), 'ndjson');
  for (const p of r.problems) expect(p.line).toBe(1);
  return r.problems.map((p) => p.message);
}

function tsProblems(updatedAt: unknown): string[] {
  return rateProblems({ updatedAt });
}

describe('detectFormat', () => {
  it('uses the file extension first', () => {
    expect(detectFormat('{}', 'a.csv')).toBe('csv');
    expect(detectFormat('a,b', 'rates.NDJSON')).toBe('ndjson');
    expect(detectFormat('a,b', 'rates.jsonl')).toBe('ndjson');
    expect(detectFormat('a,b', '/tmp/x/rates.json')).toBe('json');
  });

  it('falls back to the first non-blank character', () => {
    expect(detectFormat('\uFEFF\n  [ {"a":1} ]')).toBe('json');
    expect(detectFormat('\r\n{"a":1}\n', '-')).toBe('ndjson');
    expect(detectFormat('currency,source\n', 'rates.txt')).toBe('csv');
    expect(detectFormat('')).toBe('csv');
  });
});

describe('rates', () => {
  const expected = [
    { currency: 'EUR', source: 'parallel', buy: 241_500_000, sell: 243_000_000, updatedAt: T0_MS },
    { currency: 'USD', source: 'official', buy: 134_123_456, sell: 135_000_000, updatedAt: T1_MS },
  ];

  it('parses NDJSON (numbers and strings, blank lines, trailing newline)', () => {
    const text = `${JSON.stringify(rate())}\n\n   \n${JSON.stringify(rate({ currency: 'USD', source: 'official', buy: 134.123456, sell: 135, updatedAt: T1 }))}\n`;
    const r = parseImport('rates', text, 'ndjson');
    expect(r).toMatchObject({ kind: 'rates', records: expected, lines: [1, 4], problems: [] });
  });

  it('parses NDJSON with a BOM, CRLF line ends and no trailing newline', () => {
    const text = `\uFEFF${JSON.stringify(rate())}\r\n\r\n${JSON.stringify(rate({ currency: 'USD', source: 'official', buy: '134.123456', sell: '135.000000', updatedAt: T1 }))}`;
    const r = parseImport('rates', text, 'ndjson');
    expect(plain(r.problems)).toEqual([]);
    expect(r.records).toEqual(expected);
  });

  it('parses CSV with columns in any order, BOM and CRLF', () => {
    const text = `\uFEFFupdatedAt,currency,sell,buy,source\r\n${T0},EUR,243,241.5,parallel\r\n\r\n${T1},USD,135,134.123456,official\r\n`;
    const r = parseImport('rates', text, 'csv');
    expect(plain(r.problems)).toEqual([]);
    expect(r.records).toEqual(expected);
  });

  it('parses a JSON array', () => {
    const text = `\uFEFF${JSON.stringify([rate(), rate({ currency: 'USD', source: 'official', buy: 134.123456, sell: 135, updatedAt: T1 })], null, 2)}`;
    const r = parseImport('rates', text, 'json');
    expect(plain(r.problems)).toEqual([]);
    expect(r.records).toEqual(expected);
  });

  it('reports every rule for currency, source, buy and sell', () => {
    expect(rateProblems({ currency: 'eur' })).toEqual([`currency: "eur" ${MSG_CODE}`]);
    expect(rateProblems({ currency: 'E' })).toEqual([`currency: "E" ${MSG_CODE}`]);
    expect(rateProblems({ currency: 'ABCDEFGHIJK' })).toEqual([`currency: "ABCDEFGHIJK" ${MSG_CODE}`]);
    expect(rateProblems({ currency: 42 })).toEqual([`currency: 42 ${MSG_CODE}`]);
    expect(rateProblems({ currency: 'USDT10' })).toEqual([]);
    expect(rateProblems({ source: 'black' })).toEqual([
      'source: "black" must be one of parallel, official, transfer',
    ]);
    expect(rateProblems({ source: 'transfer' })).toEqual([]);
    for (const bad of [
      0,
      '0',
      '0.000000',
      -1,
      '-1',
      '1.1234567',
      1.1234567,
      '1e3',
      1e-7,
      '',
      'abc',
      null,
      true,
      '01',
    ]) {
      expect(rateProblems({ buy: bad }), String(bad)).toEqual([`buy: ${JSON.stringify(bad)} ${MSG_AMOUNT}`]);
    }
    expect(rateProblems({ sell: '1000000000.5' })).toEqual([
      'sell: "1000000000.5" must not exceed 1000000000',
    ]);
    expect(rateProblems({ sell: '0.000001' })).toEqual([]);
    expect(rateProblems({ sell: '1000000000' })).toEqual([]);
  });

  it('reports unknown and missing fields', () => {
    const { sell: _, ...noSell } = rate();
    const r = parseImport('rates', ndjson({ ...noSell, foo: 1, bar: 2 }), 'ndjson');
    expect(plain(r.problems)).toEqual([
      { line: 1, message: 'unknown field "foo"' },
      { line: 1, message: 'unknown field "bar"' },
      { line: 1, message: 'missing field "sell"' },
    ]);
    expect(r.records).toEqual([]);
  });

  it('reports every problem of a record together', () => {
    expect(rateProblems({ currency: 'x', source: 'y', buy: -1, sell: 'z', updatedAt: '2026-01-01' })).toEqual(
      [
        `currency: "x" ${MSG_CODE}`,
        'source: "y" must be one of parallel, official, transfer',
        `buy: -1 ${MSG_AMOUNT}`,
        `sell: "z" ${MSG_AMOUNT}`,
        'updatedAt: "2026-01-01" is a date without a time: write 2026-01-01T00:00:00Z or give the time of the quote',
      ],
    );
  });

  it('checks every record and sorts problems by line', () => {
    const text = [
      JSON.stringify(rate({ currency: 'usd' })),
      JSON.stringify(rate({ currency: 'USD' })),
      '',
      '{"currency": "EUR", oops}',
      '[1, 2]',
      '42',
      JSON.stringify(rate({ currency: 'GBP', buy: '1.1234567' })),
    ].join('\n');
    const r = parseImport('rates', text, 'ndjson');
    expect(r.problems.map((p) => p.line)).toEqual([1, 4, 5, 6, 7]);
    expect(r.problems[0]?.message).toBe(`currency: "usd" ${MSG_CODE}`);
    expect(r.problems[1]?.message).toMatch(/^invalid JSON: /);
    expect(r.problems[1]?.message).not.toContain('oops}'); // no echo of the input
    expect(r.problems[2]?.message).toBe('record must be a JSON object');
    expect(r.problems[3]?.message).toBe('record must be a JSON object');
    expect(r.problems[4]?.message).toBe(`buy: "1.1234567" ${MSG_AMOUNT}`);
    expect(r.records.map((x) => x.currency)).toEqual(['USD']);
  });

  it('computes the same micro-units as parseMicros', () => {
    const values: unknown[] = ['0.1', '7', '123456789', '123456789.123456', '999999999.999999', '1000000000'];
    values.push(
      '1000000000.000001',
      '1234567890',
      ' 12.5 ',
      '12.50',
      '0.000001',
      '0.0000001',
      '00.5',
      '.5',
      '5.',
    );
    values.push(0.1, 7, 123.456789, 999999999.999999, 1e9, 1e21, 1.5e-7, '+1', '1_0', '١٢');
    for (let i = 0; i < 300; i++) {
      const whole = Math.floor(Math.random() * 10 ** Math.floor(Math.random() * 11));
      const frac = String(Math.floor(Math.random() * 1e8)).slice(0, Math.floor(Math.random() * 8));
      values.push(frac ? `${whole}.${frac}` : String(whole), Number(frac ? `${whole}.${frac}` : whole));
    }
    for (const v of values) {
      const expected = parseMicros(v);
      const r = parseImport('rates', ndjson(rate({ buy: v })), 'ndjson');
      if (expected !== null && expected > 0) {
        expect(r.records[0]?.buy, String(v)).toBe(expected);
      } else {
        expect(r.records, String(v)).toEqual([]);
        expect(r.problems[0]?.message, String(v)).toMatch(/^buy: /);
      }
    }
  });
});

describe('updatedAt', () => {
  it('accepts Z and offsets and converts to epoch ms exactly', () => {
    const at = (updatedAt: string) =>
      parseImport('rates', ndjson(rate({ updatedAt })), 'ndjson').records[0]?.updatedAt;
    expect(at('2026-01-10T09:00:00Z')).toBe(T0_MS);
    expect(at('2026-01-10T09:00:00.1Z')).toBe(T0_MS + 100);
    expect(at('2026-01-10T09:00:00.12Z')).toBe(T0_MS + 120);
    expect(at('2026-01-10T09:00:00.123Z')).toBe(T0_MS + 123);
    expect(at('2026-01-10T10:00:00+01:00')).toBe(T0_MS);
    expect(at('2026-01-10T04:30:00.007-04:30')).toBe(T0_MS + 7);
    expect(at('2026-01-10T09:00:00-00:00')).toBe(T0_MS);
    expect(at('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(at('2000-02-29T23:59:59.999Z')).toBe(Date.UTC(2000, 1, 29, 23, 59, 59, 999));
    expect(at('1990-01-01T00:00:00Z')).toBe(Date.UTC(1990, 0, 1));
  });

  it('rejects malformed timestamps', () => {
    for (const bad of [
      '2026-01-10T09:00Z',
      '2026-01-10 09:00:00Z',
      '2026-01-10t09:00:00z',
      '2026-01-10T09:00:00.Z',
      '2026-01-10T09:00:00+0100',
      '2026-01-10T09:00:00+01',
      '2026-1-10T09:00:00Z',
      '2026-01-10T09:00:00ZZ',
      '',
      1768035600000,
      null,
    ]) {
      expect(tsProblems(bad), String(bad)).toEqual([`updatedAt: ${JSON.stringify(bad)} ${MSG_TS}`]);
    }
    // A local time and a date alone: refused too, with messages of their own (test/import/spreadsheet.test.ts).
    expect(tsProblems('2026-01-10T09:00:00')).toEqual([
      'updatedAt: "2026-01-10T09:00:00" has no time zone: write it with its UTC offset, e.g. 2026-01-10T09:00:00+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers',
    ]);
    expect(tsProblems('2026-01-10')).toEqual([
      'updatedAt: "2026-01-10" is a date without a time: write 2026-01-10T00:00:00Z or give the time of the quote',
    ]);
  });

  it('rejects more than millisecond precision with its own message', () => {
    expect(tsProblems('2026-01-10T09:00:00.1234Z')).toEqual([
      'updatedAt: "2026-01-10T09:00:00.1234Z" must not be more precise than milliseconds (at most 3 fractional digits)',
    ]);
  });

  it('rejects dates and times that do not exist', () => {
    expect(tsProblems('2025-02-30T00:00:00Z')).toEqual([
      'updatedAt: "2025-02-30T00:00:00Z" has an invalid calendar date (2025-02-30)',
    ]);
    expect(tsProblems('2023-02-29T00:00:00Z')).toEqual([
      'updatedAt: "2023-02-29T00:00:00Z" has an invalid calendar date (2023-02-29)',
    ]);
    expect(tsProblems('2100-02-29T00:00:00Z')).toHaveLength(1);
    expect(tsProblems('2025-04-31T00:00:00Z')).toHaveLength(1);
    expect(tsProblems('2025-13-01T00:00:00Z')).toHaveLength(1);
    expect(tsProblems('2025-00-10T00:00:00Z')).toHaveLength(1);
    expect(tsProblems('2025-01-00T00:00:00Z')).toHaveLength(1);
    expect(tsProblems('2025-01-10T24:00:00Z')).toEqual([
      'updatedAt: "2025-01-10T24:00:00Z" has an invalid time of day (24:00:00)',
    ]);
    expect(tsProblems('2025-01-10T23:60:00Z')).toHaveLength(1);
    expect(tsProblems('2025-01-10T23:59:60Z')).toHaveLength(1);
    expect(tsProblems('2025-01-10T23:59:59+24:00')).toEqual([
      'updatedAt: "2025-01-10T23:59:59+24:00" has an invalid time zone offset (+24:00)',
    ]);
  });

  it('rejects years before 1990 and more than one day ahead', () => {
    expect(tsProblems('1989-12-31T23:59:59.999Z')).toEqual([
      'updatedAt: "1989-12-31T23:59:59.999Z" must not be before 1990',
    ]);
    expect(tsProblems('1990-01-01T00:30:00+01:00')).toEqual([
      'updatedAt: "1990-01-01T00:30:00+01:00" must not be before 1990',
    ]);
    expect(tsProblems('0099-01-01T00:00:00Z')).toEqual([
      'updatedAt: "0099-01-01T00:00:00Z" must not be before 1990',
    ]);
    const soon = new Date(Date.now() + 23 * 3_600_000).toISOString();
    expect(tsProblems(soon)).toEqual([]);
    const later = new Date(Date.now() + 25 * 3_600_000).toISOString();
    expect(tsProblems(later)).toEqual([`updatedAt: "${later}" must not be more than 1 day in the future`]);
  });
});

describe('gold', () => {
  const expected = [
    { purity: '18K', buy: 14_000_000_000, sell: 14_500_000_000, updatedAt: T0_MS },
    { purity: '24K', buy: 18_650_250_000, sell: 19_000_000_000, updatedAt: T0_MS },
  ];
  const rows = [
    { purity: '18K', buy: 14000, sell: '14500', updatedAt: T0 },
    { purity: '24K', buy: '18650.25', sell: 19000, updatedAt: T0 },
  ];

  it('parses NDJSON, CSV and JSON', () => {
    expect(parseImport('gold', ndjson(...rows), 'ndjson')).toMatchObject({
      kind: 'gold',
      records: expected,
      lines: [1, 2],
      problems: [],
    });
    const csv = `purity,buy,sell,updatedAt\n18K,14000,14500,${T0}\n24K,18650.25,19000,${T0}\n`;
    expect(parseImport('gold', csv, 'csv')).toMatchObject({
      kind: 'gold',
      records: expected,
      lines: [2, 3],
      problems: [],
    });
    expect(parseImport('gold', JSON.stringify(rows), 'json')).toMatchObject({
      kind: 'gold',
      records: expected,
      lines: [1, 1],
      problems: [],
    });
  });

  it('validates purity, amounts and fields', () => {
    const r = parseImport(
      'gold',
      ndjson({ purity: '22K', buy: '0', sell: 1, updatedAt: T0, currency: 'XAU' }, { purity: '21K', buy: 1 }),
      'ndjson',
    );
    expect(plain(r.problems)).toEqual([
      { line: 1, message: 'unknown field "currency"' },
      { line: 1, message: 'purity: "22K" must be one of 18K, 21K, 24K' },
      { line: 1, message: `buy: "0" ${MSG_AMOUNT}` },
      { line: 2, message: 'missing field "sell"' },
      { line: 2, message: 'missing field "updatedAt"' },
    ]);
  });

  it('collapses identical duplicates and reports conflicting ones', () => {
    const r = parseImport(
      'gold',
      ndjson(
        { purity: '18K', buy: 1, sell: 2, updatedAt: T0 },
        { purity: '18K', buy: '1.0', sell: '2', updatedAt: '2026-01-10T10:00:00+01:00' },
        { purity: '21K', buy: 1, sell: 2, updatedAt: T0 },
        { purity: '18K', buy: 1, sell: 3, updatedAt: T0 },
      ),
      'ndjson',
    );
    expect(r.records).toHaveLength(2);
    expect(plain(r.problems)).toEqual([{ line: 4, message: 'duplicate of line 1 with different values' }]);
  });
});

describe('assets', () => {
  const usd = {
    code: 'USD',
    symbol: '$',
    names: { en: 'US dollar', fr: 'Dollar américain', ar: 'دولار أمريكي' },
    type: 'currency',
  };
  const xau = {
    code: 'XAU',
    symbol: 'oz',
    names: { en: 'Gold, "troy"', fr: 'Or', ar: 'ذهب' },
    type: 'metal',
  };

  it('parses NDJSON and JSON', () => {
    expect(parseImport('assets', ndjson(usd, xau), 'ndjson')).toMatchObject({
      kind: 'assets',
      records: [usd, xau],
      lines: [1, 2],
      problems: [],
    });
    expect(parseImport('assets', JSON.stringify([usd, xau], null, 4), 'json').records).toEqual([usd, xau]);
  });

  it('parses CSV with quoted fields (commas, doubled quotes, newlines)', () => {
    const text = [
      'code,symbol,type,name_en,name_fr,name_ar',
      'USD,$,currency,US dollar,Dollar américain,دولار أمريكي',
      'XAU,oz,metal,"Gold, ""troy""",Or,"ذهب"',
      'BTC,₿,crypto,"Bit',
      'coin",Bitcoin,بيتكوين',
      'bad,x,crypto,a,b,c',
    ].join('\r\n');
    const r = parseImport('assets', text, 'csv');
    expect(r.records).toEqual([
      usd,
      xau,
      {
        code: 'BTC',
        symbol: '₿',
        names: { en: 'Bit\r\ncoin', fr: 'Bitcoin', ar: 'بيتكوين' },
        type: 'crypto',
      },
    ]);
    // The quoted newline spans lines 4-5, so the bad row is on line 6.
    expect(plain(r.problems)).toEqual([{ line: 6, message: `code: "bad" ${MSG_CODE}` }]);
  });

  it('validates symbol, names and type', () => {
    const r = parseImport(
      'assets',
      ndjson(
        { ...usd, symbol: '' },
        { ...usd, code: 'EUR', symbol: 'x'.repeat(17), type: 'fiat' },
        { ...usd, code: 'GBP', names: { en: '', fr: 'y'.repeat(201), de: 'Pfund' } },
        { ...usd, code: 'CHF', names: 'Swiss franc' },
        { code: 'JPY' },
        { ...usd, code: 'CNY', symbol: '¥'.repeat(16), names: { ...usd.names, ar: '  ' } },
      ),
      'ndjson',
    );
    expect(plain(r.problems)).toEqual([
      { line: 1, message: 'symbol: "" must be a non-empty string of at most 16 characters' },
      {
        line: 2,
        message: 'symbol: "xxxxxxxxxxxxxxxxx" must be a non-empty string of at most 16 characters',
      },
      { line: 2, message: 'type: "fiat" must be one of currency, metal, crypto' },
      { line: 3, message: 'unknown field "names.de"' },
      { line: 3, message: 'names.en: "" must be a non-empty string of at most 200 characters' },
      {
        line: 3,
        message: `names.fr: "${'y'.repeat(40)}"… must be a non-empty string of at most 200 characters`,
      },
      { line: 3, message: 'missing field "names.ar"' },
      { line: 4, message: 'names: "Swiss franc" must be an object with en, fr and ar' },
      { line: 5, message: 'missing field "symbol"' },
      { line: 5, message: 'missing field "names"' },
      { line: 5, message: 'missing field "type"' },
      { line: 6, message: 'names.ar: "  " must be a non-empty string of at most 200 characters' },
    ]);
  });

  it('names CSV columns in messages', () => {
    const r = parseImport(
      'assets',
      `code,symbol,type,name_en,name_fr,name_ar\nUSD,$,currency,,Dollar,دولار\n`,
      'csv',
    );
    expect(plain(r.problems)).toEqual([
      { line: 2, message: 'name_en: "" must be a non-empty string of at most 200 characters' },
    ]);
  });

  it('collapses identical duplicates and reports conflicting ones', () => {
    const r = parseImport('assets', ndjson(usd, xau, usd, { ...usd, symbol: 'US$' }), 'ndjson');
    expect(r.records).toEqual([usd, xau]);
    expect(plain(r.problems)).toEqual([{ line: 4, message: 'duplicate of line 1 with different values' }]);
  });
});

describe('CSV', () => {
  const header = 'currency,source,buy,sell,updatedAt';

  it('requires exactly the listed columns: one problem on line 1 and no records', () => {
    const unknown = parseImport('rates', `${header},note\nEUR,parallel,1,2,${T0},x\n`, 'csv');
    expect(unknown.records).toEqual([]);
    expect(unknown.problems).toHaveLength(1);
    expect(unknown.problems[0]?.line).toBe(1);
    expect(unknown.problems[0]?.message).toContain('unknown column "note"');

    const missing = parseImport('rates', `currency,source,buy,updatedAt\nEUR,parallel,1,${T0}\n`, 'csv');
    expect(missing.records).toEqual([]);
    expect(missing.problems).toHaveLength(1);
    expect(missing.problems[0]?.line).toBe(1);
    expect(missing.problems[0]?.message).toContain('missing column "sell"');

    const dup = parseImport('gold', 'purity,buy,sell,updatedAt,buy\n', 'csv');
    expect(dup.problems).toHaveLength(1);
    expect(dup.problems[0]?.message).toContain('duplicate column "buy"');

    expect(plain(parseImport('gold', '', 'csv').problems)).toEqual([
      { line: 1, message: 'missing header row (expected purity,buy,sell,updatedAt)' },
    ]);
  });

  it('reports rows with the wrong number of fields and malformed quoting', () => {
    const text = [
      header,
      `EUR,parallel,1,2`,
      `"EUR"x,parallel,1,2,${T0}`,
      `EUR,par"allel,1,2,${T0}`,
      `"USD","official","1,5",2,${T0}`,
      `GBP,parallel,1,2,${T0}`,
      `CHF,"parallel,1,2,${T0}`,
    ].join('\n');
    const r = parseImport('rates', text, 'csv');
    expect(plain(r.problems)).toEqual([
      { line: 2, message: 'expected 5 fields, found 4' },
      { line: 3, message: 'malformed CSV: unexpected character after a closing quote' },
      { line: 4, message: 'malformed CSV: quote inside an unquoted field' },
      {
        line: 5,
        message:
          'buy: "1,5" uses a decimal comma; in a comma-separated file write 1.5 (or save the file with ; as the separator)',
      },
      { line: 7, message: 'malformed CSV: unterminated quoted field' },
    ]);
    expect(r.records.map((x) => x.currency)).toEqual(['GBP']);
  });

  it('handles quoted empty fields, a quoted last field and no final newline', () => {
    const r = parseImport(
      'rates',
      `${header}\n"EUR","parallel","1","2","${T0}"\r\n"",parallel,1,2,"${T0}"`,
      'csv',
    );
    expect(r.records).toHaveLength(1);
    expect(plain(r.problems)).toEqual([{ line: 3, message: `currency: "" ${MSG_CODE}` }]);
  });

  it('reports duplicates with their lines', () => {
    const text = [
      header,
      `EUR,parallel,1,2,${T1}`,
      `EUR,parallel,1,2,${T0}`,
      `EUR,official,1,2,${T0}`,
      `EUR,parallel,1.000,2.0,${T0}`,
      `EUR,parallel,1,2.5,2026-01-10T11:00:00+02:00`,
    ].join('\n');
    const r = parseImport('rates', text, 'csv');
    expect(r.records).toHaveLength(3);
    expect(plain(r.problems)).toEqual([{ line: 6, message: 'duplicate of line 3 with different values' }]);
  });
});

describe('JSON array', () => {
  it('locates bad elements of a pretty-printed array by their first line', () => {
    const rows = [
      rate(),
      rate({ currency: 'usd' }),
      { note: 'a "[tricky]", {string}\\' },
      7,
      rate({ buy: '-1' }),
    ];
    const text = JSON.stringify(rows, null, 2);
    const lines = text.split('\n');
    const startOf = (n: number) => {
      // The n-th element (0-based) starts at the n-th line indented by exactly two spaces + a value.
      let seen = -1;
      for (let i = 0; i < lines.length; i++) {
        if (/^ {2}[^ \]}]/.test(lines[i] as string) && ++seen === n) return i + 1;
      }
      throw new Error('not found');
    };
    const r = parseImport('rates', text, 'json');
    expect(plain(r.problems)).toEqual([
      { line: startOf(1), message: `currency: "usd" ${MSG_CODE}` },
      { line: startOf(2), message: 'unknown field "note"' },
      { line: startOf(2), message: 'missing field "currency"' },
      { line: startOf(2), message: 'missing field "source"' },
      { line: startOf(2), message: 'missing field "buy"' },
      { line: startOf(2), message: 'missing field "sell"' },
      { line: startOf(2), message: 'missing field "updatedAt"' },
      { line: startOf(3), message: 'array element must be a JSON object' },
      { line: startOf(4), message: `buy: "-1" ${MSG_AMOUNT}` },
    ]);
    expect(startOf(1)).toBe(9);
    expect(r.records).toHaveLength(1);
  });

  it('handles hand-formatted arrays with nested values and elements sharing a line', () => {
    const text = `\uFEFF\r\n[\r\n  ${JSON.stringify(rate())}, ${JSON.stringify(rate({ currency: 'x' }))},\r\n\r\n  [1, {"a": [2]}],\r\n  ${JSON.stringify(rate({ source: 's' }))}\r\n]\r\n`;
    const r = parseImport('rates', text, 'json');
    expect(plain(r.problems)).toEqual([
      { line: 3, message: `currency: "x" ${MSG_CODE}` },
      { line: 5, message: 'array element must be a JSON object' },
      { line: 6, message: 'source: "s" must be one of parallel, official, transfer' },
    ]);
  });

  it('reports every element of a single-line array on line 1', () => {
    const r = parseImport('rates', JSON.stringify([rate({ buy: 0 }), rate({ sell: 0 })]), 'json');
    expect(plain(r.problems)).toEqual([
      { line: 1, message: `buy: 0 ${MSG_AMOUNT}` },
      { line: 1, message: `sell: 0 ${MSG_AMOUNT}` },
    ]);
  });

  it('reports invalid JSON and a non-array document', () => {
    const bad = parseImport('rates', '[\n  {"currency": "EUR"},\n  {"currency": }\n]', 'json');
    expect(bad.records).toEqual([]);
    expect(bad.problems).toHaveLength(1);
    expect(bad.problems[0]?.message).toMatch(/^invalid JSON: /);
    expect(bad.problems[0]?.line).toBe(3);
    expect(bad.problems[0]?.message).not.toContain('position');
    const lineOf = (text: string) => parseImport('rates', text, 'json').problems.map((p) => p.line);
    expect(lineOf('[\n  {"a": 1},\n  {"a": "x\\"}"},\n  {"a" 1}\n]')).toEqual([4]);
    expect(lineOf('[\n  {"a": 1},\n  {"a": 2}\n  {"a": 3}\n]')).toEqual([4]);
    expect(lineOf('[\n  {"a": 1},\n  {"a": 2},\n]')).toEqual([4]);
    expect(lineOf('[\n  {"a": 1}\n] x')).toEqual([3]);
    expect(lineOf('')).toEqual([1]);
    expect(plain(parseImport('rates', '\n{"currency": "EUR"}', 'json').problems)).toEqual([
      { line: 2, message: 'the document must be a JSON array of objects' },
    ]);
    expect(parseImport('rates', '[]', 'json')).toMatchObject({
      kind: 'rates',
      records: [],
      lines: [],
      problems: [],
    });
  });
});

describe('duplicates out of order', () => {
  it('finds duplicates when a series goes back in time', () => {
    const rows = [T1, T0, '2026-01-10T11:00:00Z', T0, T1].map((updatedAt, i) =>
      rate({ updatedAt, buy: i === 4 ? '9' : '241.5' }),
    );
    const r = parseImport('rates', ndjson(...rows), 'ndjson');
    expect(r.records.map((x) => x.updatedAt)).toEqual([T1_MS, T0_MS, Date.UTC(2026, 0, 10, 11)]);
    expect(plain(r.problems)).toEqual([{ line: 5, message: 'duplicate of line 1 with different values' }]);
  });
});

describe('duplicates at volume', () => {
  it('finds every duplicate in a large shuffled import', () => {
    const n = 6_000;
    const base = Date.UTC(2025, 0, 1);
    const order = Array.from({ length: n }, (_, i) => (i * 2_459) % n); // a permutation (gcd = 1)
    const rows = order.map((i) =>
      rate({ currency: i % 2 ? 'USD' : 'EUR', updatedAt: new Date(base + i * 1000).toISOString() }),
    );
    // Re-send every 10th row: identical when even, changed when odd.
    const extra = order
      .filter((_, k) => k % 10 === 0)
      .map((i, k) =>
        rate({
          currency: i % 2 ? 'USD' : 'EUR',
          updatedAt: new Date(base + i * 1000).toISOString(),
          sell: k % 2 ? '999' : '243',
        }),
      );
    const r = parseImport('rates', ndjson(...rows, ...extra), 'ndjson');
    expect(r.records).toHaveLength(n);
    expect(r.problems).toHaveLength(extra.length / 2);
    for (const p of r.problems) {
      const k = p.line - n - 1;
      expect(k % 2).toBe(1);
      expect(p.message).toBe(`duplicate of line ${k * 10 + 1} with different values`);
    }
  });
});

/*
 * NDJSON lines in the canonical form (fields in docs/operations.md's order, strings, no
 * spaces) are read by a regular expression instead of JSON.parse. A JSON array
 * holding the same objects, one per line, always takes the general way: the two
 * must agree on every record, line and problem, whatever the lines hold.
 */
describe('canonical NDJSON lines', () => {
  // Mostly valid values, so that runs of canonical lines (and duplicates) are common.
  const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: other, weight: 1 });
  const amount = mostly<string | number>(
    fc.oneof(
      fc.constantFrom('241.5', '1', '0.000001', '999999999.999999'),
      fc.nat({ max: 1_000_000 }).map((n) => ((n + 1) / 1000).toFixed(3)),
    ),
    fc.oneof(
      fc.constantFrom(
        '0',
        '0.000000',
        '1.1234567',
        '0001.5',
        '1e3',
        '-1',
        '.5',
        '5.',
        '1000000000',
        ' 5',
        '５',
      ),
      fc.double({ min: 0.000001, max: 1e6, noNaN: true }),
    ),
  );
  const updatedAt = mostly(
    fc.oneof(
      fc.constantFrom(T0, T1, '2026-01-10T09:00:00+01:00', '2026-01-10T09:00:00.1Z'),
      fc
        .integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2026, 0, 1) })
        .map((t) => new Date(t).toISOString()),
    ),
    fc.constantFrom(
      '2026-01-10T09:00:00.0001Z',
      '2026-13-01T00:00:00Z',
      '1989-12-31T23:59:59Z',
      '2099-01-01T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-01-10 09:00:00Z',
      '2026-01-10T09:00:00',
      'not a time at all, no',
      '2026-01-10T09:00:00\tZ',
    ),
  );
  const rateRecord = fc.record({
    currency: mostly(
      fc.constantFrom('EUR', 'USD'),
      fc.constantFrom('usd', 'E', 'ABCDEFGHIJK', 'EU R', 'GB\u0050'),
    ),
    source: mostly(fc.constantFrom('parallel', 'official', 'transfer'), fc.constantFrom('black', 'Parallel')),
    buy: amount,
    sell: amount,
    updatedAt,
  });
  const goldRecord = fc.record({
    purity: mostly(fc.constantFrom('18K', '21K', '24K'), fc.constantFrom('22K', '18k')),
    buy: amount,
    sell: amount,
    updatedAt,
  });
  /** A line of the record: canonical, or reordered, spaced, with an extra field or a missing one. */
  const line = (record: fc.Arbitrary<Record<string, unknown>>) =>
    fc
      .tuple(record, fc.constantFrom('canonical', 'reordered', 'spaced', 'extra', 'missing'))
      .map(([r, shape]) => {
        const keys = Object.keys(r);
        switch (shape) {
          case 'canonical':
            return JSON.stringify(r);
          case 'reordered':
            return JSON.stringify(Object.fromEntries([...keys].reverse().map((k) => [k, r[k]])));
          case 'spaced':
            return JSON.stringify(r, null, 1).replaceAll('\n', '');
          case 'extra':
            return JSON.stringify({ ...r, note: 'x' });
          default:
            return JSON.stringify(Object.fromEntries(keys.slice(1).map((k) => [k, r[k]])));
        }
      });

  it.each([
    ['rates', rateRecord],
    ['gold', goldRecord],
  ] as const)('%s: the same records, lines and problems as the general way', (kind, record) => {
    fc.assert(
      fc.property(
        fc.array(line(record as fc.Arbitrary<Record<string, unknown>>), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (lines, crlf) => {
          const eol = crlf ? '\r\n' : '\n';
          const asNdjson = parseImport(kind, lines.join(eol) + eol, 'ndjson');
          const asArray = parseImport(kind, `[${lines.join(`,${eol}`)}]`, 'json');
          expect(asNdjson).toEqual(asArray);
        },
      ),
      { seed: 20261123, numRuns: 500 },
    );
  });

  it('reads a canonical line exactly', () => {
    const line =
      '{"currency":"EUR","source":"official","buy":"151.2","sell":"151.000001","updatedAt":"2026-01-10T09:00:00.000Z"}';
    expect(parseImport('rates', `${line}\r\n${line}\n`, 'ndjson')).toMatchObject({
      kind: 'rates',
      records: [
        { currency: 'EUR', source: 'official', buy: 151_200_000, sell: 151_000_001, updatedAt: T0_MS },
      ],
      lines: [1],
      problems: [],
    });
  });
});

describe('scale', () => {
  it.each(['ndjson', 'csv'] as ImportFormat[])('parses 200k %s rate lines quickly', (format) => {
    const n = 200_000;
    const base = Date.UTC(2025, 0, 1);
    const parts: string[] = format === 'csv' ? ['currency,source,buy,sell,updatedAt'] : [];
    const currencies = ['USD', 'EUR', 'GBP', 'CAD'];
    for (let i = 0; i < n; i++) {
      const c = currencies[i % 4] as string;
      const t = new Date(base + Math.floor(i / 4) * 60_000).toISOString();
      const buy = (100 + (i % 1000) / 100).toFixed(2);
      parts.push(
        format === 'csv'
          ? `${c},parallel,${buy},250,${t}`
          : JSON.stringify({ currency: c, source: 'parallel', buy, sell: '250', updatedAt: t }),
      );
    }
    const text = `${parts.join('\n')}\n`;
    // How fast is for `npm run bench` (import throughput); this checks what comes out.
    const r = parseImport('rates', text, format);
    expect(plain(r.problems)).toEqual([]);
    expect(r.records).toHaveLength(n);
    expect(r.records[n - 1]).toEqual({
      currency: 'CAD',
      source: 'parallel',
      buy: 109_990_000,
      sell: 250_000_000,
      updatedAt: base + (n / 4 - 1) * 60_000,
    });
  });
});

describe('NDJSON in pieces (a file read a piece at a time)', () => {
  // Valid, invalid, duplicate, conflicting, blank and CRLF lines, a BOM first.
  const lines = [
    JSON.stringify(rate()),
    JSON.stringify(rate({ updatedAt: T1 })),
    '',
    JSON.stringify(rate({ sell: 'abc' })),
    `${JSON.stringify(rate({ currency: 'USD' }))}\r`,
    JSON.stringify(rate()),
    JSON.stringify(rate({ buy: '1' })),
    '{not json',
    '   ',
    JSON.stringify(rate({ source: 'official', updatedAt: T1 })),
  ];
  const text = `\uFEFF${lines.join('\n')}`;

  it('gives the records, lines and problems of the whole text, wherever the pieces end', () => {
    const whole = parseImport('rates', text, 'ndjson');
    expect(whole.problems.map((p) => p.line)).toEqual([4, 7, 8]);
    const ends = [...text.matchAll(/\n/g)].map((m) => m.index + 1);
    fc.assert(
      fc.property(fc.subarray(ends), (cuts) => {
        const pieces: string[] = [];
        let at = 0;
        for (const cut of cuts) {
          pieces.push(text.slice(at, cut));
          at = cut;
        }
        pieces.push(text.slice(at));
        expect(parseNdjsonPieces('rates', pieces)).toEqual(whole);
      }),
    );
  });

  it('takes a byte-order mark only at the start of the input', () => {
    const r = parseNdjsonPieces('rates', [
      '',
      `${JSON.stringify(rate())}\n`,
      `\uFEFF${JSON.stringify(rate({ updatedAt: T1 }))}`,
    ]);
    expect(r.records).toHaveLength(1);
    expect(plain(r.problems)).toEqual([{ line: 2, message: expect.any(String) }]);
  });
});
