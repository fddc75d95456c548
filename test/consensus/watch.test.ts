/**
 * Watching reporters (docs/decisions.md 116, 117) on a running server, on
 * SQLite and PostgreSQL: quotes sent through the reporter API, statistics and
 * flags read through the admin API and the CLI, `reporter.flagged` delivered
 * to a real receiver. An honest reporter whose organisation has a rogue
 * colleague is judged on its own quotes: not flagged, while the rogue is,
 * once however many more rogue quotes it sends, and again only after it was
 * no longer flagged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/webhooks/settings.js';
import { TEST_ACTOR } from '../support/admin.js';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import { mdsInProcess } from '../support/cli.js';
import { SAMPLE_END } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FAST = {
  ...DEFAULT_WEBHOOK_SETTINGS,
  policy: { allowHttp: true, allowPrivate: true },
  pollMs: 50,
};

describe.each(backends())('watching reporters on $name', (backend: Backend) => {
  let db: Database;
  let server: RunningServer;
  let receiver: WebhookReceiver;
  let token: string;

  const call = async (method: string, path: string, bearer: string, body?: unknown) => {
    const res = await fetch(`${server.adminUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBeLessThan(300);
    return JSON.parse(text).data;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/admin/v1${path}`, token, body);
  const organisation = async (name: string): Promise<string> =>
    (await admin('POST', '/organisations', { name })).id;
  const reporter = async (organisationId: string) =>
    (await admin('POST', '/reporters', { organisationId, label: 'Desk', markets: ['EUR'] })) as {
      token: string;
      reporter: { id: string };
    };
  const quotes = (bearer: string, buy: string, sell: string, n: number) =>
    call('POST', '/report/v1/quotes/batch', bearer, {
      quotes: Array.from({ length: n }, () => ({ market: 'EUR', buy, sell })),
    });

  beforeAll(async () => {
    db = await freshDatabase(backend.name);
    const store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: SAMPLE_END, days: 2 }));
    const created = await createAdminToken(store, TEST_ACTOR, {
      label: 'watch',
      scopes: ['reporters:write', 'webhooks:write'],
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    token = created.value.token;
    await store.close();
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      adminPort: 0,
      databaseUrl: db.url,
      redisUrl: backend.redisUrl,
      redisPrefix: backend.redisPrefix,
      logLevel: 'silent',
      drainMs: 0,
      webhooks: FAST,
    });
    receiver = await startReceiver();
    const sub = await admin('POST', '/webhooks', { url: receiver.url, eventTypes: ['reporter.flagged'] });
    receiver.secrets = [sub.secret];
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
  });

  it('flags the rogue, not its honest colleague, and says so once', async () => {
    const store = server.runtime.services.store;
    const a = await reporter(await organisation('Desk A'));
    const b = await reporter(await organisation('Desk B'));
    const c = await reporter(await organisation('Desk C'));
    const shared = await organisation('Desk D');
    const honest = await reporter(shared);
    const rogue = await reporter(shared);

    // Three organisations make the first point: buy median 259.5, sell median 261, mid 260.25.
    await quotes(a.token, '259.5', '261', 1);
    await quotes(b.token, '259', '261.2', 1);
    await quotes(c.token, '259.8', '260.9', 1);
    await waitFor(async () => (await store.consensus.marketState('EUR'))?.last?.buy === 259_500_000, {
      what: () => 'the first EUR point',
    });

    // Desk D's median (honest and rogue together) is about 5 % off: the organisation is excluded.
    await quotes(honest.token, '259.6', '261.1', 20);
    await quotes(rogue.token, '285.5', '287.5', 20);

    const [flagged] = await receiver.waitForAccepted('reporter.flagged');
    expect(flagged!.payload.data).toMatchObject({
      reporterId: rogue.reporter.id,
      organisationId: shared,
      failed: 20,
      sample: 20,
    });

    const listed = (await admin('GET', '/reporters?limit=100')) as { id: string; flagged: boolean }[];
    const flags = Object.fromEntries(listed.map((r) => [r.id, r.flagged]));
    expect(flags).toEqual({
      [a.reporter.id]: false,
      [b.reporter.id]: false,
      [c.reporter.id]: false,
      [honest.reporter.id]: false,
      [rogue.reporter.id]: true,
    });

    // Judged against the point in force, by hand: (286.5 − 260.25) / 260.25 = 10.09 %; (260.35 − 260.25) / 260.25 = 0.04 %.
    expect(await admin('GET', `/reporters/${rogue.reporter.id}/stats`)).toMatchObject({
      reporterId: rogue.reporter.id,
      organisationId: shared,
      quotes: 20,
      judged: 20,
      failed: 20,
      failedPercent: 100,
      medianDeviationPercent: 10.09,
      flagged: true,
      lastQuotes: { sample: 20, failed: 20 },
    });
    expect(await admin('GET', `/reporters/${honest.reporter.id}/stats`)).toMatchObject({
      quotes: 20,
      judged: 20,
      failed: 0,
      failedPercent: 0,
      medianDeviationPercent: 0.04,
      flagged: false,
    });

    // The CLI reads the same.
    const run = (args: string[]) => mdsInProcess(args, { db: db.url });
    const list = await run(['reporters', 'list', '--json']);
    expect(list.status, list.stderr).toBe(0);
    expect(
      list
        .json()
        .reporters.filter((r: { flagged: boolean }) => r.flagged)
        .map((r: { id: string }) => r.id),
    ).toEqual([rogue.reporter.id]);
    const stats = await run(['reporters', 'stats', honest.reporter.id, '--json']);
    expect(stats.json().statistics).toMatchObject({
      failed: 0,
      medianDeviationPercent: 0.04,
      flagged: false,
    });
    const table = await run(['reporters', 'stats']);
    expect(table.status, table.stderr).toBe(0);
    const rogueLine = table.stdout.split('\n').find((l) => l.startsWith(rogue.reporter.id));
    expect(rogueLine).toMatch(/20\/20 failed\s+yes$/);
    expect((await run(['reporters', 'list'])).stdout).toMatch(new RegExp(`${rogue.reporter.id}.*yes`));

    // Still flagged after more rogue quotes: no second event.
    await quotes(rogue.token, '285', '287', 3);
    await waitFor(async () => (await store.reporters.recentQuotes(rogue.reporter.id, 30)).length === 23);
    const polls = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 10 * FAST.pollMs));
    expect(receiver.received.length).toBe(polls);
    expect(receiver.accepted('reporter.flagged')).toHaveLength(1);

    // Back to honest quotes: 6 failures left in its last 20, not flagged; recorded without an event.
    await quotes(rogue.token, '259.6', '261.1', 14);
    await waitFor(async () => (await store.setting(`webhooks.flagged.${rogue.reporter.id}`)) === 'ok', {
      what: () => 'the rogue no longer flagged',
    });
    expect((await admin('GET', `/reporters/${rogue.reporter.id}/stats`)).lastQuotes).toEqual({
      sample: 20,
      failed: 6,
    });
    // Rogue again: each of its first 6 pushes an older failure out; the 7th makes 7 of 20, a new flagging.
    await quotes(rogue.token, '285.5', '287.5', 7);
    const events = await receiver.waitForAccepted('reporter.flagged', 2);
    expect(events.map((e) => e.payload.data.failed)).toEqual([20, 7]);
    expect(new Set(events.map((e) => e.payload.data.reporterId))).toEqual(new Set([rogue.reporter.id]));
  });

  it('answers 404 for statistics of no reporter', async () => {
    const res = await fetch(`${server.adminUrl}/admin/v1/reporters/rep_nobody/stats`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'no reporter rep_nobody',
    );
  });
});
