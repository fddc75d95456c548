/**
 * `mds import official-boa` through the built CLI (docs/decisions.md 140,
 * 141): the Bank of Algeria's workbook in its layout (`EURO` for EUR, JPY per
 * 100, a heading row, empty trailing rows, a sheet of a currency not in the
 * directory) as `official` observations at 12:00 Algiers (11:00Z), with the
 * dry run, revisions and retractions of every import, and the caps refusing
 * an oversized file and zip bombs before anything is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';
import { boaWorkbook, layoutSheets, serial, shiftedBomb, uncountedBomb, zipOf } from '../support/workbook.js';

const asset = (code: string) =>
  JSON.stringify({ code, symbol: code, names: { en: code, fr: code, ar: code }, type: 'currency' });
const ASSETS = ['EUR', 'USD', 'JPY'].map(asset).join('\n');
/** Stored before: the workbook's value for that date differs (a revision). */
const STORED =
  '{"currency":"EUR","source":"official","buy":150,"sell":150,"updatedAt":"2020-03-02T11:00:00Z"}';

const sheets = (usd3: number) => layoutSheets('2020-03', usd3);

const ok = (r: CliResult) => {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.json();
};

/** The suite on one backend: import-workbook.test.ts on SQLite, import-workbook-postgres.test.ts on PostgreSQL. */
export function workbookFlow(backend: Backend): void {
  describe(`mds import official-boa on ${backend.name}`, () => {
    let db: Database;
    let dir: string;
    const run = (args: string[], env?: Record<string, string>, input?: string, keepStdinOpen = false) =>
      mds(args, { db: db.url, env, input, keepStdinOpen });
    const save = (name: string, bytes: Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    };
    const official = async (currency: string, year = 2020) => {
      const store = db.open();
      try {
        const rows = await store.market.rateHistory({
          currency,
          source: 'official',
          from: Date.UTC(year, 0, 1),
          to: Date.UTC(year + 1, 0, 1),
          limit: 10,
        });
        return rows.map((r) => [new Date(r.updatedAt).toISOString(), r.buy, r.sell]);
      } finally {
        await store.close();
      }
    };

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
      dir = mkdtempSync(join(tmpdir(), 'mds-cli-workbook-'));
      ok(await run(['migrate', '--json']));
      ok(await run(['import', 'assets', '-', '--format', 'ndjson', '--json'], undefined, ASSETS));
      ok(await run(['import', 'rates', '-', '--format', 'ndjson', '--json'], undefined, STORED));
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('a dry run reports what the import would do and writes nothing', async () => {
      const file = save('boa.xlsx', await boaWorkbook(sheets(134.25)));
      const dry = ok(await run(['import', 'official-boa', file, '--dry-run', '--json']));
      expect(dry).toMatchObject({ dryRun: true, importId: null, received: 5, inserted: 4, updated: 1 });
      expect(await official('EUR')).toEqual([['2020-03-02T11:00:00.000Z', 150_000_000, 150_000_000]]);
      expect(await official('USD')).toEqual([]);
    });

    it('imports each dated row at 12:00 Algiers, EURO as EUR, JPY per 100; skips the unknown currency', async () => {
      const file = save('boa.xlsx', await boaWorkbook(sheets(134.25)));
      const doc = ok(await run(['import', 'official-boa', file, '--json']));
      expect(doc).toMatchObject({
        kind: 'rates',
        received: 5,
        inserted: 4,
        updated: 1,
        unchanged: 0,
        retracted: 0,
        emptyRows: 2,
        revisions: [
          {
            currency: 'EUR',
            source: 'official',
            updatedAt: '2020-03-02T11:00:00.000Z',
            old: { buy: 150, sell: 150 },
            new: { buy: 150.25, sell: 150.25 },
          },
        ],
        skippedSheets: [{ sheet: 'XAF - DZD', reason: 'XAF is not in the asset directory' }],
      });
      // Newest first, in micro-units.
      expect(await official('EUR')).toEqual([
        ['2020-03-03T11:00:00.000Z', 150_500_000, 150_500_000],
        ['2020-03-02T11:00:00.000Z', 150_250_000, 150_250_000],
      ]);
      expect(await official('USD')).toEqual([
        ['2020-03-03T11:00:00.000Z', 134_250_000, 134_250_000],
        ['2020-03-02T11:00:00.000Z', 134_100_000, 134_100_000],
      ]);
      expect(await official('JPY')).toEqual([['2020-03-02T11:00:00.000Z', 895_321, 895_321]]);
      const store = db.open();
      try {
        const [record] = await store.imports.listImports(1);
        expect(record).toMatchObject({ id: doc.importId, format: 'xlsx', sourceName: 'boa.xlsx' });
      } finally {
        await store.close();
      }
    });

    it('a re-import with one changed value leaves exactly one revision', async () => {
      const file = save('boa-2.xlsx', await boaWorkbook(sheets(134.3)));
      const doc = ok(await run(['import', 'official-boa', file, '--json']));
      expect(doc).toMatchObject({ received: 5, inserted: 0, updated: 1, unchanged: 4 });
      expect(doc.revisions).toHaveLength(1);
      expect(doc.revisions).toMatchObject([
        {
          currency: 'USD',
          source: 'official',
          updatedAt: '2020-03-03T11:00:00.000Z',
          old: { buy: 134.25, sell: 134.25 },
          new: { buy: 134.3, sell: 134.3 },
        },
      ]);
      // `mds import rates` reads a .xlsx file as the same workbook.
      expect(ok(await run(['import', 'rates', file, '--json']))).toMatchObject({ received: 5, unchanged: 5 });
      const text = await run(['import', 'official-boa', file]);
      expect(text.status).toBe(0);
      expect(text.stdout).toContain('5 received, 0 inserted, 0 updated, 5 unchanged');
      expect(text.stdout).toContain('skipped sheet "XAF - DZD": XAF is not in the asset directory');
    });

    it('a retracted observation stays retracted when the workbook brings it again, unless --reinstate', async () => {
      const at = '2020-03-02T11:00:00.000Z';
      ok(
        await run([
          'observations',
          'retract',
          '--currency',
          'JPY',
          '--source',
          'official',
          '--at',
          at,
          '--reason',
          'x',
          '--json',
        ]),
      );
      const file = save('boa-2.xlsx', await boaWorkbook(sheets(134.3)));
      expect(ok(await run(['import', 'official-boa', file, '--json']))).toMatchObject({
        inserted: 0,
        retracted: 1,
        reinstated: 0,
      });
      expect(await official('JPY')).toEqual([]);
      const back = ok(await run(['import', 'official-boa', file, '--reinstate', '--json']));
      expect(back).toMatchObject({ inserted: 1, retracted: 0, reinstated: 1 });
      expect(await official('JPY')).toEqual([[at, 895_321, 895_321]]);
    });

    it('refuses unreadable cells whole, each problem naming its sheet and row', async () => {
      const bad = await boaWorkbook([
        {
          name: 'USD - DZD',
          rows: [
            [serial('2020-04-01'), 'n/a'],
            ['fin', 135],
          ],
        },
      ]);
      const r = await run(['import', 'official-boa', save('bad.xlsx', bad)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        [
          'mds: import refused: 2 problem(s), nothing was written',
          '  line 2: sheet "USD - DZD": column B: "n/a" is not a rate; write the dinars per unit as a positive number',
          '  line 3: sheet "USD - DZD": column A: "fin" is not a date; write it as an Excel date',
          '',
        ].join('\n'),
      );
      const usage = await run(['import', 'official-boa']);
      expect(usage.status).toBe(2);
      expect(usage.stderr).toContain('usage: mds import official-boa <file.xlsx|-> [--dry-run]');
    });

    it('reads a heading with column A empty; rounds computed rates to 6 decimals, half away from zero', async () => {
      const file = save(
        'computed.xlsx',
        await boaWorkbook([
          {
            name: 'USD - DZD',
            heading: [null, 'Cours moyen du dollar'],
            rows: [
              [serial('2021-03-01'), 134.2999995],
              [serial('2021-03-02'), 134.1234567],
            ],
          },
          // 86.12345 per 100 yen: 0.8612345 per yen.
          { name: 'JPY - DZD', rows: [[serial('2021-03-01'), 86.12345]] },
          { name: 'EURO', rows: [[serial('2021-03-01'), 150.25]] },
        ]),
      );
      const doc = ok(await run(['import', 'official-boa', file, '--json']));
      expect(doc).toMatchObject({ received: 4, inserted: 4, roundedRates: 3 });
      expect(await official('USD', 2021)).toEqual([
        ['2021-03-02T11:00:00.000Z', 134_123_457, 134_123_457],
        ['2021-03-01T11:00:00.000Z', 134_300_000, 134_300_000],
      ]);
      expect(await official('JPY', 2021)).toEqual([['2021-03-01T11:00:00.000Z', 861_235, 861_235]]);
      expect(await official('EUR', 2021)).toEqual([['2021-03-01T11:00:00.000Z', 150_250_000, 150_250_000]]);
      const text = await run(['import', 'official-boa', file, '--dry-run']);
      expect(text.stdout).toContain('  3 rate(s) rounded to 6 decimal places');
    });

    it('refuses a workbook over the size cap, and zip bombs, before unpacking them; nothing is written', async () => {
      const big = save('big.xlsx', Buffer.alloc(1024 * 1024 + 1));
      const over = await run(['import', 'official-boa', big], { MDS_WORKBOOK_MAX_MB: '1' });
      expect(over.status).toBe(1);
      expect(over.stderr).toContain(
        'the workbook is 1.0 MB, more than the 1 MB a workbook may be (MDS_WORKBOOK_MAX_MB)',
      );

      // Standard input is refused one byte past the cap, before its end (which never comes here).
      const piped = await run(
        ['import', 'official-boa', '-'],
        { MDS_WORKBOOK_MAX_MB: '1' },
        'x'.repeat(1024 * 1024 + 1),
        true,
      );
      expect(piped.status).toBe(1);
      expect(piped.stderr).toContain(
        'the workbook is 1.0 MB, more than the 1 MB a workbook may be (MDS_WORKBOOK_MAX_MB)',
      );

      // 2 MB of zeros packs into a few KB: over a 1 MB cap by its declared size, never inflated.
      const zeros = Buffer.alloc(2 * 1024 * 1024);
      const declared = save('declared.xlsx', zipOf([{ name: 'xl/workbook.xml', data: zeros }]));
      const bomb = await run(['import', 'official-boa', declared], {
        MDS_WORKBOOK_UNPACKED_MB: '1',
      });
      expect(bomb.status).toBe(1);
      expect(bomb.stderr).toContain(
        'the workbook is refused: it unpacks to 2.0 MB, more than the 1.0 MB a workbook may (MDS_WORKBOOK_UNPACKED_MB)',
      );

      // A part that says 100 bytes and inflates to 2 MB: stopped at its declared size.
      const liar = save('liar.xlsx', zipOf([{ name: 'xl/workbook.xml', data: zeros, declared: 100 }]));
      const lied = await run(['import', 'official-boa', liar]);
      expect(lied.status).toBe(1);
      expect(lied.stderr).toContain(
        'its part xl/workbook.xml does not inflate to its declared size (a zip bomb?)',
      );

      // Directories another ZIP reader would read otherwise, each hiding 50 MB (test/support/workbook.ts).
      const uncountedFile = save('uncounted.xlsx', uncountedBomb());
      const uncounted = await run(['import', 'official-boa', uncountedFile]);
      expect(uncounted.status).toBe(1);
      expect(uncounted.stderr).toBe(
        `mds: cannot read ${uncountedFile}: the workbook is refused: its ZIP central directory is damaged (it holds more parts than the 1 its end record counts)\n`,
      );
      const shiftedFile = save('shifted.xlsx', shiftedBomb());
      const shifted = await run(['import', 'official-boa', shiftedFile]);
      expect(shifted.status).toBe(1);
      expect(shifted.stderr).toBe(
        `mds: cannot read ${shiftedFile}: the workbook is refused: its ZIP central directory is damaged (it does not end where its end record begins)\n`,
      );

      const text = save('text.xlsx', Buffer.from('currency,source\n'));
      const notZip = await run(['import', 'official-boa', text]);
      expect(notZip.stderr).toContain('it is not an .xlsx workbook (no ZIP central directory found)');
      expect(await official('USD')).toHaveLength(2);
    });
  });
}
