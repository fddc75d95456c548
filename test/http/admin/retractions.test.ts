/**
 * POST /admin/v1/data/retractions (docs/decisions.md, 105 and 106) on every
 * backend: a retracted observation leaves the latest rates, the history, the
 * premium (latest and history) and their CSV once the instance's watcher has
 * polled; the answer says what it published and what latest is now; a dry
 * run changes nothing; Idempotency-Key replays; a missing observation is a
 * 404 naming it, a second retraction a 409; an import leaves the record out
 * unless `reinstate=true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';

const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const at = (daysAgo: number) => new Date(today - daysAgo * DAY + 9 * 3_600_000).toISOString();
const rate = (source: string, daysAgo: number, buy: number) =>
  JSON.stringify({ currency: 'EUR', source, buy, sell: buy + 2, updatedAt: at(daysAgo) });
const TYPO = at(1);

describe.each(backends())('retracting an observation over the admin API on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let tokenId: string;
  let key: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend);
    ({ token, publicId: tokenId } = await h.token(['data:write', 'audit:read'], 'desk'));
    ({ key } = await h.newKey());
    const assets =
      '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}\n';
    await importBody('assets', assets);
    await importBody(
      'rates',
      [rate('official', 2, 150), rate('parallel', 2, 250), rate('parallel', 1, 999)].join('\n'),
    );
    await importBody('gold', `{"purity":"21K","buy":18400,"sell":18800,"updatedAt":"${at(1)}"}\n`);
    await h.watcherCaughtUp();
  });
  afterAll(async () => h?.close());

  // The typo is an outlier by design: the imports say it was reviewed.
  async function importBody(kind: string, body: string, query = '') {
    const res = await h.call('POST', `/admin/v1/data/${kind}?acceptOutliers=true${query}`, {
      token,
      body,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  }
  const retract = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    h.call('POST', '/admin/v1/data/retractions', { token, body, headers });
  const served = async () => {
    const latest = (await h.get('/v1/rates/latest?currency=EUR&source=parallel', key)).json().data;
    const history = (await h.get('/v1/rates/history?currency=EUR&source=parallel', key)).json().data;
    const csv = (await h.get('/v1/rates/history?currency=EUR&source=parallel', key, { accept: 'text/csv' }))
      .body;
    const premium = (await h.get('/v1/market/premium?currency=EUR', key)).json().data;
    const premiumHistory = (await h.get('/v1/market/premium/history?currency=EUR', key)).json().data;
    const premiumCsv = (await h.get('/v1/market/premium/history?currency=EUR', key, { accept: 'text/csv' }))
      .body;
    return { latest, history, csv, premium, premiumHistory, premiumCsv };
  };
  const EUR_TYPO = { currency: 'EUR', source: 'parallel', at: TYPO, reason: 'EUR typed for GBP' };

  it('a dry run answers what latest would become and changes nothing', async () => {
    const before = await served();
    // Every view shows the typo first, so that its absence later means something.
    for (const view of ['latest', 'history', 'csv', 'premium'] as const) {
      expect(JSON.stringify(before[view]), view).toContain('999');
    }
    expect(JSON.stringify(before.premiumHistory)).toContain(TYPO.slice(0, 10));
    expect(before.premiumCsv).toContain(TYPO.slice(0, 10));
    const res = await retract({ ...EUR_TYPO, dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      retraction: {
        id: null,
        kind: 'rates',
        code: 'EUR',
        source: 'parallel',
        updatedAt: TYPO,
        buy: 999,
        sell: 1001,
        reason: 'EUR typed for GBP',
        actor: { id: tokenId, label: 'desk' },
        retractedAt: expect.any(String),
      },
      latest: { updatedAt: at(2), buy: 250, sell: 252 },
      dryRun: true,
    });
    await h.watcherCaughtUp();
    expect(await served()).toEqual(before);
  });

  it('retracts it from latest, history, premium and CSV; replays under its Idempotency-Key; audits it', async () => {
    const headers = { 'idempotency-key': 'retract-eur-typo' };
    const res = await retract(EUR_TYPO, headers);
    expect(res.statusCode, res.body).toBe(200);
    const { retraction, latest, dryRun } = res.json().data;
    expect(retraction).toMatchObject({
      id: expect.stringMatching(/^ret_/),
      buy: 999,
      reason: 'EUR typed for GBP',
    });
    expect({ latest, dryRun }).toEqual({ latest: { updatedAt: at(2), buy: 250, sell: 252 }, dryRun: false });
    const replay = await retract(EUR_TYPO, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data).toEqual(res.json().data);

    await h.watcherCaughtUp();
    const now = await served();
    for (const [what, value] of Object.entries(now)) {
      expect(JSON.stringify(value), what).not.toContain('999');
      expect(JSON.stringify(value), what).not.toContain(TYPO.slice(0, 10));
    }
    expect(now.latest).toMatchObject([{ currency: 'EUR', buy: 250, updatedAt: at(2) }]);
    expect(now.history.map((r: { updatedAt: string }) => r.updatedAt)).toEqual([at(2)]);

    const audit = await h.call('GET', `/admin/v1/audit?action=data.retract&actor=${tokenId}`, { token });
    expect(audit.json().data).toMatchObject([
      {
        actor: { id: tokenId, label: 'desk' },
        targetId: retraction.id,
        changes: { buy: { before: null, after: 999 }, reason: { before: null, after: 'EUR typed for GBP' } },
      },
    ]);
  });

  it('answers a second retraction 409 and a missing observation 404, naming the series and instant', async () => {
    const again = expectErrorBody(await retract(EUR_TYPO), 409, 'conflict').error;
    expect(again.message).toContain(`EUR parallel at ${TYPO} was already retracted`);
    const missing = expectErrorBody(await retract({ ...EUR_TYPO, at: at(3) }), 404, 'not_found').error;
    expect(missing.message).toContain(`no EUR parallel observation at ${at(3)}`);
    expectErrorBody(await retract({ ...EUR_TYPO, purity: '21K' }), 400, 'invalid_request', [
      { parameter: 'purity', message: expect.stringContaining('give purity alone') },
    ]);
    expectErrorBody(await retract({ purity: '21K', at: TYPO, reason: ' ' }), 400, 'invalid_request', [
      { parameter: 'reason', message: 'must be 1 to 500 characters, not blank' },
    ]);
  });

  it('retracts a gold price by its purity', async () => {
    const res = await retract({ purity: '21K', at: at(1), reason: 'wrong purity' });
    expect(res.json().data).toMatchObject({
      retraction: { kind: 'gold', code: '21K', source: 'gold' },
      latest: null,
    });
    await h.watcherCaughtUp();
    const gold = await h.get('/v1/gold/latest', key);
    expect(gold.body).not.toContain('18400');
  });

  it('an import leaves the record out, counted, unless it says reinstate=true', async () => {
    const body = `${rate('parallel', 2, 250)}\n${rate('parallel', 1, 999)}\n`;
    // The guards judge what will be written: the retracted 999 is no outlier to review, until it is reinstated.
    const plain = (query: string) =>
      h.call('POST', `/admin/v1/data/rates${query}`, {
        token,
        body,
        headers: { 'content-type': 'application/x-ndjson' },
      });
    const left = await plain('');
    expect(left.statusCode, left.body).toBe(200);
    expect(left.json().data).toMatchObject({ received: 2, unchanged: 1, retracted: 1, reinstated: 0 });
    expectErrorBody(await plain('?reinstate=true'), 400, 'invalid_request', [
      { parameter: 'line 2', message: expect.stringContaining('--accept-outliers') },
    ]);
    await h.watcherCaughtUp();
    expect(JSON.stringify((await served()).latest)).not.toContain('999');
    expect(await importBody('rates', body, '&reinstate=true')).toMatchObject({
      inserted: 1,
      retracted: 0,
      reinstated: 1,
    });
    await h.watcherCaughtUp();
    expect((await served()).latest).toMatchObject([{ buy: 999, updatedAt: TYPO }]);
  });
});
