/**
 * `mds import` of CSV files as spreadsheets write them (docs/decisions.md 52),
 * through the built CLI on every backend: a French-locale file (`;`, decimal
 * commas) imports and serves the right values, a decimal comma in a
 * comma-separated file is refused with the fix, `--delimiter`, local times
 * refused without `--timezone` and read in the zone given (Africa/Algiers,
 * Europe/Paris across a DST change), and the messages for a spreadsheet's
 * date shapes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateObservation, Source } from '../../src/domain/types.js';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';
import { asListed } from '../support/import-problems.js';

const ASSETS = [
  '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}',
  '{"code":"USD","symbol":"$","names":{"en":"US dollar","fr":"Dollar américain","ar":"دولار أمريكي"},"type":"currency"}',
].join('\n');

/** What a French-locale spreadsheet saves as CSV: `;` between fields, decimal commas, CRLF. */
const FRENCH = [
  'currency;source;buy;sell;updatedAt',
  'EUR;parallel;262,50;264,75;2026-01-05T09:00:00Z',
  'USD;parallel;241,5;243;2026-01-05T09:00:00+01:00',
  'EUR;official;150,123456;151;2026-01-05T10:00:00.000Z',
].join('\r\n');

function ok(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.json();
}

function refused(r: CliResult, status: number): string {
  expect(r.stdout).toBe('');
  expect(r.status).toBe(status);
  return r.stderr;
}

function spreadsheetFlow(backend: Backend): void {
  describe(`mds import of spreadsheet CSV on ${backend.name}`, () => {
    let db: Database;
    let dir: string;
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const run = (args: string[], input?: string) => mds(args, { db: db.url, input });
    /** The stored observations of a series in [from, to]. */
    const stored = async (currency: string, source: Source, from: number, to: number) => {
      const store = db.open();
      try {
        const rows = await store.market.rateHistory({ currency, source, from, to, limit: 100 });
        return rows.map((r: RateObservation) => [r.updatedAt, r.buy, r.sell]).sort((a, b) => a[0]! - b[0]!);
      } finally {
        await store.close();
      }
    };

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
      dir = mkdtempSync(join(tmpdir(), 'mds-cli-spreadsheet-'));
      ok(await run(['import', 'assets', '-', '--json'], ASSETS));
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('imports a ;-separated file with decimal commas and stores the values written', async () => {
      expect(ok(await run(['import', 'rates', file('french.csv', FRENCH), '--json']))).toMatchObject({
        kind: 'rates',
        received: 3,
        inserted: 3,
      });
      const day = Date.UTC(2026, 0, 5);
      expect(await stored('EUR', 'parallel', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 0, 5, 9), 262_500_000, 264_750_000],
      ]);
      expect(await stored('USD', 'parallel', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 0, 5, 8), 241_500_000, 243_000_000],
      ]);
      expect(await stored('EUR', 'official', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 0, 5, 10), 150_123_456, 151_000_000],
      ]);
    });

    it('refuses the same decimal comma in a comma-separated file, naming the value and the fix; writes nothing', async () => {
      const text = 'currency,source,buy,sell,updatedAt\nEUR,parallel,"262,50",265,2026-01-06T09:00:00Z\n';
      const r = await run(['import', 'rates', file('comma.csv', text)]);
      expect(refused(r, 1)).toBe(
        'mds: import refused: 1 problem(s), nothing was written\n' +
          '  line 2: buy: "262,50" uses a decimal comma; in a comma-separated file write 262.50 (or save the file with ; as the separator)\n',
      );
      const day = Date.UTC(2026, 0, 6);
      expect(await stored('EUR', 'parallel', day, day + 86_400_000)).toEqual([]);
    });

    it('--delimiter sets the separator; anything but , ; tab is refused at start', async () => {
      const semi = 'currency;source;buy;sell;updatedAt\nEUR;official;151,25;152;2026-01-07T10:00:00Z\n';
      const tab = 'currency\tsource\tbuy\tsell\tupdatedAt\nUSD\tofficial\t134,5\t135\t2026-01-07T10:00:00Z\n';
      const [given, tabbed, wrong, bad] = await Promise.all([
        run(['import', 'rates', '-', '--format', 'csv', '--delimiter', ';', '--json'], semi),
        run(['import', 'rates', '-', '--delimiter', 'tab', '--json'], tab),
        run(['import', 'rates', '-', '--delimiter', ',', '--json'], semi),
        run(['import', 'rates', '-', '--delimiter', '|'], semi),
      ]);
      expect(ok(given)).toMatchObject({ received: 1, inserted: 1 });
      expect(ok(tabbed)).toMatchObject({ received: 1, inserted: 1 });
      refused(wrong, 1);
      expect(asListed(wrong.errorJson()).error.problems[0].message).toMatch(
        /^header: unknown column "currency;source;buy;sell;updatedAt"/,
      );
      expect(refused(bad, 2)).toBe(
        `mds: --delimiter: "|" is not a delimiter; write , or ; or tab, such as --delimiter ';'\n`,
      );
      const day = Date.UTC(2026, 0, 7);
      expect(await stored('EUR', 'official', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 0, 7, 10), 151_250_000, 152_000_000],
      ]);
      expect(await stored('USD', 'official', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 0, 7, 10), 134_500_000, 135_000_000],
      ]);
    });

    it('refuses local times without --timezone; reads them in Africa/Algiers with it', async () => {
      const text = [
        'currency;source;buy;sell;updatedAt',
        'EUR;transfer;270;272;2026-11-20 14:05',
        'EUR;transfer;271;273;2026-11-20T15:05:30',
      ].join('\n');
      const path = file('local.csv', text);
      const [without, invalid] = await Promise.all([
        run(['import', 'rates', path]),
        run(['import', 'rates', path, '--timezone', 'Africa/Alger']),
      ]);
      expect(refused(without, 1)).toBe(
        [
          'mds: import refused: 2 problem(s), nothing was written',
          // One problem on consecutive lines is one group (decisions 93).
          '  lines 2–3 (2 problems): updatedAt: "2026-11-20 14:05" has no time zone: write it with its UTC offset, e.g. 2026-11-20T14:05:00+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers',
          '',
        ].join('\n'),
      );
      expect(refused(invalid, 2)).toBe(
        'mds: --timezone: "Africa/Alger" is not an IANA time zone name; write one such as Africa/Algiers or Europe/Paris\n',
      );
      expect(
        ok(await run(['import', 'rates', path, '--timezone', 'Africa/Algiers', '--json'])),
      ).toMatchObject({
        received: 2,
        inserted: 2,
      });
      const day = Date.UTC(2026, 10, 20);
      expect(await stored('EUR', 'transfer', day, day + 86_400_000)).toEqual([
        [Date.UTC(2026, 10, 20, 13, 5), 270_000_000, 272_000_000],
        [Date.UTC(2026, 10, 20, 14, 5, 30), 271_000_000, 273_000_000],
      ]);
    });

    it('reads Europe/Paris local times across the October change; refuses the hour that occurs twice', async () => {
      const rows = (...times: string[]) =>
        [
          'currency;source;buy;sell;updatedAt',
          ...times.map((t, i) => `USD;transfer;${240 + i};${245 + i};${t}`),
        ].join('\n');
      const twice = await run(
        ['import', 'rates', '-', '--timezone', 'Europe/Paris'],
        rows('2026-10-25 01:30', '2026-10-25 02:30', '2026-10-25 03:30'),
      );
      expect(refused(twice, 1)).toBe(
        [
          'mds: import refused: 1 problem(s), nothing was written',
          '  line 3: updatedAt: "2026-10-25 02:30" occurs twice in Europe/Paris (the clocks were put back): write 2026-10-25T02:30:00+02:00 (the first) or 2026-10-25T02:30:00+01:00 (the second)',
          '',
        ].join('\n'),
      );
      const gap = await run(['import', 'rates', '-', '--timezone', 'Europe/Paris'], rows('2026-03-29 02:30'));
      expect(refused(gap, 1)).toContain(
        'line 2: updatedAt: "2026-03-29 02:30" does not exist in Europe/Paris: the clocks were put forward over it',
      );
      const good = rows('2026-10-24 23:30', '2026-10-25 01:30', '2026-10-25 03:30', '2026-10-25 12:00');
      expect(
        ok(await run(['import', 'rates', '-', '--timezone', 'Europe/Paris', '--json'], good)),
      ).toMatchObject({
        received: 4,
        inserted: 4,
      });
      // Summer time (UTC+2) until 03:00 on 25 October, then UTC+1.
      expect(await stored('USD', 'transfer', Date.UTC(2026, 9, 24), Date.UTC(2026, 9, 26))).toEqual([
        [Date.UTC(2026, 9, 24, 21, 30), 240_000_000, 245_000_000],
        [Date.UTC(2026, 9, 24, 23, 30), 241_000_000, 246_000_000],
        [Date.UTC(2026, 9, 25, 2, 30), 242_000_000, 247_000_000],
        [Date.UTC(2026, 9, 25, 11, 0), 243_000_000, 248_000_000],
      ]);
    });

    it('names the shape of a spreadsheet date that cannot be read', async () => {
      const text = [
        'currency;source;buy;sell;updatedAt',
        'EUR;parallel;262;264;25/11/2026',
        'EUR;parallel;262;264;2026-11-25',
        'EUR;parallel;262;264;25 nov. 2026',
        'EUR;parallel;"1 262,50";1263;2026-11-25T09:00:00Z', // a thousands separator read (decisions 94)
      ].join('\n');
      const r = await run(
        ['import', 'rates', '-', '--timezone', 'Africa/Algiers', '--max-change', '10000', '--json'],
        text,
      );
      refused(r, 1);
      expect(asListed(r.errorJson()).error.problems).toEqual([
        {
          line: 2,
          message:
            'updatedAt: "25/11/2026" puts the day and the month before the year, which is ambiguous: write 2026-11-25T… (year-month-day, then the time with its offset), or pass the order of the file\'s dates, --date-order dmy (day first) or mdy',
        },
        {
          line: 3,
          message:
            'updatedAt: "2026-11-25" is a date without a time: write 2026-11-25T00:00:00Z or give the time of the quote',
        },
        {
          line: 4,
          message:
            'updatedAt: "25 nov. 2026" must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z',
        },
      ]);
    });
  });
}

for (const backend of backends()) spreadsheetFlow(backend);
