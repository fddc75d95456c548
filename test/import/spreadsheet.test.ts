/**
 * CSV files as spreadsheets write them (docs/decisions.md 52): `;` and tab
 * delimiters (found from the header row or given), decimal commas where the
 * file's delimiter allows them, thousands separators and ambiguous marks
 * refused with the fix, local times read in the zone given (DST gaps and
 * repeated hours refused), and every value echoed in its problem.
 */
import { describe, expect, it } from 'vitest';
import { parseDelimiter } from '../../src/import/detect.js';
import { parseImport, parseNdjsonPieces } from '../../src/import/parse.js';
import { timeZoneProblem } from '../../src/import/timestamps.js';
import { plain } from '../support/import-problems.js';

const MSG_AMOUNT = 'must be a positive decimal number with at most 6 decimal places';
const MSG_TS = 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z';
const T = '2026-11-25T14:05:00Z';
const T_MS = Date.UTC(2026, 10, 25, 14, 5);
const HEADER = ['currency', 'source', 'buy', 'sell', 'updatedAt'];

/** A rates CSV with `delimiter` between fields; each row is [currency, source, buy, sell, updatedAt]. */
const csv = (delimiter: string, ...rows: string[][]) =>
  `${[HEADER, ...rows].map((r) => r.join(delimiter)).join('\n')}\n`;
const row = (buy: string, sell = '2', updatedAt = T, source = 'parallel') => [
  'EUR',
  source,
  buy,
  sell,
  updatedAt,
];
const messages = (r: { problems: { message: string }[] }) => r.problems.map((p) => p.message);

describe('delimiters', () => {
  it('reads a ;-separated file with decimal commas, found from its header row', () => {
    const r = parseImport(
      'rates',
      csv(';', row('262,50', '264,75'), row('0,000001', '1,5', T, 'official')),
      'csv',
    );
    expect(plain(r.problems)).toEqual([]);
    expect(r.records).toEqual([
      { currency: 'EUR', source: 'parallel', buy: 262_500_000, sell: 264_750_000, updatedAt: T_MS },
      { currency: 'EUR', source: 'official', buy: 1, sell: 1_500_000, updatedAt: T_MS },
    ]);
    expect(r.lines).toEqual([2, 3]);
  });

  it('reads a tab-separated file, and quoted header names, a BOM, CRLF and blank lines before the header', () => {
    const tab = parseImport('rates', csv('\t', row('262,50', '264.5')), 'csv');
    expect(plain(tab.problems)).toEqual([]);
    expect(tab.records.map((x) => [x.buy, x.sell])).toEqual([[262_500_000, 264_500_000]]);
    const text = `\uFEFF\r\n"currency";"source";"buy";"sell";"updatedAt"\r\nEUR;parallel;"262,50";264;${T}\r\n`;
    const r = parseImport('rates', text, 'csv');
    expect(plain(r.problems)).toEqual([]);
    expect(r.records.map((x) => x.buy)).toEqual([262_500_000]);
    expect(r.lines).toEqual([3]);
  });

  it('takes the delimiter given over the header row', () => {
    const text = csv(';', row('262,50'));
    expect(parseImport('rates', text, 'csv', { delimiter: ';' }).records).toHaveLength(1);
    // Told `,`: the whole header row is one unknown column.
    const r = parseImport('rates', text, 'csv', { delimiter: ',' });
    expect(r.records).toEqual([]);
    expect(messages(r)[0]).toMatch(/^header: unknown column "currency;source;buy;sell;updatedAt"; /);
    const tab = parseImport('rates', csv('\t', row('1')), 'csv', { delimiter: '\t' });
    expect(plain(tab.problems)).toEqual([]);
  });

  it('names the columns of a ;-separated header with a wrong column as split at ;', () => {
    const r = parseImport('gold', 'purity;buy;price;updatedAt\n24K;1;2;2026-11-25T14:05:00Z\n', 'csv');
    expect(plain(r.problems)).toEqual([
      {
        line: 1,
        message: 'header: unknown column "price"; missing column "sell" (expected purity;buy;sell;updatedAt)',
      },
    ]);
  });

  it('a comma file with a ; in a value is still comma-separated', () => {
    const r = parseImport(
      'assets',
      'code,symbol,type,name_en,name_fr,name_ar\nXAU,oz,metal,Gold; troy ounce,Or,ذهب\n',
      'csv',
    );
    expect(plain(r.problems)).toEqual([]);
    expect(r.records[0]?.names.en).toBe('Gold; troy ounce');
  });

  it('parseDelimiter takes , ; tab and \\t, and nothing else', () => {
    expect([',', ';', 'tab', '\\t', '\t'].map(parseDelimiter)).toEqual([',', ';', '\t', '\t', '\t']);
    for (const bad of ['|', ' ', '', 'semicolon', ',,', 'TAB']) expect(parseDelimiter(bad), bad).toBeNull();
  });
});

describe('decimal marks and thousands separators', () => {
  it('refuses a decimal comma in a comma-separated file, naming the value and the fix', () => {
    const r = parseImport('rates', csv(',', row('"262,50"', '"0,5"')), 'csv');
    expect(r.records).toEqual([]);
    expect(messages(r)).toEqual([
      'buy: "262,50" uses a decimal comma; in a comma-separated file write 262.50 (or save the file with ; as the separator)',
      'sell: "0,5" uses a decimal comma; in a comma-separated file write 0.5 (or save the file with ; as the separator)',
    ]);
  });

  it('refuses a decimal comma in NDJSON and JSON, naming the fix', () => {
    const line = JSON.stringify({
      currency: 'EUR',
      source: 'parallel',
      buy: '262,50',
      sell: '1',
      updatedAt: T,
    });
    for (const r of [parseImport('rates', line, 'ndjson'), parseImport('rates', `[${line}]`, 'json')]) {
      expect(messages(r)).toEqual(['buy: "262,50" uses a decimal comma: write 262.50']);
    }
  });

  it("reads thousands separators where the file's locale makes them sure (decisions 94)", () => {
    const amounts = (r: { records: { buy: number; sell: number }[] }) =>
      r.records.map((x) => [x.buy, x.sell]);
    // ; file: the comma is the decimal mark; spaces (no-break ones too) and points group thousands.
    const semi = parseImport(
      'rates',
      csv(
        ';',
        row('1 262,50', '1.262,50'),
        row('1\u00a0262', '1\u202f262,5', T, 'official'),
        row('1 262 000', '1.262.500', T, 'transfer'),
      ),
      'csv',
    );
    expect(plain(semi.problems)).toEqual([]);
    expect(amounts(semi)).toEqual([
      [1_262_500_000, 1_262_500_000],
      [1_262_000_000, 1_262_500_000],
      [1_262_000_000_000, 1_262_500_000_000],
    ]);
    // , file: the point is the decimal mark; spaces and (quoted) commas group thousands.
    const comma = parseImport(
      'rates',
      csv(',', row('"1,262.50"', '"1,262,500"'), row('1 262.5', '1\u00a0262.5', T, 'official')),
      'csv',
    );
    expect(plain(comma.problems)).toEqual([]);
    expect(amounts(comma)).toEqual([
      [1_262_500_000, 1_262_500_000_000],
      [1_262_500_000, 1_262_500_000],
    ]);
    // Tab file: either mark is the decimal one, the other groups.
    const tab = parseImport('rates', csv('\t', row('1.262,5', '1,262.5')), 'csv');
    expect(amounts(tab)).toEqual([[1_262_500_000, 1_262_500_000]]);
  });

  it("refuses thousands separators the file's locale does not write, and in JSON, saying to write the number without them", () => {
    const fix = (n: string) => `has thousands separators: write the number without them, e.g. ${n}`;
    // A comma grouping before a point in a ; file, a point grouping in a , file: another locale's.
    const semi = parseImport('rates', csv(';', row('1,262.50', '2')), 'csv');
    expect(messages(semi)).toEqual([`buy: "1,262.50" ${fix('1262,50')}`]);
    const comma = parseImport('rates', csv(',', row('"1.262.500"', '"1 262,5"')), 'csv');
    expect(messages(comma)).toEqual([
      `buy: "1.262.500" ${fix('1262500')}`,
      expect.stringMatching(/^sell: "1 262,5" /),
    ]);
    // JSON and NDJSON have no locale: a program writes them, a separator there is a mistake.
    const json = parseImport(
      'rates',
      JSON.stringify([
        { currency: 'EUR', source: 'parallel', buy: '1 262.5', sell: '1,262.5', updatedAt: T },
      ]),
      'json',
    );
    expect(messages(json)).toEqual([`buy: "1 262.5" ${fix('1262.5')}`, `sell: "1,262.5" ${fix('1262.5')}`]);
  });

  it('refuses a mark that may be a thousands separator rather than guess', () => {
    const ambiguous = (mark: string, a: string, b: string) =>
      `is ambiguous: "${mark}" may be a thousands separator or a decimal mark; write ${a} or ${b}`;
    // ; file: the comma is the decimal mark, a dot before three digits may be German grouping.
    const semi = parseImport(
      'rates',
      csv(';', row('1,262', '1.262'), row('18.235', '0.262', T, 'official')),
      'csv',
    );
    expect(plain(semi.problems)).toEqual([
      { line: 2, message: `sell: "1.262" ${ambiguous('.', '1262', '1,262')}` },
      { line: 3, message: `buy: "18.235" ${ambiguous('.', '18235', '18,235')}` },
    ]);
    // ; file: 1,262 is 1.262; 0.262 cannot be grouping.
    expect(parseImport('rates', csv(';', row('1,262', '0.262')), 'csv').records[0]).toMatchObject({
      buy: 1_262_000,
      sell: 262_000,
    });
    // , file and JSON: a comma before three digits.
    expect(messages(parseImport('rates', csv(',', row('"1,262"')), 'csv'))).toEqual([
      `buy: "1,262" ${ambiguous(',', '1262', '1.262')}`,
    ]);
    // Tab file: either mark before three digits; a fourth decimal says it is decimal.
    const tab = parseImport(
      'rates',
      csv('\t', row('1,262', '1.262'), row('1,2620', '12,5', T, 'official')),
      'csv',
    );
    expect(messages(tab)).toEqual([
      `buy: "1,262" ${ambiguous(',', '1262', '1.2620')}`,
      `sell: "1.262" ${ambiguous('.', '1262', '1.2620')}`,
    ]);
    expect(tab.records.map((x) => [x.buy, x.sell])).toEqual([[1_262_000, 12_500_000]]);
  });

  it('keeps the other amount rules for decimal commas', () => {
    const r = parseImport(
      'rates',
      csv(';', row('0,0000001', '1000000000,5'), row('-1,5', ',5', T, 'official')),
      'csv',
    );
    expect(messages(r)).toEqual([
      `buy: "0,0000001" ${MSG_AMOUNT}`,
      'sell: "1000000000,5" must not exceed 1000000000',
      `buy: "-1,5" ${MSG_AMOUNT}`,
      `sell: ",5" ${MSG_AMOUNT}`,
    ]);
  });
});

describe('local times and --timezone', () => {
  const at = (updatedAt: string, timezone?: string) =>
    parseImport('rates', csv(';', row('1', '2', updatedAt)), 'csv', { timezone });

  it('refuses a time without an offset when no zone is given, saying what to write', () => {
    expect(messages(at('2026-11-25 14:05'))).toEqual([
      'updatedAt: "2026-11-25 14:05" has no time zone: write it with its UTC offset, e.g. 2026-11-25T14:05:00+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers',
    ]);
    expect(messages(at('2026-11-25T14:05:30.25'))[0]).toContain('e.g. 2026-11-25T14:05:30.25+01:00,');
  });

  it('reads local times in Africa/Algiers (UTC+1 all year), with T or a space, seconds and milliseconds optional', () => {
    const zone = 'Africa/Algiers';
    expect(at('2026-11-25 14:05', zone).records[0]?.updatedAt).toBe(Date.UTC(2026, 10, 25, 13, 5));
    expect(at('2026-11-25T14:05', zone).records[0]?.updatedAt).toBe(Date.UTC(2026, 10, 25, 13, 5));
    expect(at('2026-11-25 14:05:30', zone).records[0]?.updatedAt).toBe(Date.UTC(2026, 10, 25, 13, 5, 30));
    expect(at('2026-07-01T00:30:00.5', zone).records[0]?.updatedAt).toBe(
      Date.UTC(2026, 5, 30, 23, 30, 0, 500),
    );
    // An offset or Z is taken as written: the zone is not applied.
    expect(at('2026-11-25T14:05:00Z', zone).records[0]?.updatedAt).toBe(T_MS);
    expect(at('2026-11-25T14:05:00+03:00', zone).records[0]?.updatedAt).toBe(Date.UTC(2026, 10, 25, 11, 5));
  });

  it('reads Europe/Paris across its DST changes; refuses the skipped hour and the repeated one', () => {
    const paris = (t: string) => at(t, 'Europe/Paris');
    // Winter (UTC+1), summer (UTC+2), either side of both changes of 2026.
    expect(paris('2026-03-29 01:30').records[0]?.updatedAt).toBe(Date.UTC(2026, 2, 29, 0, 30));
    expect(paris('2026-03-29 03:30').records[0]?.updatedAt).toBe(Date.UTC(2026, 2, 29, 1, 30));
    expect(paris('2026-07-14 12:00').records[0]?.updatedAt).toBe(Date.UTC(2026, 6, 14, 10, 0));
    expect(paris('2026-10-25 01:30').records[0]?.updatedAt).toBe(Date.UTC(2026, 9, 24, 23, 30));
    expect(paris('2026-10-25 03:30').records[0]?.updatedAt).toBe(Date.UTC(2026, 9, 25, 2, 30));
    expect(messages(paris('2026-03-29 02:30'))).toEqual([
      'updatedAt: "2026-03-29 02:30" does not exist in Europe/Paris: the clocks were put forward over it; write the instant with its UTC offset',
    ]);
    expect(messages(paris('2026-10-25 02:30'))).toEqual([
      'updatedAt: "2026-10-25 02:30" occurs twice in Europe/Paris (the clocks were put back): write 2026-10-25T02:30:00+02:00 (the first) or 2026-10-25T02:30:00+01:00 (the second)',
    ]);
    // The repeated hour written with its offset is read.
    expect(paris('2026-10-25T02:30:00+01:00').records[0]?.updatedAt).toBe(Date.UTC(2026, 9, 25, 1, 30));
  });

  it('applies the zone in NDJSON and JSON, and in NDJSON pieces', () => {
    const line = (updatedAt: string) =>
      JSON.stringify({ currency: 'EUR', source: 'parallel', buy: '1', sell: '2', updatedAt });
    const text = `${line('2026-11-25 14:05:00')}\n${line('2026-11-25T15:05:00.000')}\n`;
    const want = [Date.UTC(2026, 10, 25, 13, 5), Date.UTC(2026, 10, 25, 14, 5)];
    const options = { timezone: 'Africa/Algiers' };
    expect(parseImport('rates', text, 'ndjson', options).records.map((r) => r.updatedAt)).toEqual(want);
    expect(
      parseNdjsonPieces(
        'rates',
        [text.slice(0, text.indexOf('\n') + 1), text.slice(text.indexOf('\n') + 1)],
        options,
      ).records.map((r) => r.updatedAt),
    ).toEqual(want);
    expect(
      parseImport('rates', `[${line('2026-11-25 14:05:00')}]`, 'json', options).records.map(
        (r) => r.updatedAt,
      ),
    ).toEqual(want.slice(0, 1));
    expect(messages(parseImport('rates', text, 'ndjson'))).toHaveLength(2);
  });

  it('keeps the other timestamp rules for local times', () => {
    const zone = 'Africa/Algiers';
    expect(messages(at('2026-02-30 10:00', zone))).toEqual([
      'updatedAt: "2026-02-30 10:00" has an invalid calendar date (2026-02-30)',
    ]);
    expect(messages(at('2026-01-10 24:00', zone))).toEqual([
      'updatedAt: "2026-01-10 24:00" has an invalid time of day (24:00)',
    ]);
    expect(messages(at('2026-01-10 09:00:00.1234', zone))).toEqual([
      'updatedAt: "2026-01-10 09:00:00.1234" must not be more precise than milliseconds (at most 3 fractional digits)',
    ]);
    expect(messages(at('1989-12-31 23:00', zone))).toEqual([
      'updatedAt: "1989-12-31 23:00" must not be before 1990',
    ]);
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16).replace('T', ' ');
    expect(messages(at(later, zone))).toEqual([
      `updatedAt: "${later}" must not be more than 1 day in the future`,
    ]);
  });

  it('refuses a zone that is not one', () => {
    expect(timeZoneProblem('Africa/Algiers')).toBeNull();
    expect(timeZoneProblem('Europe/Paris')).toBeNull();
    expect(timeZoneProblem('Mars/Olympus')).toBe(
      '"Mars/Olympus" is not an IANA time zone name; write one such as Africa/Algiers or Europe/Paris',
    );
    expect(() => parseImport('rates', csv(';', row('1')), 'csv', { timezone: 'Mars/Olympus' })).toThrow(
      /--timezone: "Mars\/Olympus" is not an IANA time zone name/,
    );
  });
});

describe('the shapes of a spreadsheet date, each with its message', () => {
  const ts = (updatedAt: string, timezone?: string) =>
    messages(parseImport('rates', csv(';', row('1', '2', updatedAt)), 'csv', { timezone }));

  it('a date in day/month order', () => {
    const dayMonth = (v: string, fix: string) =>
      `updatedAt: "${v}" puts the day and the month before the year, which is ambiguous: write ${fix} (year-month-day, then the time with its offset), or pass the order of the file's dates, --date-order dmy (day first) or mdy`;
    expect(ts('25/11/2026')).toEqual([dayMonth('25/11/2026', '2026-11-25T…')]);
    expect(ts('11/25/2026')).toEqual([dayMonth('11/25/2026', '2026-11-25T…')]);
    expect(ts('25.11.2026 14:05')).toEqual([dayMonth('25.11.2026 14:05', '2026-11-25T…')]);
    expect(ts('05/06/2026', 'Africa/Algiers')).toEqual([
      dayMonth('05/06/2026', '2026-06-05T… or 2026-05-06T…'),
    ]);
  });

  it('a day-first or month-first date read in the order given (--date-order, decisions 94)', () => {
    const read = (updatedAt: string, dateOrder: 'dmy' | 'mdy', timezone = 'Africa/Algiers') =>
      parseImport('rates', csv(';', row('1', '2', updatedAt)), 'csv', { timezone, dateOrder });
    const at = (r: ReturnType<typeof read>) => r.records.map((x) => x.updatedAt);
    // Africa/Algiers is UTC+1 all year.
    expect(at(read('28/11/2025 09:30', 'dmy'))).toEqual([Date.UTC(2025, 10, 28, 8, 30)]);
    expect(at(read('5/6/2025 9:30', 'dmy'))).toEqual([Date.UTC(2025, 5, 5, 8, 30)]);
    expect(at(read('05.06.2025 09:30:15', 'dmy'))).toEqual([Date.UTC(2025, 5, 5, 8, 30, 15)]);
    expect(at(read('5/6/2025 9:30', 'mdy'))).toEqual([Date.UTC(2025, 4, 6, 8, 30)]);
    expect(at(read('11/28/2025 09:30', 'mdy'))).toEqual([Date.UTC(2025, 10, 28, 8, 30)]);
    // ISO dates are read as ever beside the order.
    expect(at(read('2025-11-28T09:30:00Z', 'dmy'))).toEqual([Date.UTC(2025, 10, 28, 9, 30)]);
    expect(messages(read('28/11/2025 09:30', 'mdy'))).toEqual([
      'updatedAt: "28/11/2025 09:30" is not a date in month/day/year order (--date-order mdy): check the date, or the order',
    ]);
    expect(messages(read('28/11/2025', 'dmy'))).toEqual([
      'updatedAt: "28/11/2025" is a date without a time: write the time of the quote after it, e.g. 28/11/2025 09:30',
    ]);
    // A local time still needs its zone.
    const noZone = parseImport('rates', csv(';', row('1', '2', '28/11/2025 09:30')), 'csv', {
      dateOrder: 'dmy',
    });
    expect(messages(noZone)).toEqual([
      expect.stringMatching(
        /^updatedAt: "28\/11\/2025 09:30" has no time zone: .*e\.g\. 2025-11-28T09:30:00\+01:00.*--timezone/,
      ),
    ]);
  });

  it('a date without a time', () => {
    expect(ts('2026-11-25', 'Africa/Algiers')).toEqual([
      'updatedAt: "2026-11-25" is a date without a time: write 2026-11-25T00:00:00Z or give the time of the quote',
    ]);
  });

  it('anything else: the general message, the value echoed and cut at 40 characters', () => {
    expect(ts('yesterday')).toEqual([`updatedAt: "yesterday" ${MSG_TS}`]);
    expect(ts('2026-11-25 14:05:00Z')).toEqual([`updatedAt: "2026-11-25 14:05:00Z" ${MSG_TS}`]);
    expect(ts('45/45/2026')).toEqual([`updatedAt: "45/45/2026" ${MSG_TS}`]);
    const long = `2026-11-25T14:05:00Z${'x'.repeat(50)}`;
    expect(ts(long)).toEqual([`updatedAt: "${long.slice(0, 40)}"… ${MSG_TS}`]);
  });
});

describe('every problem with a value echoes it', () => {
  it('amounts, codes, enums and names, at most 40 characters', () => {
    const r = parseImport('rates', csv(';', ['eur', 'black', 'abc', '9'.repeat(60), T]), 'csv');
    expect(messages(r)).toEqual([
      'currency: "eur" must be an uppercase asset code (2-10 of A-Z, 0-9)',
      'source: "black" must be one of parallel, official, transfer',
      `buy: "abc" ${MSG_AMOUNT}`,
      `sell: "${'9'.repeat(40)}"… must not exceed 1000000000`,
    ]);
    const gold = parseImport('gold', '{"purity":"22K","buy":true,"sell":[1,2],"updatedAt":12}\n', 'ndjson');
    expect(messages(gold)).toEqual([
      'purity: "22K" must be one of 18K, 21K, 24K',
      `buy: true ${MSG_AMOUNT}`,
      `sell: [1,2] ${MSG_AMOUNT}`,
      `updatedAt: 12 ${MSG_TS}`,
    ]);
    // A control or bidirectional character is refused with what to remove, the value never quoted
    // (decisions 89); in a value quoted for another reason, the bidirectional ones are escaped.
    const esc = parseImport(
      'rates',
      `${JSON.stringify({ currency: 'E\u001b[31m', source: 'parallel', buy: '1', sell: '2', updatedAt: T })}\n`,
      'ndjson',
    );
    expect(messages(esc)).toEqual([
      'currency: must not contain control characters (U+0000 to U+001F, U+007F): remove them',
    ]);
    const object = parseImport(
      'rates',
      `${JSON.stringify({ currency: 'EUR', source: 'parallel', buy: { a: '\u202e1' }, sell: '2', updatedAt: T })}\n`,
      'ndjson',
    );
    expect(messages(object)).toEqual([`buy: {"a":"\\u202e1"} ${MSG_AMOUNT}`]);
  });
});
