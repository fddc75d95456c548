/**
 * Usage for invoices and support (docs/decisions.md 62), on every backend:
 * the statement's counts and the daily usage (per key and total) equal the
 * answers that consumed a unit; a month's days add up to its usage; the
 * statement as CSV; the window rules; and GET /v1/usage/daily under the /v1
 * rules (entitlement `usage:read`, one unit, this request counted). Every
 * answer is checked against its document (the harnesses' inject).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthPeriod } from '../../src/domain/dates.js';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { expectErrorBody } from '../support/openapi.js';

const today = () => new Date().toISOString().slice(0, 10);

/** Polls `read` until `done` holds or the deadline passes, then returns the last value. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, deadlineMs = 10_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(backends())('usage for invoices on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let grantA: string;
  let grantB: string;
  let accountA: string;
  const keys: Record<'a1' | 'a2' | 'b1', { key: string; publicId: string }> = {} as never;
  const sent = { a1: 3, a2: 2, b1: 4 };

  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token } = await h.token(['accounts:write', 'keys:write', 'usage:read']));
    const post = async (url: string, body: unknown) => {
      const res = await h.call('POST', url, { token, body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data;
    };
    accountA = (await post('/admin/v1/accounts', { name: 'Atlas', externalId: 'cus_usage_a' })).id;
    const accountB = (await post('/admin/v1/accounts', { name: 'Borj' })).id;
    grantA = (
      await post('/admin/v1/grants', {
        accountId: accountA,
        plan: 'pro',
        provider: 'stripe',
        externalId: 'sub_usage_a',
      })
    ).id;
    grantB = (await post('/admin/v1/grants', { accountId: accountB, plan: 'basic' })).id;
    const key = async (grantId: string) => {
      const data = await post('/admin/v1/keys', { grantId });
      return { key: data.key, publicId: data.apiKey.publicId };
    };
    keys.a1 = await key(grantA);
    keys.a2 = await key(grantA);
    keys.b1 = await key(grantB);
    for (const [name, n] of Object.entries(sent) as Array<[keyof typeof sent, number]>) {
      for (let i = 0; i < n; i++) {
        const res = await h.get('/v1/assets', keys[name].key);
        expect(res.statusCode, res.body).toBe(200);
      }
    }
    // A refused request consumes nothing: not counted.
    expect((await h.get('/v1/rates/history?currency=EUR&from=2026-02-30', keys.a1.key)).statusCode).toBe(400);
  });
  afterAll(async () => h?.close());

  const daily = (grantId: string, query = '') =>
    h.call('GET', `/admin/v1/grants/${grantId}/usage/daily${query}`, { token });

  it('the daily usage, per key and total, equals the answers that consumed a unit', async () => {
    const res = await until(
      () => daily(grantA),
      (r) => r.json().data?.requests === sent.a1 + sent.a2,
    );
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ grantId: grantA, to: today(), requests: sent.a1 + sent.a2 });
    expect(data.from).toBe(`${today().slice(0, 8)}01`);
    expect(data.days.at(-1)).toEqual({
      day: today(),
      requests: sent.a1 + sent.a2,
      keys: [
        { publicId: keys.a1.publicId, requests: sent.a1 },
        { publicId: keys.a2.publicId, requests: sent.a2 },
      ].sort((x, y) => (x.publicId < y.publicId ? -1 : 1)),
    });
    // Every day of the window is listed, oldest first.
    expect(data.days.map((d: { day: string }) => d.day)[0]).toBe(data.from);
    expect(data.days).toHaveLength(Number(today().slice(8, 10)));
  });

  it('the statement counts each grant’s answers, with the billing system’s ids', async () => {
    const month = today().slice(0, 7);
    const res = await until(
      () => h.call('GET', `/admin/v1/usage/statement?month=${month}`, { token }),
      (r) => r.json().data?.find((l: { grant: { id: string } }) => l.grant.id === grantB)?.requestsUsed === 4,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta.month).toBe(month);
    const lines = res.json().data as Array<{ grant: { id: string } }>;
    expect(lines.find((l) => l.grant.id === grantA)).toEqual({
      account: { id: accountA, externalId: 'cus_usage_a' },
      grant: {
        id: grantA,
        plan: 'pro',
        provider: 'stripe',
        externalId: 'sub_usage_a',
        status: 'active',
        cancelledAt: null,
      },
      requestsUsed: sent.a1 + sent.a2,
      monthlyRequestLimit: 1_000_000,
    });
    expect(lines.find((l) => l.grant.id === grantB)).toMatchObject({
      grant: { id: grantB, plan: 'basic', provider: 'manual', externalId: null },
      requestsUsed: sent.b1,
    });
    // A month before any grant existed has no line.
    const before = await h.call('GET', '/admin/v1/usage/statement?month=2001-01', { token });
    expect(before.json().data).toEqual([]);
  });

  it('the days of a month add up to the month’s usage', async () => {
    const period = monthPeriod(Date.now());
    for (const grantId of [grantA, grantB]) {
      const res = await daily(grantId);
      const sum = res.json().data.days.reduce((n: number, d: { requests: number }) => n + d.requests, 0);
      expect(sum).toBe(res.json().data.requests);
      expect(sum).toBe(await h.store.usage.getUsage(grantId, period.key));
    }
  });

  it('answers the statement as CSV when Accept asks for it', async () => {
    const res = await h.call('GET', `/admin/v1/usage/statement?month=${today().slice(0, 7)}`, {
      token,
      headers: { accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.split('\r\n');
    expect(lines[0]).toBe(
      'account_id,account_externalId,grant_id,grant_plan,grant_provider,grant_externalId,grant_status,grant_cancelledAt,requestsUsed,monthlyRequestLimit',
    );
    expect(lines).toContain(`${accountA},cus_usage_a,${grantA},pro,stripe,sub_usage_a,active,,5,1000000`);
    expect(res.body.endsWith('\r\n')).toBe(true);
    // JSON by default, and when JSON ranks first.
    const json = await h.call('GET', '/admin/v1/usage/statement', {
      token,
      headers: { accept: 'application/json, text/csv;q=0.5' },
    });
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });

  it('refuses a bad window or month naming the parameter', async () => {
    const cases: Array<[string, string, string]> = [
      ['?from=2026-02-30', 'from', 'must be a real calendar date as YYYY-MM-DD'],
      ['?to=yesterday', 'to', 'must be a real calendar date as YYYY-MM-DD'],
      ['?from=2026-03-02&to=2026-03-01', 'from', 'must not be after `to`'],
      ['?from=2025-01-01&to=2026-01-02', 'from', 'the window from `from` to `to` must not exceed 366 days'],
      ['?days=3', 'days', ''],
    ];
    for (const [query, parameter, message] of cases) {
      const res = await daily(grantA, query);
      expectErrorBody(res, 400, 'invalid_parameter', expect.any(Array));
      expect(res.json().error.details[0].parameter, query).toBe(parameter);
      if (message) expect(res.json().error.details[0].message, query).toBe(message);
    }
    // 366 days is the largest window.
    expect((await daily(grantA, '?from=2025-01-01&to=2026-01-01')).statusCode).toBe(200);
    for (const month of ['2026-13', '2026-1', 'november']) {
      const res = await h.call('GET', `/admin/v1/usage/statement?month=${month}`, { token });
      expectErrorBody(res, 400, 'invalid_parameter', [
        { parameter: 'month', message: 'must be a calendar month as YYYY-MM, such as 2027-01' },
      ]);
    }
    expectErrorBody(await daily('grt_nope'), 404, 'not_found');
  });

  describe('GET /v1/usage/daily', () => {
    it('answers the key’s grant, its total and each key, counting this request', async () => {
      const before = (await daily(grantA)).json().data.requests;
      const res = await h.get('/v1/usage/daily', keys.a1.key);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['x-monthly-quota-remaining']).toBeDefined();
      const { data, meta } = res.json();
      expect(meta.requestId).toBe(res.headers['x-request-id']);
      expect(data.grantId).toBe(grantA);
      expect(data.requests).toBe(before + 1);
      const day = data.days.at(-1);
      expect(day.day).toBe(today());
      expect(day.keys.find((k: { publicId: string }) => k.publicId === keys.a1.publicId).requests).toBe(
        sent.a1 + 1,
      );
      // Another grant's key sees only its own grant.
      const other = (await h.get('/v1/usage/daily', keys.b1.key)).json().data;
      expect(other.grantId).toBe(grantB);
      expect(other.days.at(-1).keys.map((k: { publicId: string }) => k.publicId)).toEqual([keys.b1.publicId]);
    });

    it('takes a window of at most 366 days; a bad one is a 400 naming it and costs nothing', async () => {
      const ok = await h.get('/v1/usage/daily?from=2026-01-01&to=2026-01-03', keys.a2.key);
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data.days.map((d: { day: string }) => d.day)).toEqual([
        '2026-01-01',
        '2026-01-02',
        '2026-01-03',
      ]);
      const remaining = Number(ok.headers['x-monthly-quota-remaining']);
      const res = await h.get('/v1/usage/daily?from=2024-01-01&to=2026-01-01', keys.a2.key);
      expectErrorBody(res, 400, 'invalid_parameter', [
        { parameter: 'from', message: 'the window from `from` to `to` must not exceed 366 days' },
      ]);
      expect(Number(res.headers['x-monthly-quota-remaining'])).toBe(remaining);
      expectErrorBody(await h.get('/v1/usage/daily?to=2026-02-30', keys.a2.key), 400, 'invalid_parameter', [
        { parameter: 'to', message: 'must be a real calendar date as YYYY-MM-DD' },
      ]);
    });

    it('a key without usage:read is a 403 naming the entitlement', async () => {
      const { key } = await h.newKey({ scopes: ['assets:read'] });
      expectErrorBody(await h.get('/v1/usage/daily', key), 403, 'insufficient_scope', [
        { entitlement: 'usage:read' },
      ]);
    });
  });
  it('the statement carries each grant’s status and when it was cancelled, in JSON and CSV', async () => {
    const before = Date.now();
    const cancelled = await h.call('PATCH', `/admin/v1/grants/${grantB}`, {
      token,
      body: { status: 'cancelled' },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const after = Date.now();
    const month = today().slice(0, 7);
    const res = await h.call('GET', `/admin/v1/usage/statement?month=${month}`, { token });
    const line = res.json().data.find((l: { grant: { id: string } }) => l.grant.id === grantB);
    expect(line.grant.status).toBe('cancelled');
    const at = Date.parse(line.grant.cancelledAt);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    const csv = await h.call('GET', `/admin/v1/usage/statement?month=${month}`, {
      token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.body).toContain(`,${grantB},basic,manual,,cancelled,${line.grant.cancelledAt},`);
    expect(res.json().data.find((l: { grant: { id: string } }) => l.grant.id === grantA).grant).toMatchObject(
      {
        status: 'active',
        cancelledAt: null,
      },
    );
  });
});
