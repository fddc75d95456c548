/**
 * Explaining and recomputing published consensus points (docs/decisions.md
 * 112, 113) through `mds consensus explain|verify` and the admin API, on
 * every backend: the quotes used and excluded with the reason, the point in
 * force at an instant between points, a 404 naming the market and the
 * instant, no difference after publications, and a tampered point found.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuoteRecord } from '../../src/storage/reporter-records.js';
import { createOrganisation, createReporter } from '../../src/use-cases/reporters.js';
import { type AdminHarness, startAdminHarness, TEST_ACTOR } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { mdsInProcess } from '../support/cli.js';

const MINUTE = 60_000;
const micros = (v: number) => Math.round(v * 1_000_000);

/** Runs one statement on the harness's store, behind the service's back. */
async function tamper(h: AdminHarness, statement: string): Promise<void> {
  if (h.db.url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: h.db.url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
    return;
  }
  const raw = new BetterSqlite3(h.db.url);
  try {
    raw.prepare(statement).run();
  } finally {
    raw.close();
  }
}

describe.each(backends())('consensus explain and verify on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  const T = Math.floor(Date.now() / MINUTE) * MINUTE - 30 * MINUTE;
  let clock = T;
  let seq = 0;
  const reporters: Record<string, string> = {};
  const run = (args: string[]) => mdsInProcess(args, { db: h.db.url });

  async function organisation(name: string): Promise<void> {
    const org = await createOrganisation(h.store, TEST_ACTOR, { name }, { now: clock });
    if (!org.ok) throw new Error(JSON.stringify(org.error));
    const r = await createReporter(
      h.store,
      TEST_ACTOR,
      { organisationId: org.value.id, label: name, markets: ['EUR'] },
      { now: clock },
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    reporters[name] = r.value.reporter.id;
  }

  async function quote(name: string, buy: number, sell: number) {
    const reporter = await h.store.reporters.getReporter(reporters[name]!);
    seq += 1;
    const q: QuoteRecord = {
      id: `quo_x${seq}`,
      reporterId: reporter!.id,
      organisationId: reporter!.organisationId,
      market: 'EUR',
      buy: micros(buy),
      sell: micros(sell),
      observedAt: clock,
      receivedAt: clock,
      place: null,
    };
    await h.store.reporters.addQuotes([q]);
    return h.runtime.services.consensus.recompute('EUR');
  }

  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true, now: () => clock });
    token = (await h.token(['reporters:write'])).token;
    for (const name of ['desk a', 'desk b', 'desk c', 'desk d', 'rogue']) await organisation(name);
    // a, b and the rogue (10 % above): the rogue is excluded, two remain, nothing is published.
    await quote('desk a', 260, 262);
    await quote('desk b', 260.2, 262.2);
    expect((await quote('rogue', 286, 288)).consensus.state).toBe('disagreement');
    clock += 5_000;
    // c completes the quorum: buys 259.9 260 260.2, the median is 260.
    const first = await quote('desk c', 259.9, 261.9);
    expect(first.published).toMatchObject({
      buy: micros(260),
      sell: micros(262),
      organisations: 3,
      excluded: 1,
    });
    // Two minutes on, a moves and d joins: buys 259.9 260.2 262 262.5, the median is 261.1.
    clock += 2 * MINUTE;
    await quote('desk a', 262.5, 264.5);
    const second = await quote('desk d', 262, 264);
    expect(second.published).toMatchObject({ buy: micros(261.1), sell: micros(263.1), organisations: 4 });
  });
  afterAll(async () => h?.close());

  const iso = (ms: number) => new Date(ms).toISOString();

  it('explains the latest point: the quotes used, the organisation excluded with its reason', async () => {
    const res = await run(['consensus', 'explain', '--currency', 'EUR', '--json']);
    expect(res.status, res.stderr).toBe(0);
    const e = res.json();
    expect(e).toMatchObject({
      market: 'EUR',
      at: iso(clock),
      methodVersion: 1,
      buy: 261.1,
      sell: 263.1,
      quality: { organisations: 4, reporters: 4, excluded: 1, confidence: 'medium' },
    });
    const used = e.quotes.filter((q: { used: boolean }) => q.used);
    expect(used.map((q: { reporterId: string }) => q.reporterId).sort()).toEqual(
      ['desk a', 'desk b', 'desk c', 'desk d'].map((n) => reporters[n]).sort(),
    );
    expect(used.find((q: { reporterId: string }) => q.reporterId === reporters['desk a'])).toMatchObject({
      buy: 262.5,
      sell: 264.5,
      organisation: 'desk a',
      ageSeconds: 0,
    });
    const [rogue] = e.quotes.filter((q: { used: boolean }) => !q.used);
    expect(rogue).toMatchObject({
      reporterId: reporters.rogue,
      organisation: 'rogue',
      buy: 286,
      excluded: 'mid',
      ageSeconds: 125,
    });
    expect(rogue.reason).toContain('median mid of the organisations');

    const text = await run(['consensus', 'explain', '--currency', 'EUR']);
    expect(text.stdout).toContain('buy 261.1, sell 263.1');
    expect(text.stdout).toMatch(/rogue excluded: its mid/);
  });

  it('explains the point in force between two points, and names the market and instant when there is none', async () => {
    const between = await run([
      'consensus',
      'explain',
      '--currency',
      'EUR',
      '--at',
      iso(T + MINUTE),
      '--json',
    ]);
    expect(between.status, between.stderr).toBe(0);
    expect(between.json()).toMatchObject({ at: iso(T + 5_000), buy: 260, sell: 262 });
    expect(between.json().quotes).toHaveLength(4);

    const before = await run(['consensus', 'explain', '--currency', 'EUR', '--at', iso(T)]);
    expect(before.status).not.toBe(0);
    expect(before.stderr).toContain(`no consensus point of EUR was published at or before ${iso(T)}`);
    const neither = await run(['consensus', 'explain']);
    expect(neither.stderr).toContain('--currency is required');
  });

  it('answers the same through the admin API, and 404 for a market without a point', async () => {
    const res = await h.call('GET', `/admin/v1/consensus/explain?currency=EUR&at=${iso(T + MINUTE)}`, {
      token,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ market: 'EUR', buy: 260, quality: { excluded: 1 } });
    const none = await h.call('GET', '/admin/v1/consensus/explain?purity=21K', { token });
    expect(none.statusCode).toBe(404);
    expect(none.body).toContain('no consensus point of 21K');
    const forbidden = await h.call('GET', '/admin/v1/consensus/explain?currency=EUR', {
      token: (await h.token(['usage:read'])).token,
    });
    expect(forbidden.statusCode).toBe(403);
  });

  it('verify recomputes every point to what was published, then finds a tampered buy', async () => {
    const clean = await run(['consensus', 'verify', '--json']);
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.json()).toMatchObject({ since: null, checked: 2, differences: [] });
    const api = await h.call('GET', '/admin/v1/consensus/verify', { token });
    expect(api.statusCode, api.body).toBe(200);
    expect(api.json().data).toMatchObject({ checked: 2, differences: [] });

    await tamper(
      h,
      `update consensus_points set buy = buy + 100000 where market = 'EUR' and at = ${T + 5_000}`,
    );
    const found = await run(['consensus', 'verify']);
    expect(found.status).toBe(1);
    expect(found.stderr).toContain('1 differences in 2 points');
    expect(found.stderr).toMatch(new RegExp(`EUR\\s+${iso(T + 5_000)}\\s+buy\\s+260.1\\s+260`));
    const json = await run(['consensus', 'verify', '--json']);
    expect(json.errorJson().error.differences).toEqual([
      { market: 'EUR', at: iso(T + 5_000), field: 'buy', stored: '260.1', recomputed: '260' },
    ]);
    // Since the second point: the tampered one is not checked.
    const since = await run(['consensus', 'verify', '--since', iso(T + MINUTE), '--json']);
    expect(since.status, since.stderr).toBe(0);
    expect(since.json()).toMatchObject({ checked: 1, differences: [] });
    const bad = await run(['consensus', 'verify', '--since', 'yesterday']);
    expect(bad.stderr).toContain('--since: must be an ISO 8601 date-time');
  });

  it('/status lists the market: ok, stale past the parallel threshold, low_quorum once its quotes leave the window', async () => {
    const status = async () => {
      const res = await h.get('/status');
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      // The overall status keeps its meaning: the families' alone.
      const familiesStale = Object.values(data.families).some((f) => (f as { stale: boolean }).stale);
      expect(data.status).toBe(familiesStale ? 'stale' : 'ok');
      return data.consensus;
    };
    expect(await status()).toEqual([
      { market: 'EUR', state: 'ok', lastPublishedAt: iso(clock), ageSeconds: 0 },
    ]);
    const published = clock;
    const threshold = (await h.get('/status')).json().data.families.parallel.thresholdSeconds as number;
    clock += (threshold + 1) * 1000;
    expect(await status()).toEqual([
      { market: 'EUR', state: 'stale', lastPublishedAt: iso(published), ageSeconds: threshold + 1 },
    ]);
    await h.runtime.services.consensus.pass();
    clock += 6_000;
    expect((await status())[0]).toMatchObject({
      market: 'EUR',
      state: 'low_quorum',
      lastPublishedAt: iso(published),
    });
  });

  it('publishes the methodology at /methodology.md, linked from /llms.txt and /docs/', async () => {
    const page = await h.get('/methodology.md');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(page.body).toContain('max(3.5 × 1.4826 × MAD, 1.5 % × m)');
    expect((await h.get('/llms.txt')).body).toContain('(/methodology.md)');
    expect((await h.get('/docs/')).body).toContain('href="/methodology.md"');
  });
});
