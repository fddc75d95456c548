/**
 * The admin API (docs/decisions.md 58) on every backend: provisioning from a
 * billing system (accounts, grants, keys with its ids), Idempotency-Key with
 * Stripe's semantics, the status codes of the operations' refusals, the audit
 * trail of each change with the token as its actor, and the keys it makes
 * working on /v1. Every answer is checked against /admin/openapi.json (the
 * harness's inject).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';
import { withinOneMinute } from '../../support/wait.js';

describe.each(backends())('the admin API on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let tokenId: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend);
    ({ token, publicId: tokenId } = await h.token(undefined, 'billing webhook'));
  });
  afterAll(async () => h?.close());

  const post = (url: string, body: unknown, key?: string) =>
    h.call('POST', url, { token, body, headers: key ? { 'idempotency-key': key } : {} });

  it('a billing webhook retried 5 times at once creates one account and one grant', async () => {
    const account = { name: 'Sarl Atlas', email: 'billing@atlas.example', externalId: 'cus_webhook_1' };
    const accounts = await Promise.all(
      Array.from({ length: 5 }, () => post('/admin/v1/accounts', account, 'evt_1:account')),
    );
    for (const res of accounts) expect(res.statusCode, res.body).toBe(201);
    expect(new Set(accounts.map((r) => r.body)).size).toBe(1);
    expect(accounts.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    const accountId = accounts[0]!.json().data.id;

    const grant = { accountId, plan: 'basic', provider: 'stripe', externalId: 'sub_webhook_1' };
    const grants = await Promise.all(
      Array.from({ length: 5 }, () => post('/admin/v1/grants', grant, 'evt_1:grant')),
    );
    for (const res of grants) expect(res.statusCode, res.body).toBe(201);
    expect(new Set(grants.map((r) => r.body)).size).toBe(1);
    expect(grants.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(4);

    const listed = await h.call('GET', '/admin/v1/accounts?externalId=cus_webhook_1', { token });
    expect(listed.json().data).toHaveLength(1);
    const byProvider = await h.call('GET', '/admin/v1/grants?provider=stripe&externalId=sub_webhook_1', {
      token,
    });
    expect(byProvider.json().data).toHaveLength(1);
    expect(byProvider.json().data[0]).toMatchObject({ accountId, plan: 'basic', status: 'active' });
  });

  it('the same Idempotency-Key with another request is a 409 idempotency_key_reused', async () => {
    expect((await post('/admin/v1/accounts', { name: 'One' }, 'reuse-1')).statusCode).toBe(201);
    expectErrorBody(
      await post('/admin/v1/accounts', { name: 'Two' }, 'reuse-1'),
      409,
      'idempotency_key_reused',
    );
    // The same body in another member order is the same request.
    const a = await post('/admin/v1/accounts', { name: 'Three', email: 'a@b.example' }, 'reuse-2');
    const b = await post('/admin/v1/accounts', { email: 'a@b.example', name: 'Three' }, 'reuse-2');
    expect(b.statusCode).toBe(201);
    expect(b.body).toBe(a.body);
    expect(b.headers['idempotent-replayed']).toBe('true');
  });

  it('keys are per admin token: another token runs its own request under the same key', async () => {
    const other = await h.token(['accounts:write']);
    const a = await post('/admin/v1/accounts', { name: 'Mine' }, 'per-token');
    const b = await h.call('POST', '/admin/v1/accounts', {
      token: other.token,
      body: { name: 'Mine' },
      headers: { 'idempotency-key': 'per-token' },
    });
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().data.id).not.toBe(a.json().data.id);
  });

  it('stores and replays a 4xx; refuses a malformed Idempotency-Key naming the header', async () => {
    const first = await post('/admin/v1/grants', { accountId: 'acc_nope', plan: 'basic' }, 'bad-grant');
    expectErrorBody(first, 400, 'invalid_request', [
      { parameter: 'accountId', message: 'no account acc_nope' },
    ]);
    const again = await post('/admin/v1/grants', { accountId: 'acc_nope', plan: 'basic' }, 'bad-grant');
    expect(again.statusCode).toBe(400);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é']) {
      const res = await h.call('POST', '/admin/v1/accounts', {
        token,
        body: { name: 'x' },
        headers: { 'idempotency-key': bad },
      });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.details[0].parameter).toBe('Idempotency-Key');
    }
  });

  it('a first request that ends in a 5xx releases its key: the retry runs', async () => {
    const createAccount = h.store.access.createAccount;
    h.store.access.createAccount = async () => {
      throw new Error('the disk is on fire');
    };
    try {
      expectErrorBody(
        await post('/admin/v1/accounts', { name: 'Retry' }, 'five-hundred'),
        500,
        'internal_error',
      );
    } finally {
      h.store.access.createAccount = createAccount;
    }
    const retry = await post('/admin/v1/accounts', { name: 'Retry' }, 'five-hundred');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('provisions a customer end to end: the key works on /v1, a roll keeps both, a revoke ends it', async () => {
    const account = (await post('/admin/v1/accounts', { name: 'Flow', externalId: 'cus_flow' })).json().data;
    const grant = (
      await post('/admin/v1/grants', {
        accountId: account.id,
        plan: 'custom',
        scopes: ['assets:read', 'usage:read'],
        monthlyRequestLimit: 1000,
        requestsPerMinute: 60,
        provider: 'stripe',
        externalId: 'sub_flow',
      })
    ).json().data;
    expect(grant).toMatchObject({ plan: 'custom', monthlyRequestLimit: 1000, provider: 'stripe' });
    const created = await post('/admin/v1/keys', { grantId: grant.id, label: 'production' });
    expect(created.statusCode).toBe(201);
    const { key, apiKey } = created.json().data;
    expect(key.startsWith(`${apiKey.prefix}_`)).toBe(true);
    expect(apiKey).toMatchObject({ accountId: account.id, plan: 'custom', label: 'production' });
    expect((await h.get('/v1/assets', key)).statusCode).toBe(200);

    const listed = await h.call('GET', `/admin/v1/keys?accountId=${account.id}`, { token });
    expect(listed.json().data.map((k: { publicId: string }) => k.publicId)).toEqual([apiKey.publicId]);
    expect(listed.body).not.toContain(key);
    const got = await h.call('GET', `/admin/v1/keys/${apiKey.publicId}`, { token });
    // The use above is recorded in the background (src/access/key-activity.ts): its
    // lastUsedAt may already be written, or not yet; everything else is as created.
    const { lastUsedAt, ...rest } = got.json().data;
    expect(rest).toEqual({ ...apiKey, lastUsedAt: undefined });
    if (lastUsedAt !== null)
      expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(apiKey.createdAt));

    const rolled = await post(`/admin/v1/keys/${apiKey.publicId}/roll`, { gracePeriodSeconds: 3600 });
    expect(rolled.statusCode).toBe(201);
    const roll = rolled.json().data;
    expect(roll.previous.publicId).toBe(apiKey.publicId);
    expect(roll.apiKey.publicId).not.toBe(apiKey.publicId);
    expect(roll.gracePeriodSeconds).toBe(3600);
    expect(Date.parse(roll.previous.expiresAt)).toBeGreaterThan(Date.now());
    await h.refresh();
    expect((await h.get('/v1/assets', key)).statusCode).toBe(200);
    expect((await h.get('/v1/assets', roll.key)).statusCode).toBe(200);

    const revoked = await post(`/admin/v1/keys/${roll.apiKey.publicId}/revoke`, undefined);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.status).toBe('revoked');
    await h.refresh();
    expect((await h.get('/v1/assets', roll.key)).statusCode).toBe(401);
    expectErrorBody(await post(`/admin/v1/keys/${roll.apiKey.publicId}/roll`, {}), 409, 'conflict');

    const audit = await h.call('GET', `/admin/v1/audit?targetId=${grant.id}`, { token });
    expect(audit.statusCode).toBe(200);
    const [record] = audit.json().data;
    expect(record).toMatchObject({
      action: 'grant.create',
      targetId: grant.id,
      actor: { id: tokenId, label: 'billing webhook' },
    });
    expect(record.requestId).toMatch(/^req_/);
    const all = await h.call('GET', `/admin/v1/audit?actor=${tokenId}&limit=1000`, { token });
    expect(all.body).not.toContain(key);
    expect(all.body).not.toContain(roll.key);
  });

  it('lists each key’s effective state beside its stored status: expired, revoked, grant cancelled', async () => {
    const account = (await post('/admin/v1/accounts', { name: 'States' })).json().data;
    const grant = (await post('/admin/v1/grants', { accountId: account.id, plan: 'basic' })).json().data;
    const first = (await post('/admin/v1/keys', { grantId: grant.id })).json().data.apiKey;
    expect(first).toMatchObject({ status: 'active', effectiveStatus: 'active' });
    const roll = (await post(`/admin/v1/keys/${first.publicId}/roll`, { gracePeriodSeconds: 0 })).json().data;
    expect(roll.previous).toMatchObject({ status: 'active', effectiveStatus: 'expired' });
    const states = async () =>
      (await h.call('GET', `/admin/v1/keys?grantId=${grant.id}`, { token }))
        .json()
        .data.map((k: { status: string; effectiveStatus: string }) => [k.status, k.effectiveStatus]);
    expect(await states()).toEqual([
      ['active', 'expired'],
      ['active', 'active'],
    ]);
    await post(`/admin/v1/keys/${roll.apiKey.publicId}/revoke`, undefined);
    expect(await states()).toEqual([
      ['active', 'expired'],
      ['revoked', 'revoked'],
    ]);
    const other = (await post('/admin/v1/keys', { grantId: grant.id })).json().data.apiKey;
    await h.call('PATCH', `/admin/v1/grants/${grant.id}`, { token, body: { status: 'cancelled' } });
    expect((await states())[2]).toEqual(['active', 'grant_cancelled']);
    const got = await h.call('GET', `/admin/v1/keys/${other.publicId}`, { token });
    expect(got.json().data.effectiveStatus).toBe('grant_cancelled');
  });

  it('maps the operations’ refusals: 400 with each field, 404, 409 for a duplicate and an illegal transition', async () => {
    const bad = await post('/admin/v1/accounts', { name: 'x', email: 'not-an-email', extra: 1 });
    expectErrorBody(bad, 400, 'invalid_request', [
      { parameter: 'extra', message: 'is not a field of this operation' },
      { parameter: 'email', message: 'must be an email address' },
    ]);
    expectErrorBody(await h.call('GET', '/admin/v1/accounts/acc_nope', { token }), 404, 'not_found');
    expectErrorBody(await h.call('GET', '/admin/v1/grants/grt_nope', { token }), 404, 'not_found');
    expectErrorBody(await h.call('GET', '/admin/v1/keys/nope', { token }), 404, 'not_found');
    expectErrorBody(await h.call('GET', '/admin/v1/accounts?limit=0', { token }), 400, 'invalid_parameter', [
      { parameter: 'limit', message: 'must be an integer from 1 to 1000' },
    ]);
    expectErrorBody(await h.call('GET', '/admin/v1/grants?cursor=zzz', { token }), 400, 'invalid_cursor', [
      expect.objectContaining({ parameter: 'cursor' }),
    ]);

    const account = (await post('/admin/v1/accounts', { externalId: 'cus_dup' })).json().data;
    expectErrorBody(await post('/admin/v1/accounts', { externalId: 'cus_dup' }), 409, 'conflict');
    const patched = await h.call('PATCH', `/admin/v1/accounts/${account.id}`, {
      token,
      body: { name: 'Renamed', email: null },
    });
    expect(patched.json().data).toMatchObject({ name: 'Renamed', email: null, externalId: 'cus_dup' });

    const grant = (await post('/admin/v1/grants', { accountId: account.id, plan: 'basic' })).json().data;
    const patch = (status: string) =>
      h.call('PATCH', `/admin/v1/grants/${grant.id}`, { token, body: { status } });
    expect((await patch('suspended')).json().data.status).toBe('suspended');
    expect((await patch('cancelled')).json().data.status).toBe('cancelled');
    expectErrorBody(await patch('active'), 409, 'conflict');
  });

  it('answers an unknown path 404 and another method 405 with Allow', async () => {
    expectErrorBody(await h.call('GET', '/admin/v1/nope', { token }), 404, 'route_not_found');
    const res = await h.call('DELETE', '/admin/v1/accounts/acc_x', { token });
    expectErrorBody(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, PATCH');
  });

  it('refuses an API key on an admin route and an admin token on /v1: 401', async () => {
    const apiKey = (await h.newKey()).key;
    const res = await h.call('GET', '/admin/v1/accounts', { token: apiKey });
    expectErrorBody(res, 401, 'invalid_admin_token');
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expectErrorBody(await h.get('/v1/assets', token), 401, 'invalid_api_key');
  });

  it('throttles failed authentication per address: 429 with Retry-After, a valid token still served', async () => {
    // 10 failures a UTC minute: a minute turning after the 10th would leave 20 tries without a 429.
    await withinOneMinute();
    const from = { remoteAddress: '10.9.9.9' };
    let refused: Awaited<ReturnType<AdminHarness['call']>> | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await h.call('GET', '/admin/v1/accounts', { token: 'mdsadm_guess', ...from });
      if (res.statusCode === 429) refused = res;
      else expect(res.statusCode).toBe(401);
    }
    expect(refused).toBeDefined();
    expectErrorBody(refused!, 429, 'too_many_requests');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await h.call('GET', '/admin/v1/accounts', { token, ...from })).statusCode).toBe(200);
  });
});
