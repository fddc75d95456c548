/**
 * The import's guards, dry run, record and revisions through the built CLI, on
 * every backend (decisions 51): a sell below the buy and a 10,000× outlier
 * are refused with both values and nothing written; --accept-outliers lets a
 * reviewed file through and says so in its record; a dry run reports what
 * would change and writes nothing; a correction leaves a revision.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type Database, freshDatabase } from '../support/backends.js';
import { mds } from '../support/cli.js';
import { asListed } from '../support/import-problems.js';

const ASSETS = [
  ['EUR', '€', 'Euro', 'Euro', 'يورو'],
  ['CAD', 'CA$', 'Canadian dollar', 'Dollar canadien', 'دولار كندي'],
  ['CHF', 'CHF', 'Swiss franc', 'Franc suisse', 'فرنك سويسري'],
]
  .map(
    ([code, symbol, en, fr, ar]) =>
      `{"code":"${code}","symbol":"${symbol}","names":{"en":"${en}","fr":"${fr}","ar":"${ar}"},"type":"currency"}`,
  )
  .join('\n');

const HEADER = 'currency,source,buy,sell,updatedAt';
const DAY1 = [
  HEADER,
  'EUR,parallel,260.5,262.5,2026-11-23T09:00:00Z',
  'CAD,parallel,168.1,170.2,2026-11-23T09:00:00Z',
  'CHF,parallel,290,292,2026-11-23T09:00:00Z',
].join('\n');

for (const backend of backends()) {
  describe(`import guards, dry run and revisions on ${backend.name}`, () => {
    let db: Database;
    let dir: string;
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const run = (args: string[], input?: string) => mds(args, { db: db.url, input });
    const latest = async () => {
      const store = db.open();
      try {
        return (await store.market.latestRates()).map((r) => `${r.currency} ${r.source} ${r.buy} ${r.sell}`);
      } finally {
        await store.close();
      }
    };
    const imports = async () => (await run(['imports', 'list', '--json'])).json().imports;

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
      dir = mkdtempSync(join(tmpdir(), 'mds-cli-guards-'));
      expect((await run(['import', 'assets', '-', '--format', 'ndjson'], ASSETS)).status).toBe(0);
      const first = await run(['import', 'rates', file('day1.csv', DAY1), '--json']);
      expect(first.stderr).toBe('');
      expect(first.json()).toMatchObject({ inserted: 3, dryRun: false, revisions: [] });
    });
    afterAll(async () => {
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('refuses a sell below the buy, naming both values, and writes nothing', async () => {
      const before = await latest();
      const count = (await imports()).length;
      const r = await run([
        'import',
        'rates',
        file('inverted.csv', `${HEADER}\nCAD,parallel,170.2,168.1,2026-11-24T09:00:00Z\n`),
        '--json',
      ]);
      expect(r.status).toBe(1);
      const err = asListed(r.errorJson()).error;
      expect(err.message).toMatch(/import refused: 1 problem\(s\), nothing was written/);
      expect(err.problems).toEqual([
        {
          line: 2,
          message: expect.stringMatching(/^sell 168\.1 is below buy 170\.2: .*--accept-outliers/),
        },
      ]);
      const gold = await run(
        ['import', 'gold', '-', '--format', 'csv'],
        'purity,buy,sell,updatedAt\n18K,30000,29000,2026-11-24T09:00:00Z\n',
      );
      expect(gold.status).toBe(1);
      expect(gold.stderr).toMatch(/line 2: sell 29000 is below buy 30000/);
      expect(await latest()).toEqual(before);
      expect(await imports()).toHaveLength(count);
    });

    it('refuses a 10,000× outlier against the stored observation, with both values and the change', async () => {
      const before = await latest();
      const r = await run([
        'import',
        'rates',
        file('outlier.csv', `${HEADER}\nCHF,parallel,2900000,2900002,2026-11-24T09:00:00Z\n`),
        '--json',
      ]);
      expect(r.status).toBe(1);
      expect(asListed(r.errorJson()).error.problems).toEqual([
        {
          line: 2,
          message: expect.stringMatching(
            /^buy 2900000 differs by \+999900\.0 % from 290, the CHF parallel buy at 2026-11-23T09:00:00\.000Z \(more than --max-change 20 %\); check the value, or re-run with --accept-outliers/,
          ),
        },
      ]);
      expect(await latest()).toEqual(before);
    });

    it('checks a file against its own earlier records: one typo is one problem', async () => {
      const text = [
        HEADER,
        'EUR,parallel,261,263,2026-11-24T09:00:00Z',
        'EUR,parallel,2610,2630,2026-11-24T10:00:00Z', // a typo
        'EUR,parallel,262,264,2026-11-24T11:00:00Z', // back to normal: compared with line 2, not the typo
      ].join('\n');
      const r = await run(['import', 'rates', file('typo.csv', text), '--json']);
      expect(r.status).toBe(1);
      expect(asListed(r.errorJson()).error.problems.map((p: { line: number }) => p.line)).toEqual([3]);
    });

    it('--max-change sets the threshold per import', async () => {
      const text = `${HEADER}\nEUR,official,150,151,2026-11-23T10:00:00Z\nEUR,official,170,171,2026-11-24T10:00:00Z\n`;
      const strict = await run(['import', 'rates', file('strict.csv', text), '--max-change', '5', '--json']);
      expect(strict.status).toBe(1);
      expect(asListed(strict.errorJson()).error.problems[0].message).toMatch(
        /\+13\.3 % .*more than --max-change 5 %/,
      );
      const bad = await run(['import', 'rates', file('strict.csv', text), '--max-change', 'ten']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/--max-change: "ten" is not a percent; write a number above 0/);
      const loose = await run(['import', 'rates', file('strict.csv', text), '--max-change', '15', '--json']);
      expect(loose.status).toBe(0);
      expect(loose.json()).toMatchObject({ inserted: 2 });
    });

    it('--accept-outliers lets a reviewed file through and its record says so', async () => {
      const text = `${HEADER}\nCAD,parallel,170.2,168.1,2026-11-25T09:00:00Z\n`;
      const r = await run(['import', 'rates', file('reviewed.csv', text), '--accept-outliers', '--json']);
      expect(r.status).toBe(0);
      const doc = r.json();
      expect(doc).toMatchObject({ inserted: 1, dryRun: false });
      expect(doc.acceptedOutliers).toEqual([
        { line: 2, message: expect.stringMatching(/^sell 168\.1 is below buy 170\.2/) },
      ]);
      const [newest] = await imports();
      expect(newest).toMatchObject({
        id: doc.importId,
        kind: 'rates',
        sourceName: 'reviewed.csv',
        format: 'csv',
        acceptedOutliers: true,
        outliers: 1,
        inserted: 1,
        maxChangePercent: 20,
      });
      expect(await latest()).toContain('CAD parallel 170200000 168100000');
    });

    it('a dry run reports what would change, old and new values, and writes nothing', async () => {
      const before = await latest();
      const count = (await imports()).length;
      const text = [
        HEADER,
        'EUR,parallel,260.75,262.5,2026-11-23T09:00:00Z', // a correction of day 1
        'EUR,parallel,263,265,2026-11-26T09:00:00Z', // new
        'CHF,parallel,290,292,2026-11-23T09:00:00Z', // unchanged
      ].join('\n');
      const path = file('correction.csv', text);
      const dry = await run(['import', 'rates', path, '--dry-run', '--json']);
      expect(dry.stderr).toBe('');
      expect(dry.status).toBe(0);
      expect(dry.json()).toMatchObject({
        received: 3,
        inserted: 1,
        updated: 1,
        unchanged: 1,
        dryRun: true,
        importId: null,
        revisionsNotShown: 0,
        revisions: [
          {
            kind: 'rates',
            currency: 'EUR',
            source: 'parallel',
            updatedAt: '2026-11-23T09:00:00.000Z',
            old: { buy: 260.5, sell: 262.5 },
            new: { buy: 260.75, sell: 262.5 },
          },
        ],
      });
      const text2 = await run(['import', 'rates', path, '--dry-run']);
      expect(text2.stdout).toMatch(
        /^dry run, nothing written: rates: 3 received, 1 inserted, 1 updated, 1 unchanged/,
      );
      expect(text2.stdout).toMatch(
        /updated EUR parallel at 2026-11-23T09:00:00\.000Z: buy 260\.5 -> 260\.75, sell 262\.5/,
      );
      expect(await latest()).toEqual(before);
      expect(await imports()).toHaveLength(count);
      expect((await run(['revisions', '--json'])).json().revisions).toEqual([]);

      // The same refusal and exit code as the real import.
      const refused = await run([
        'import',
        'rates',
        file('dry-outlier.csv', `${HEADER}\nCHF,parallel,2900000,2900002,2026-11-24T09:00:00Z\n`),
        '--dry-run',
      ]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/import refused: 1 problem\(s\), a real import would write nothing/);
    });

    it('a correction keeps what it replaced as a revision; the API serves the new values', async () => {
      const path = join(dir, 'correction.csv');
      const real = await run(['import', 'rates', path, '--json']);
      expect(real.status).toBe(0);
      const { importId } = real.json();
      expect(importId).toMatch(/^imp_[a-z0-9]+$/);
      const revisions = (
        await run(['revisions', '--currency', 'EUR', '--source', 'parallel', '--json'])
      ).json().revisions;
      expect(revisions).toEqual([
        {
          importId,
          kind: 'rates',
          currency: 'EUR',
          source: 'parallel',
          updatedAt: '2026-11-23T09:00:00.000Z',
          old: { buy: 260.5, sell: 262.5 },
          new: { buy: 260.75, sell: 262.5 },
          revisedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ]);
      expect((await run(['revisions', '--currency', 'CHF', '--json'])).json().revisions).toEqual([]);
      expect(
        (await run(['revisions', '--since', '2999-01-01T00:00:00Z', '--json'])).json().revisions,
      ).toEqual([]);
      const [record] = await imports();
      expect(record).toMatchObject({
        id: importId,
        actor: `cli:${userInfo().username}`,
        sourceName: 'correction.csv',
        received: 3,
        inserted: 1,
        updated: 1,
        unchanged: 1,
        acceptedOutliers: false,
        outliers: 0,
      });
      // The served value is the corrected one; the stored history holds one record for the instant.
      const store = db.open();
      try {
        const page = await store.market.rateHistory({
          currency: 'EUR',
          source: 'parallel',
          from: Date.parse('2026-11-23T00:00:00Z'),
          to: Date.parse('2026-11-23T23:59:59Z'),
          limit: 10,
        });
        expect(page.map((r) => [r.buy, r.sell])).toEqual([[260_750_000, 262_500_000]]);
      } finally {
        await store.close();
      }
      const table = await run(['revisions']);
      expect(table.stdout).toContain(
        `${importId}  EUR parallel at 2026-11-23T09:00:00.000Z: buy 260.5 -> 260.75, sell 262.5`,
      );
      const bad = await run(['revisions', '--source', 'street']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/--source: "street" must be one of parallel, official, transfer, gold/);
    });
  });
}
