/**
 * `mds import` as an operator meets it with a spreadsheet's export, on every
 * backend (docs/decisions.md 89, 93, 94): every problem of a file in one pass,
 * grouped (the missing zone no longer hides the unknown currency and the
 * inverted quote); the export as it comes (empty rows and trailing columns,
 * day-first dates with --date-order, thousands separators) imports, and a
 * repeated row is listed by line; a control or bidirectional character in an
 * imported value is refused with its line, nothing stored.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import { mds } from '../support/cli.js';

const ASSETS = [
  '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}',
  '{"code":"USD","symbol":"$","names":{"en":"US dollar","fr":"Dollar américain","ar":"دولار أمريكي"},"type":"currency"}',
].join('\n');

/** A French spreadsheet's export: two empty columns, a row of empty cells, day-first local dates. */
const EXPORT = [
  'currency;source;buy;sell;updatedAt;;',
  'EUR;parallel;262,50;264,75;28/11/2025 09:30;;',
  ';;;;;;',
  'USD;parallel;1 241,50;1.243,00;28/11/2025 09:30;;',
  'EUR;parallel;262,50;264,75;28/11/2025 09:30;;',
  'EUR;official;150,25;151,00;5/11/2025 9:30;;',
].join('\r\n');

function reportFlow(backend: Backend): void {
  describe(`mds import reports on ${backend.name}`, () => {
    let db: Database;
    let dir: string;
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const run = (args: string[], input?: string) => mds(args, { db: db.url, input });

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
      dir = mkdtempSync(join(tmpdir(), 'mds-cli-report-'));
      const r = await run(['import', 'assets', '-', '--json'], ASSETS);
      expect(r.status, r.stderr).toBe(0);
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('reports every problem of a file in one pass, grouped by kind over consecutive lines', async () => {
      const rows = ['currency;source;buy;sell;updatedAt'];
      for (let i = 0; i < 40; i++)
        rows.push(
          `EUR;parallel;262;264;2025-11-${String(1 + (i % 28)).padStart(2, '0')} 09:${String(i).padStart(2, '0')}`,
        );
      rows.push('JPY;parallel;1,5;1,6;2025-11-28 10:00'); // 42: unknown currency, no zone
      rows.push('USD;parallel;300;241;2025-11-28 10:00'); // 43: sell below buy, no zone
      const path = file('no-zone.csv', rows.join('\n'));
      const text = await run(['import', 'rates', path]);
      expect(text.status).toBe(1);
      expect(text.stdout).toBe('');
      expect(text.stderr).toBe(
        [
          'mds: import refused: 44 problem(s), nothing was written',
          '  lines 2–43 (42 problems): updatedAt: "2025-11-01 09:00" has no time zone: write it with its UTC offset, e.g. 2025-11-01T09:00:00+01:00, or in UTC with Z, or pass the zone of the file, e.g. --timezone Africa/Algiers',
          '  line 42: currency: JPY is not in the asset directory (import it with `mds import assets` first)',
          '  line 43: sell 241 is below buy 300: a quote sells at or above its buy; check the two columns, or re-run with --accept-outliers once the file is reviewed',
          '',
        ].join('\n'),
      );
      const json = await run(['import', 'rates', path, '--json']);
      const report = json.errorJson().error.report;
      expect(report.problems).toMatchObject({ count: 44, lines: 42, groupsNotListed: 0 });
      expect(report.problems.byKind).toEqual([
        { kind: 'updatedAt has no time zone', count: 42 },
        { kind: 'currency not in the asset directory', count: 1 },
        { kind: 'sell below buy', count: 1 },
      ]);
    });

    it('lists at most 100 groups, then the count of each kind', async () => {
      const rows = ['currency;source;buy;sell;updatedAt'];
      // Good and bad rows alternating: each bad one is a group of its own.
      for (let i = 0; i < 150; i++) {
        const at = `2025-10-01T${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`;
        rows.push(`EUR;parallel;262;264;${at}`, `EUR;parallel;abc;264;${at.replace('T', 'X')}`);
      }
      const r = await run(['import', 'rates', file('alternating.csv', rows.join('\n')), '--json']);
      expect(r.status).toBe(1);
      const problems = r.errorJson().error.report.problems;
      expect(problems.groups).toHaveLength(100);
      expect(problems.groupsNotListed).toBe(200);
      expect(problems.byKind.map((k: { count: number }) => k.count)).toEqual([150, 150]);
      const text = await run(['import', 'rates', file('alternating.csv', rows.join('\n'))]);
      expect(text.stderr).toContain('  … and 200 more group(s); problems by kind:\n    150 × ');
      expect(text.stderr.split('\n').length).toBeLessThan(110);
    });

    it('reports 300,000 inverted quotes as one group (the list of them overflowed a call: unexpected error)', async () => {
      const rows = ['currency,source,buy,sell,updatedAt'];
      const start = Date.UTC(2020, 0, 1);
      for (let i = 0; i < 300_000; i++)
        rows.push(`EUR,parallel,300,241,${new Date(start + i * 60_000).toISOString()}`);
      const r = await run(['import', 'rates', file('inverted.csv', rows.join('\n'))]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        'mds: import refused: 300000 problem(s), nothing was written\n' +
          '  lines 2–300001 (300000 problems): sell 241 is below buy 300: a quote sells at or above its buy; check the two columns, or re-run with --accept-outliers once the file is reviewed\n',
      );
    }, 180_000);

    it('imports a spreadsheet export as it comes, listing the repeated row and what was ignored', async () => {
      const path = file('export.csv', EXPORT);
      const without = await run(['import', 'rates', path, '--timezone', 'Africa/Algiers', '--json']);
      expect(without.status).toBe(1);
      expect(without.errorJson().error.report.problems.groups[0].message).toContain(
        '--date-order dmy (day first)',
      );
      const bad = await run(['import', 'rates', path, '--timezone', 'Africa/Algiers', '--date-order', 'ymd']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('--date-order: "ymd" is not a date order; write dmy');

      const args = ['import', 'rates', path, '--timezone', 'Africa/Algiers', '--date-order', 'dmy'];
      const text = await run([...args, '--dry-run']);
      expect(text.status, text.stderr).toBe(0);
      expect(text.stdout).toContain('rates: 3 received, 3 inserted');
      expect(text.stdout).toContain(
        '  1 row(s) repeat an earlier row exactly and were read once:\n    line 5: repeats line 2\n  ignored 1 empty row(s) and 2 empty column(s)\n',
      );
      const r = await run([...args, '--json']);
      expect(r.status, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({
        received: 3,
        inserted: 3,
        emptyRows: 1,
        emptyColumns: 2,
        duplicateRows: { count: 1, groups: [{ line: 5, lastLine: 5, count: 1, message: 'repeats line 2' }] },
      });
      const store = db.open();
      try {
        const latest = await store.market.rateHistory({
          currency: 'USD',
          source: 'parallel',
          from: 0,
          to: Date.UTC(2026, 0, 1),
          limit: 10,
        });
        // 28/11/2025 09:30 in Algiers (UTC+1) is 08:30 UTC; 1 241,50 and 1.243,00 with their separators.
        expect(latest.map((o) => [o.updatedAt, o.buy, o.sell])).toEqual([
          [Date.UTC(2025, 10, 28, 8, 30), 1_241_500_000, 1_243_000_000],
        ]);
        const official = await store.market.rateHistory({
          currency: 'EUR',
          source: 'official',
          from: 0,
          to: Date.UTC(2026, 0, 1),
          limit: 10,
        });
        expect(official.map((o) => o.updatedAt)).toEqual([Date.UTC(2025, 10, 5, 8, 30)]);
      } finally {
        await store.close();
      }
    });

    it('refuses a control or bidirectional character in an imported value with its line; nothing stored', async () => {
      const csv = [
        'code,symbol,type,name_en,name_fr,name_ar',
        'XNA,N,currency,"Two\nlines",Dinar,\u200fدينار\u061c', // a line break inside a quoted name: the file's structure
        'XNB,N,currency,Nul\u0000dinar,Dinar,دينار',
        'XNC,N,currency,Dinar\u202e,Dinar,دينار',
      ].join('\n');
      const r = await run(['import', 'assets', file('hostile.csv', csv)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        [
          'mds: import refused: 2 problem(s), nothing was written',
          '  line 4: name_en: must not contain control characters other than tab, CR and LF (U+0000 to U+001F, U+007F): remove them',
          '  line 5: name_en: must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069): remove them',
          '',
        ].join('\n'),
      );
      const ndjson = JSON.stringify({
        code: 'XND',
        symbol: 'N',
        names: { en: 'Nul\u0000', fr: 'D', ar: 'د' },
        type: 'currency',
      });
      const nul = await run(['import', 'assets', '-'], ndjson);
      expect(nul.stderr).toContain(
        'line 1: names.en: must not contain control characters (U+0000 to U+001F, U+007F)',
      );
      const store = db.open();
      try {
        const codes = (await store.market.listAssets()).map((a) => a.code);
        expect(codes.filter((c) => c.startsWith('XN'))).toEqual([]);
      } finally {
        await store.close();
      }
      // The line break of a quoted name and the marks Arabic needs pass.
      const fine = await run([
        'import',
        'assets',
        file('fine.csv', csv.split('\n').slice(0, 3).join('\n')),
        '--json',
      ]);
      expect(fine.status, fine.stderr).toBe(0);
    });
  });
}

for (const backend of backends()) reportFlow(backend);
