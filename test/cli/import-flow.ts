/**
 * `mds migrate` and `mds import` through the built CLI (decisions §11, import
 * formats): every format, from a file and from stdin, detection and --format,
 * the inserted/updated/unchanged summary, and all-or-nothing refusals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';
import { asListed } from '../support/import-problems.js';

const ASSETS_NDJSON = [
  '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}',
  '{"code":"USD","symbol":"$","names":{"en":"US dollar","fr":"Dollar américain","ar":"دولار أمريكي"},"type":"currency"}',
].join('\n');
const ASSETS_JSON = `[
  {"code":"GBP","symbol":"£","names":{"en":"Pound sterling","fr":"Livre sterling","ar":"جنيه إسترليني"},"type":"currency"}
]`;
const ASSETS_CSV =
  'code,symbol,type,name_en,name_fr,name_ar\nCHF,Fr.,currency,Swiss franc,Franc suisse,فرنك سويسري\n';

const RATES_NDJSON = [
  '{"currency":"EUR","source":"parallel","buy":"250.5","sell":"252.5","updatedAt":"2025-03-01T09:00:00.000Z"}',
  '{"currency":"USD","source":"parallel","buy":230,"sell":232,"updatedAt":"2025-03-01T09:00:00.000Z"}',
  '{"currency":"EUR","source":"official","buy":"150.1","sell":"150.9","updatedAt":"2025-03-01T10:00:00Z"}',
].join('\n');
const RATES_CSV = [
  'currency,source,buy,sell,updatedAt',
  'EUR,parallel,251,253,2025-03-02T09:00:00.000Z',
  'GBP,transfer,290.25,295.75,2025-03-02T11:00:00.000Z',
].join('\n');
const RATES_JSON = `[
  {"currency": "CHF", "source": "official", "buy": "160", "sell": "161", "updatedAt": "2025-03-03T10:00:00.000Z"},
  {"currency": "USD", "source": "official", "buy": "134.5", "sell": "135", "updatedAt": "2025-03-03T10:00:00.000Z"}
]`;
const GOLD_NDJSON = [
  '{"purity":"24K","buy":"21000","sell":"21500","updatedAt":"2025-03-01T09:30:00.000Z"}',
  '{"purity":"18K","buy":"15750","sell":"16100","updatedAt":"2025-03-01T09:30:00.000Z"}',
].join('\n');
const GOLD_CSV = 'purity,buy,sell,updatedAt\n21K,18400,18800,2025-03-01T09:30:00.000Z\n';
const GOLD_JSON = '[{"purity":"24K","buy":21100,"sell":21600,"updatedAt":"2025-03-02T09:30:00.000Z"}]';

const FORMULA_MESSAGE =
  'must not begin with =, +, -, @, a tab or a carriage return, which a spreadsheet runs as a formula: ' +
  'remove or reword the first character';

function summary(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  const doc = r.json();
  expect(typeof doc.seconds).toBe('number');
  // The import's record and revisions are asserted by test/cli/import-guards.test.ts.
  const {
    seconds: _,
    importId: _id,
    dryRun: _dry,
    revisions: _revisions,
    revisionsNotShown: _more,
    acceptedOutliers: _outliers,
    // Records of retracted observations (docs/decisions.md, 105): test/cli/retract-flow.ts.
    retracted,
    reinstated,
    ...counts
  } = doc;
  expect({ retracted, reinstated }).toEqual({ retracted: 0, reinstated: 0 });
  return counts;
}

/** The suite on one backend; import.test.ts runs it on SQLite, import-postgres.test.ts on PostgreSQL. */
export function importFlow(backend: Backend): void {
  describe(`mds migrate and import on ${backend.name}`, () => {
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
      dir = mkdtempSync(join(tmpdir(), 'mds-cli-import-'));
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('migrate applies the migrations, then is already up to date; --json prints one document', async () => {
      const first = await run(['migrate', '--json']);
      expect(first.status).toBe(0);
      expect(first.stderr).toBe('');
      expect(first.stdout.endsWith('\n')).toBe(true);
      expect(first.stdout.trim().split('\n')).toHaveLength(1);
      const applied = first.json().applied as string[];
      expect(applied.length).toBeGreaterThan(0);
      expect(applied).toEqual([...applied].sort());
      expect(typeof first.json().store).toBe('string');

      const text = await run(['migrate']);
      expect(text.status).toBe(0);
      expect(text.stdout).toBe('already up to date\n');

      const again = await run(['migrate', '--json']);
      expect(again.status).toBe(0);
      expect(again.json()).toEqual({ applied: [], store: first.json().store });
    });

    it('imports assets as NDJSON from a file, a JSON array from stdin and CSV with --format', async () => {
      expect(
        summary(await run(['import', 'assets', file('assets.ndjson', ASSETS_NDJSON), '--json'])),
      ).toEqual({
        kind: 'assets',
        received: 2,
        inserted: 2,
        updated: 0,
        unchanged: 0,
      });
      // No file name to go by: detected from the leading '['.
      expect(summary(await run(['import', 'assets', '-', '--json'], ASSETS_JSON))).toEqual({
        kind: 'assets',
        received: 1,
        inserted: 1,
        updated: 0,
        unchanged: 0,
      });
      // A .txt file: the format is given.
      const text = await run(['import', 'assets', file('assets.txt', ASSETS_CSV), '--format', 'csv']);
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(
        /^assets: 1 received, 1 inserted, 0 updated, 0 unchanged in \d+\.\d\d s \(import imp_[a-z0-9]+\)\n$/,
      );
    });

    it('keeps every character of the input: UTF-8 names from a file, from stdin and in CSV', async () => {
      const store = db.open();
      try {
        const names = new Map(
          (await store.market.listAssets()).map((a) => [a.code, [a.symbol, a.names.fr, a.names.ar]]),
        );
        expect(names.get('EUR')).toEqual(['€', 'Euro', 'يورو']);
        expect(names.get('USD')).toEqual(['$', 'Dollar américain', 'دولار أمريكي']);
        expect(names.get('GBP')).toEqual(['£', 'Livre sterling', 'جنيه إسترليني']);
        expect(names.get('CHF')).toEqual(['Fr.', 'Franc suisse', 'فرنك سويسري']);
      } finally {
        await store.close();
      }
    });

    it('importing the same assets again changes nothing', async () => {
      expect(
        summary(await run(['import', 'assets', '-', '--format', 'ndjson', '--json'], ASSETS_NDJSON)),
      ).toEqual({
        kind: 'assets',
        received: 2,
        inserted: 0,
        updated: 0,
        unchanged: 2,
      });
    });

    it('imports running at the same time all succeed', async () => {
      const codes = ['AED', 'SAR', 'TND', 'MAD', 'QAR', 'KWD'];
      const results = await Promise.all(
        codes.map((code) =>
          run(
            ['import', 'assets', '-', '--json'],
            `{"code":"${code}","symbol":"${code}","names":{"en":"${code}","fr":"${code}","ar":"${code}"},"type":"currency"}`,
          ),
        ),
      );
      expect(results.map(summary)).toEqual(
        codes.map(() => ({ kind: 'assets', received: 1, inserted: 1, updated: 0, unchanged: 0 })),
      );
    });

    it('imports rates in every format; a second import is all unchanged', async () => {
      const ndjson = file('rates.ndjson', RATES_NDJSON);
      const csv = file('rates.csv', RATES_CSV);
      const json = file('rates.json', RATES_JSON);
      const inserted = await Promise.all([
        run(['import', 'rates', ndjson, '--json']),
        run(['import', 'rates', '-', '--json'], RATES_CSV), // CSV detected from the content
        run(['import', 'rates', json, '--json']),
      ]);
      expect(inserted.map(summary)).toEqual([
        { kind: 'rates', received: 3, inserted: 3, updated: 0, unchanged: 0 },
        { kind: 'rates', received: 2, inserted: 2, updated: 0, unchanged: 0 },
        { kind: 'rates', received: 2, inserted: 2, updated: 0, unchanged: 0 },
      ]);
      const again = await Promise.all([
        run(['import', 'rates', '-', '--json'], RATES_NDJSON), // NDJSON detected from the leading '{'
        run(['import', 'rates', csv, '--json']),
        run(['import', 'rates', '-', '--format', 'json', '--json'], RATES_JSON),
      ]);
      expect(again.map(summary)).toEqual([
        { kind: 'rates', received: 3, inserted: 0, updated: 0, unchanged: 3 },
        { kind: 'rates', received: 2, inserted: 0, updated: 0, unchanged: 2 },
        { kind: 'rates', received: 2, inserted: 0, updated: 0, unchanged: 2 },
      ]);
    });

    it('a record with the same key and another value replaces the stored one: 1 updated', async () => {
      // Same currency+source+updatedAt as line 2, another sell; the instant written with an offset.
      const changed = RATES_NDJSON.replace('"sell":232,', '"sell":"232.75",').replace(
        '"updatedAt":"2025-03-01T10:00:00Z"',
        '"updatedAt":"2025-03-01T11:00:00+01:00"',
      );
      expect(summary(await run(['import', 'rates', '-', '--json'], changed))).toEqual({
        kind: 'rates',
        received: 3,
        inserted: 0,
        updated: 1,
        unchanged: 2,
      });
      expect(summary(await run(['import', 'rates', '-', '--json'], changed))).toEqual({
        kind: 'rates',
        received: 3,
        inserted: 0,
        updated: 0,
        unchanged: 3,
      });
    });

    it('imports gold in every format; again is unchanged, a changed value is updated', async () => {
      const first = await Promise.all([
        run(['import', 'gold', file('gold.jsonl', GOLD_NDJSON), '--json']),
        run(['import', 'gold', file('gold.csv', GOLD_CSV), '--json']),
        run(['import', 'gold', '-', '--json'], GOLD_JSON),
      ]);
      expect(first.map(summary)).toEqual([
        { kind: 'gold', received: 2, inserted: 2, updated: 0, unchanged: 0 },
        { kind: 'gold', received: 1, inserted: 1, updated: 0, unchanged: 0 },
        { kind: 'gold', received: 1, inserted: 1, updated: 0, unchanged: 0 },
      ]);
      const second = await Promise.all([
        run(
          ['import', 'gold', '-', '--format', 'ndjson', '--json'],
          GOLD_NDJSON.replace('"15750"', '"15760"'),
        ),
        run(['import', 'gold', '-', '--json'], GOLD_CSV),
        run(['import', 'gold', '-', '--json'], GOLD_JSON),
      ]);
      expect(second.map(summary)).toEqual([
        { kind: 'gold', received: 2, inserted: 0, updated: 1, unchanged: 1 },
        { kind: 'gold', received: 1, inserted: 0, updated: 0, unchanged: 1 },
        { kind: 'gold', received: 1, inserted: 0, updated: 0, unchanged: 1 },
      ]);
    });

    it('is all or nothing: one bad record among good ones writes nothing and is reported by line', async () => {
      const good = [
        '{"currency":"EUR","source":"parallel","buy":"260","sell":"262","updatedAt":"2025-03-04T09:00:00.000Z"}',
        '{"currency":"USD","source":"parallel","buy":"240","sell":"242","updatedAt":"2025-03-04T09:00:00.000Z"}',
        '{"currency":"GBP","source":"parallel","buy":"300","sell":"303","updatedAt":"2025-03-04T09:00:00.000Z"}',
      ];
      const bad =
        '{"currency":"CHF","source":"parallel","buy":"270","sell":"abc","updatedAt":"2025-03-04T09:00:00.000Z"}';
      const refused = await run([
        'import',
        'rates',
        file('mixed.ndjson', [good[0], good[1], bad, good[2]].join('\n')),
      ]);
      expect(refused.status).not.toBe(0);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        'mds: import refused: 1 problem(s), nothing was written\n' +
          '  line 3: sell: "abc" must be a positive decimal number with at most 6 decimal places\n',
      );
      // Nothing was written: the good records are all new.
      expect(summary(await run(['import', 'rates', '-', '--json'], good.join('\n')))).toEqual({
        kind: 'rates',
        received: 3,
        inserted: 3,
        updated: 0,
        unchanged: 0,
      });
    });

    it('refuses an asset name or symbol a spreadsheet would run as a formula, naming the value and the fix', async () => {
      // docs/decisions.md 86: the directory's text reaches CSV cells and spreadsheets.
      const formula = [
        '{"code":"XFA","symbol":"F","names":{"en":"Franc","fr":"Franc","ar":"فرنك"},"type":"currency"}',
        '{"code":"XFB","symbol":"F","names":{"en":"=1+1","fr":"Franc","ar":"فرنك"},"type":"currency"}',
      ].join('\n');
      const refused = await run(['import', 'assets', file('formula.ndjson', formula)]);
      expect(refused.status).not.toBe(0);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        'mds: import refused: 1 problem(s), nothing was written\n' +
          `  line 2: names.en: "=1+1" ${FORMULA_MESSAGE}\n`,
      );
      const csv = 'code,symbol,type,name_en,name_fr,name_ar\nXFC,@,currency,Franc,-Franc,فرنك\n';
      const refusedCsv = await run(['import', 'assets', file('formula.csv', csv)]);
      expect(refusedCsv.status).not.toBe(0);
      expect(refusedCsv.stderr).toContain(`line 2: symbol: "@" ${FORMULA_MESSAGE}`);
      expect(refusedCsv.stderr).toContain(`line 2: name_fr: "-Franc" ${FORMULA_MESSAGE}`);
      // Nothing was written: the good record is new.
      const good = formula.split('\n')[0]!;
      expect(summary(await run(['import', 'assets', '-', '--json'], good))).toMatchObject({ inserted: 1 });
    });

    it('refuses rates whose currency is not in the asset directory, naming the line', async () => {
      const csv = [
        'currency,source,buy,sell,updatedAt',
        'EUR,official,149,150,2025-03-05T10:00:00.000Z',
        'JPY,official,0.9,1.1,2025-03-05T10:00:00.000Z',
        'USD,official,134,135,2025-03-05T10:00:00.000Z',
      ].join('\n');
      const refused = await run(['import', 'rates', '-', '--json'], csv);
      expect(refused.status).not.toBe(0);
      expect(refused.stdout).toBe('');
      expect(asListed(refused.errorJson())).toEqual({
        error: {
          message: 'import refused: 1 problem(s), nothing was written',
          problems: [
            {
              line: 3,
              message:
                'currency: JPY is not in the asset directory (import it with `mds import assets` first)',
            },
          ],
        },
      });
      // Nothing written: without the JPY line both records are new.
      const ok = await run(['import', 'rates', '-', '--json'], csv.replace(/\nJPY[^\n]*/, ''));
      expect(summary(ok)).toEqual({ kind: 'rates', received: 2, inserted: 2, updated: 0, unchanged: 0 });
    });

    // NDJSON files are read 64 KB at a time (src/import/run.ts): pieces
    // must cut only at line ends, keep multi-byte characters whole, grow for a
    // line longer than a piece, and count lines across pieces.
    it('reads a large NDJSON file exactly: BOM, CRLF, UTF-8 across 64 KB, a 100 KB line, lines counted throughout', async () => {
      const count = 3000;
      const code = (i: number) => `Q${String(i).padStart(5, '0')}`;
      const line = (i: number) =>
        JSON.stringify({
          code: code(i),
          symbol: '€',
          names: { en: `Unit ${i}`, fr: `Unité ${i}`, ar: `وحدة ${'ع'.repeat(i % 40)}` },
          type: 'currency',
        }) + (i === 1500 ? ' '.repeat(100_000) : '');
      const lines = Array.from({ length: count }, (_, i) => line(i));
      const text = `\uFEFF${lines.join('\r\n')}\r\n`;
      expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 64 * 1024);
      expect(summary(await run(['import', 'assets', file('many.ndjson', text), '--json']))).toEqual({
        kind: 'assets',
        received: count,
        inserted: count,
        updated: 0,
        unchanged: 0,
      });
      const store = db.open();
      try {
        const stored = new Map((await store.market.listAssets()).map((a) => [a.code, a]));
        for (let i = 0; i < count; i++) {
          const want = JSON.parse(line(i));
          expect(stored.get(code(i))?.names, `line ${i + 1}`).toEqual(want.names);
        }
      } finally {
        await store.close();
      }

      // A bad record far into the file is named by its line.
      const bad = [...lines];
      bad[2499] = bad[2499]!.replace('"currency"', '"coin"');
      const refused = await run(['import', 'assets', file('bad.ndjson', bad.join('\n')), '--json']);
      expect(refused.status).not.toBe(0);
      expect(asListed(refused.errorJson())).toEqual({
        error: {
          message: 'import refused: 1 problem(s), nothing was written',
          problems: [{ line: 2500, message: 'type: "coin" must be one of currency, metal, crypto' }],
        },
      });
    });
  });
}
