/**
 * `mds observations retract` and `mds import --reinstate` through the built
 * CLI beside a running server (docs/decisions.md, 105 and 106): the server
 * stops serving a retracted rate without a restart, as after an import; a dry
 * run prints what latest would become; a second retraction and a missing
 * observation are refused naming the series and instant; gold by `--purity
 * 21`; a later import leaves the record out, counted, until `--reinstate`;
 * the audit log names the CLI's user. retract.test.ts runs it on SQLite,
 * retract-postgres.test.ts on PostgreSQL.
 */
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const at = (daysAgo: number) => new Date(today - daysAgo * DAY + 9 * 3_600_000).toISOString();
const ASSET = '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}\n';
const RATES = `currency,source,buy,sell,updatedAt\nEUR,parallel,250,252,${at(2)}\nEUR,parallel,999,1001,${at(1)}\n`;

function ok(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.json();
}

export function retractFlow(backend: Backend) {
  describe(`mds observations retract on ${backend.name}`, () => {
    let db: Database;
    let server: ServerProcess | undefined;
    let key: string;
    const run = (args: string[], input?: string) => mds(args, { db: db.url, input });
    const latest = async () =>
      (await getJson(`${server!.url}/v1/rates/latest?currency=EUR&source=parallel`, key)).body.data[0];

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
      ok(await run(['migrate', '--json']));
      ok(await run(['import', 'assets', '-', '--format', 'ndjson', '--json'], ASSET));
      ok(await run(['import', 'rates', '-', '--format', 'csv', '--accept-outliers', '--json'], RATES));
      const gold = `purity,buy,sell,updatedAt\n21K,18400,18800,${at(1)}\n`;
      ok(await run(['import', 'gold', '-', '--format', 'csv', '--json'], gold));
      const account = ok(await run(['accounts', 'create', '--json'])).id;
      const grant = ok(
        await run(['grants', 'create', '--account', account, '--plan', 'enterprise', '--json']),
      ).id;
      key = ok(await run(['keys', 'create', '--grant', grant, '--json'])).key;
      server = await spawnServer({
        db: db.url,
        redisUrl: backend.redisUrl,
        redisPrefix: backend.redisPrefix,
      });
    });
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    const EUR = ['observations', 'retract', '--currency', 'EUR', '--source', 'parallel', '--at', at(1)];

    it('a dry run prints what latest would become and changes nothing', async () => {
      expect(await latest()).toMatchObject({ buy: 999, updatedAt: at(1) });
      const text = await run([...EUR, '--reason', 'EUR typed for GBP', '--dry-run']);
      expect(text.stderr).toBe('');
      expect(text.stdout).toBe(
        `dry run, nothing changed: would retract EUR parallel at ${at(1)} (buy 999, sell 1001)\n` +
          `latest EUR parallel would become ${at(2)}: buy 250, sell 252\n`,
      );
      const history = await getJson(`${server!.url}/v1/rates/history?currency=EUR&source=parallel`, key);
      expect(history.body.data).toHaveLength(2);
    });

    it('retracts it: the running server serves the previous observation, without a restart', async () => {
      const done = ok(await run([...EUR, '--reason', 'EUR typed for GBP', '--json']));
      expect(done).toMatchObject({
        retraction: { id: expect.stringMatching(/^ret_/), buy: 999, sell: 1001, reason: 'EUR typed for GBP' },
        latest: { updatedAt: at(2), buy: 250, sell: 252 },
        dryRun: false,
      });
      await waitFor(async () => (await latest())?.updatedAt === at(2), {
        what: 'the server serving latest without it',
      });
      const history = await getJson(`${server!.url}/v1/rates/history?currency=EUR&source=parallel`, key);
      expect(history.body.data.map((r: { updatedAt: string }) => r.updatedAt)).toEqual([at(2)]);
      const audit = ok(await run(['audit', '--action', 'data.retract', '--json']));
      expect(audit.records).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            actor: { id: 'cli', label: userInfo().username },
            targetId: done.retraction.id,
          }),
        ]),
      );
    });

    it('refuses a second retraction and a missing observation, naming the series and instant', async () => {
      const again = await run([...EUR, '--reason', 'again']);
      expect(again.status).not.toBe(0);
      expect(again.stderr).toContain(`EUR parallel at ${at(1)} was already retracted`);
      const missing = await run([...EUR.slice(0, -1), at(3), '--reason', 'x']);
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toContain(`no EUR parallel observation at ${at(3)}`);
      const neither = await run(['observations', 'retract', '--at', at(1), '--reason', 'x']);
      expect(neither.stderr).toContain(
        '--currency is required for a rate (with source); for a gold price give purity',
      );
    });

    it('retracts gold by --purity 21', async () => {
      const done = ok(
        await run(['observations', 'retract', '--purity', '21', '--at', at(1), '--reason', 'x', '--json']),
      );
      expect(done).toMatchObject({ retraction: { kind: 'gold', code: '21K' }, latest: null });
    });

    it('a later import leaves it out, counted, until --reinstate', async () => {
      const again = ok(
        await run(['import', 'rates', '-', '--format', 'csv', '--accept-outliers', '--json'], RATES),
      );
      expect(again).toMatchObject({ received: 2, inserted: 0, unchanged: 1, retracted: 1, reinstated: 0 });
      const text = await run(['import', 'rates', '-', '--format', 'csv', '--accept-outliers'], RATES);
      expect(text.stdout).toContain('1 left out: retracted observation(s) (--reinstate writes them again)');
      const back = ok(
        await run(
          ['import', 'rates', '-', '--format', 'csv', '--accept-outliers', '--reinstate', '--json'],
          RATES,
        ),
      );
      expect(back).toMatchObject({ inserted: 1, retracted: 0, reinstated: 1 });
      await waitFor(async () => (await latest())?.updatedAt === at(1), {
        what: 'the server serving it again',
      });
      // The retraction stays on record beside the corrections, lifted by that import.
      const listed = ok(await run(['revisions', '--currency', 'EUR', '--json']));
      expect(listed.retractions).toEqual([
        {
          retractionId: expect.stringMatching(/^ret_/),
          kind: 'rates',
          currency: 'EUR',
          source: 'parallel',
          updatedAt: at(1),
          published: { buy: 999, sell: 1001 },
          reason: 'EUR typed for GBP',
          actor: { id: 'cli', label: userInfo().username },
          retractedAt: expect.any(String),
          reinstatedBy: back.importId,
          reinstatedAt: expect.any(String),
        },
      ]);
      const text2 = await run(['revisions', '--currency', 'EUR']);
      expect(text2.stdout).toContain(
        `EUR parallel at ${at(1)}: retracted buy 999, sell 1001 by ${userInfo().username}: EUR typed for GBP (reinstated by ${back.importId})`,
      );
    });
  });
}
