/**
 * /admin/v1/organisations and /admin/v1/reporters on every backend
 * (docs/decisions.md 108): a reporter's token shown once, by the create and
 * the roll, stored as a digest and never in a read or the audit log;
 * refusals naming the value and the fix; Idempotency-Key replays; suspend,
 * remove (final) and the scope. Every answer is checked against
 * /admin/openapi.json (the harness's inject).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';

describe.each(backends())('the reporter admin routes on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let organisationId: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token } = await h.token(['reporters:write', 'audit:read'], 'reporters admin'));
    const res = await call('POST', '/admin/v1/organisations', { name: 'Square Port Said' });
    expect(res.statusCode, res.body).toBe(201);
    organisationId = res.json().data.id;
  });
  afterAll(async () => h?.close());

  const call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    h.call(method, url, { token, body, headers });
  const problems = (res: Awaited<ReturnType<typeof call>>) =>
    (res.json().error.details as Array<{ parameter: string; message: string }>).map(
      (d) => `${d.parameter}: ${d.message}`,
    );
  const newReporter = async (markets = ['EUR', 'USD', '21K']) => {
    const res = await call('POST', '/admin/v1/reporters', { organisationId, label: 'Desk 1', markets });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { token: string; reporter: { id: string; status: string } };
  };

  it('creates a reporter: its token once, stored as its digest, never in reads or the audit log', async () => {
    const created = await newReporter();
    expect(created.token).toMatch(/^mdsrep_[a-z0-9]{12}_[0-9A-Za-z]{49}$/);
    expect(created.reporter).toMatchObject({
      organisationId,
      markets: ['EUR', 'USD', '21K'],
      status: 'active',
    });
    expect(created.reporter.id).toMatch(/^rep_/);
    const digest = createHash('sha256').update(created.token).digest('hex');
    expect((await h.store.reporters.findReporterToken(digest))?.reporterId).toBe(created.reporter.id);

    const got = await call('GET', `/admin/v1/reporters/${created.reporter.id}`);
    expect(got.json().data).toEqual(created.reporter);
    const listed = await call('GET', `/admin/v1/reporters?organisationId=${organisationId}`);
    expect(listed.json().data.map((r: { id: string }) => r.id)).toContain(created.reporter.id);
    const audit = await call('GET', `/admin/v1/audit?targetId=${created.reporter.id}`);
    expect(audit.json().data.map((r: { action: string }) => r.action)).toEqual(['reporter.create']);
    for (const res of [got, listed, audit]) {
      expect(res.body).not.toContain('mdsrep_');
      expect(res.body).not.toContain(digest);
    }
  });

  it('replays a create under its Idempotency-Key: one reporter, the same token', async () => {
    const body = { organisationId, label: 'Retry from a phone', markets: ['EUR'] };
    const first = await call('POST', '/admin/v1/reporters', body, { 'idempotency-key': 'rep-create-1' });
    const again = await call('POST', '/admin/v1/reporters', body, { 'idempotency-key': 'rep-create-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const all = await call('GET', '/admin/v1/reporters?limit=1000');
    expect(all.json().data.filter((r: { label: string }) => r.label === 'Retry from a phone')).toHaveLength(
      1,
    );
  });

  it('refuses what cannot be: a taken name, an unknown market or organisation, an empty change', async () => {
    const dup = await call('POST', '/admin/v1/organisations', { name: 'Square Port Said' });
    expect(expectErrorBody(dup, 409, 'conflict').error.message).toContain('"Square Port Said"');

    const market = await call('POST', '/admin/v1/reporters', {
      organisationId,
      label: 'x',
      markets: ['EUR', 'XYZ'],
    });
    expect(problems(market).join()).toContain(
      'markets: "XYZ" is not a market: give a currency of the asset directory',
    );
    const shape = await call('POST', '/admin/v1/reporters', { organisationId, label: 'x', markets: ['eur'] });
    expect(problems(shape)).toEqual([
      'markets.0: must be a currency code such as EUR, or one of 18K, 21K, 24K',
    ]);
    const org = await call('POST', '/admin/v1/reporters', {
      organisationId: 'org_nope',
      label: 'x',
      markets: ['EUR'],
    });
    expect(problems(org)).toEqual([
      'organisationId: no organisation "org_nope": create it first (mds organisations create)',
    ]);
    const { reporter } = await newReporter();
    const empty = await call('PATCH', `/admin/v1/reporters/${reporter.id}`, {});
    expect(problems(empty)).toEqual(['body: nothing to change: give at least one field']);
    expect(
      expectErrorBody(await call('GET', '/admin/v1/reporters/rep_nope'), 404, 'not_found').error.message,
    ).toBe('no reporter rep_nope');
  });

  it('suspends, activates, rolls and removes; a removed reporter stays removed', async () => {
    const { reporter } = await newReporter();
    const url = `/admin/v1/reporters/${reporter.id}`;
    expect((await call('PATCH', url, { status: 'suspended' })).json().data.status).toBe('suspended');
    expect((await call('PATCH', url, { status: 'active', markets: ['USD'] })).json().data).toMatchObject({
      status: 'active',
      markets: ['USD'],
    });
    const rolled = await call('POST', `${url}/roll`, { gracePeriodSeconds: 60 });
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json().data.token).toMatch(/^mdsrep_/);
    expect((await call('POST', `${url}/remove`)).json().data.status).toBe('removed');
    expect((await call('POST', `${url}/remove`)).json().data.status).toBe('removed');
    const reopened = await call('PATCH', url, { status: 'active' });
    expect(expectErrorBody(reopened, 409, 'conflict').error.message).toContain('was removed');
    const audit = await call('GET', `/admin/v1/audit?targetId=${reporter.id}`);
    expect(audit.json().data.map((r: { action: string }) => r.action)).toEqual([
      'reporter.update',
      'reporter.token.roll',
      'reporter.update',
      'reporter.update',
      'reporter.create',
    ]);
    expect(audit.body).not.toContain('mdsrep_');
  });

  it('needs reporters:write, reads included', async () => {
    const { token: other } = await h.token(['accounts:read'], 'no reporters');
    for (const [method, url] of [
      ['GET', '/admin/v1/reporters'],
      ['POST', '/admin/v1/organisations'],
    ] as const) {
      const res = await h.call(method, url, {
        token: other,
        body: method === 'POST' ? { name: 'x' } : undefined,
      });
      expect(expectErrorBody(res, 403, 'insufficient_admin_scope').error.message).toContain(
        'reporters:write',
      );
    }
  });
});
