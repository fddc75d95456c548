/**
 * `mds simulate reporters` against a running `mds serve` (docs/decisions.md
 * 118): it makes its organisations and reporters in the store, posts its
 * quotes through the reporter API of the admin listener, and the consensus
 * publishes; the rogue organisation is excluded from the stored point. The
 * run publishes one point per market (the next waits a minute, decisions 107):
 * with a quorum of 5 it waits for the five honest organisations, and with
 * seed 1 the rogue's first quote of each market comes over a second before
 * the fifth honest one's (test/simulate/quotes.test.ts), so the point holds
 * it. On SQLite and PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { microsToNumber } from '../../src/domain/decimal.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';
import { stopChild, track } from '../support/children.js';
import { mds } from '../support/cli.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

const ARGS = [
  'simulate',
  'reporters',
  '--markets',
  'EUR,USD',
  '--organisations',
  '8',
  '--noise',
  '0.3%',
  '--rogue',
  '1:+10%',
  '--collude',
  '2:+5%',
  '--base',
  'EUR=260/262,USD=230/232',
  '--duration',
  '5s',
  '--interval',
  '2s',
  '--seed',
  '1',
];

describe.each(backends())('mds simulate reporters on $name', (backend) => {
  let db: Database;
  let server: ServerProcess;
  let adminUrl: string;

  beforeAll(async () => {
    db = await freshDatabase(backend.name);
    const store = db.open();
    await store.migrate();
    await store.close();
    const seeded = await mds(['seed', 'sample', '--days', '1'], { db: db.url });
    expect(seeded.status, seeded.stderr).toBe(0);
    server = await spawnServer({
      db: db.url,
      env: { MDS_ADMIN_PORT: '0', MDS_REPORT_RATE_LIMIT: '100000', MDS_CONSENSUS_QUORUM: '5' },
    });
    adminUrl = await waitFor(() => /Metrics: (\S+)\/metrics/.exec(server.stdout())?.[1], {
      what: () => `the admin URL in ${server.stdout()}`,
    });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('posts its quotes through the reporter API and the consensus publishes without the rogue', async () => {
    const run = await mds([...ARGS, '--url', adminUrl, '--json'], { db: db.url });
    expect(run.status, run.stderr).toBe(0);
    const summary = run.json();
    expect(summary.sent).toBeGreaterThan(30);
    expect(summary).toMatchObject({ refused: 0, stopped: false });
    expect(summary.accepted).toBe(summary.sent);

    const store = db.open();
    try {
      const organisations = await store.reporters.listOrganisations({ limit: 100 });
      expect(organisations.map((o) => o.name).sort()).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `sim-${i}`).sort(),
      );
      const rogue = organisations.find((o) => o.name === 'sim-8')!.id;
      for (const market of ['EUR', 'USD']) {
        const state = await waitFor(
          async () => {
            const s = await store.consensus.marketState(market);
            return s?.last ? s : undefined;
          },
          { what: `a ${market} publication` },
        );
        const point = (await store.consensus.pointAt(market, state.last!.at))!;
        expect(point.organisations).toBeLessThanOrEqual(7);
        const input = point.inputs.find((i) => i.organisationId === rogue)!;
        expect(input.excluded).not.toBeNull();
        const base = market === 'EUR' ? 260 : 230;
        expect(Math.abs(microsToNumber(point.buy) / base - 1)).toBeLessThan(0.02);
      }
    } finally {
      await store.close();
    }
  }, 60_000);

  it('refuses a run it cannot make, naming the option and the fix', async () => {
    const noBase = await mds(
      ['simulate', 'reporters', '--markets', 'ZAR', '--duration', '1s', '--url', adminUrl],
      {
        db: db.url,
      },
    );
    expect(noBase.status).toBe(2);
    expect(noBase.stderr).toContain('--base: no base for ZAR; give one, e.g. --base ZAR=260');
    const rogue = await mds([...ARGS, '--rogue', '10%', '--url', adminUrl], { db: db.url });
    expect(rogue.status).toBe(2);
    expect(rogue.stderr).toContain('--rogue: "10%" is not COUNT:OFFSET');
  });

  it.runIf(backend.name === 'sqlite')(
    'stops cleanly on Ctrl-C, with its summary',
    async () => {
      const args = [...ARGS.slice(0, ARGS.indexOf('--duration')), '--duration', '10m', '--url', adminUrl];
      const child = spawn(process.execPath, [CLI, ...args, '--db', db.url], {
        env: { ...process.env, MDS_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      track(child, 'mds simulate reporters');
      let [stdout, stderr] = ['', ''];
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        await waitFor(() => stderr.includes('Ctrl-C stops'), { timeout: 15_000, what: () => stderr });
        child.kill('SIGINT');
        expect(await exited).toBe(0);
        expect(stdout).toContain('(stopped early)');
      } finally {
        await stopChild(child, 'SIGKILL');
      }
    },
    30_000,
  );
});
