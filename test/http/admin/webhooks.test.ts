/**
 * /admin/v1/webhooks on every backend (docs/webhooks.md, docs/decisions.md
 * 68): the secret shown once, by the create and each rotation, and never in a
 * read or the audit log; the target policy on the URL (https only, public
 * addresses only, unless MDS_WEBHOOK_ALLOW_HTTP / MDS_WEBHOOK_ALLOW_PRIVATE);
 * event types and a rate alert's filter; disable, enable, delete; the
 * deliveries and a redelivery; the scope; and the typed admin client over the
 * same routes. Every answer is checked against /admin/openapi.json (the
 * harness's inject).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsAdminClient } from '../../../packages/client/src/admin.js';
import { keyCreated } from '../../../src/domain/webhook-builders.js';
import type { TargetPolicy } from '../../../src/webhooks/targets.js';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';

const SCOPES = ['webhooks:write', 'accounts:write', 'audit:read'];
const URL_OK = 'https://example.com/hooks/mds';
const DAY_MS = 86_400_000;

describe.each(backends())('the webhook admin routes on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token } = await h.token(SCOPES, 'webhook admin'));
  });
  afterAll(async () => h?.close());

  /** The policy the routes apply from now (a copy: the defaults object is shared). */
  const policy = (p: TargetPolicy) => {
    h.runtime.services.webhooks = { ...h.runtime.services.webhooks, policy: p };
  };
  const strict = () => policy({ allowHttp: false, allowPrivate: false });
  const call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    h.call(method, url, { token, body, headers });
  const create = (body: Record<string, unknown>) => call('POST', '/admin/v1/webhooks', body);
  const created = async (body: Record<string, unknown>) => {
    const res = await create(body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; secret: string } & Record<string, unknown>;
  };
  const problems = (res: Awaited<ReturnType<typeof call>>) =>
    (res.json().error.details as Array<{ parameter: string; message: string }>).map(
      (d) => `${d.parameter}: ${d.message}`,
    );

  it('shows the secret in the create answer only; reads never hold it', async () => {
    strict();
    const res = await create({ url: URL_OK, eventTypes: ['key.created', 'key.revoked'], description: 'CRM' });
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json().data;
    expect(hook).toMatchObject({
      url: URL_OK,
      eventTypes: ['key.created', 'key.revoked'],
      accountId: null,
      filter: null,
      description: 'CRM',
      status: 'enabled',
      disabledReason: null,
      alertActive: false,
      previousSecretExpiresAt: null,
    });
    expect(hook.id).toMatch(/^whk_/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const got = await call('GET', `/admin/v1/webhooks/${hook.id}`);
    expect(got.statusCode).toBe(200);
    const { secret: _, ...withoutSecret } = hook;
    expect(got.json().data).toEqual(withoutSecret);
    const listed = await call('GET', '/admin/v1/webhooks?limit=1000');
    expect(listed.json().data.map((w: { id: string }) => w.id)).toContain(hook.id);
    for (const body of [got.body, listed.body]) expect(body).not.toContain('whsec_');
  });

  it('replays a create under its Idempotency-Key: one subscription, the same secret', async () => {
    strict();
    const body = { url: URL_OK, eventTypes: ['data.imported'] };
    const first = await call('POST', '/admin/v1/webhooks', body, { 'idempotency-key': 'whk-create-1' });
    const again = await call('POST', '/admin/v1/webhooks', body, { 'idempotency-key': 'whk-create-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('audits create, update, rotation and delete without any secret', async () => {
    strict();
    const hook = await created({ url: URL_OK, eventTypes: ['grant.updated'] });
    expect(
      (await call('PATCH', `/admin/v1/webhooks/${hook.id}`, { description: 'renamed' })).statusCode,
    ).toBe(200);
    const rotated = await call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect((await call('DELETE', `/admin/v1/webhooks/${hook.id}`)).statusCode).toBe(204);

    const audit = await call('GET', `/admin/v1/audit?targetId=${hook.id}`);
    expect(audit.statusCode).toBe(200);
    expect(audit.json().data.map((r: { action: string }) => r.action)).toEqual([
      'webhook.delete',
      'webhook.rotate_secret',
      'webhook.update',
      'webhook.create',
    ]);
    expect(audit.body).not.toContain('whsec_');
    expect(audit.body).not.toContain(hook.secret);
    expect(audit.body).not.toContain(rotated.json().data.secret);
  });

  it('refuses a token without webhooks:write: 403 naming the scope', async () => {
    const other = await h.token(['accounts:read', 'accounts:write', 'keys:write']);
    for (const [method, url] of [
      ['GET', '/admin/v1/webhooks'],
      ['POST', '/admin/v1/webhooks'],
      ['GET', '/admin/v1/webhooks/whk_x'],
    ] as const) {
      const res = await h.call(method, url, {
        token: other.token,
        body: method === 'POST' ? { url: URL_OK, eventTypes: ['key.created'] } : undefined,
      });
      expect(expectErrorBody(res, 403, 'insufficient_admin_scope').error.message).toContain('webhooks:write');
    }
  });

  it('refuses http:// unless MDS_WEBHOOK_ALLOW_HTTP, naming the URL and the setting', async () => {
    strict();
    const body = { url: 'http://example.com/hooks', eventTypes: ['key.created'] };
    const refused = await create(body);
    expectErrorBody(refused, 400, 'invalid_request', [
      { parameter: 'url', message: expect.stringContaining('MDS_WEBHOOK_ALLOW_HTTP') },
    ]);
    expect(problems(refused)[0]).toContain('http://example.com/hooks');
    policy({ allowHttp: true, allowPrivate: false });
    expect((await create(body)).statusCode).toBe(201);
    strict();
  });

  it('refuses private and loopback addresses unless MDS_WEBHOOK_ALLOW_PRIVATE', async () => {
    strict();
    for (const url of [
      'https://10.0.0.1/x',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://localhost/x',
    ]) {
      const res = await create({ url, eventTypes: ['key.created'] });
      expectErrorBody(res, 400, 'invalid_request', [
        { parameter: 'url', message: expect.stringContaining('MDS_WEBHOOK_ALLOW_PRIVATE') },
      ]);
    }
    const hook = await created({ url: URL_OK, eventTypes: ['key.created'] });
    // A change is held to the same rule.
    expect(
      problems(await call('PATCH', `/admin/v1/webhooks/${hook.id}`, { url: 'https://10.0.0.1/x' })),
    ).toEqual([expect.stringMatching(/^url: .*10\.0\.0\.1.*MDS_WEBHOOK_ALLOW_PRIVATE/)]);
    policy({ allowHttp: false, allowPrivate: true });
    for (const url of ['https://10.0.0.1/x', 'https://127.0.0.1/x'])
      expect((await create({ url, eventTypes: ['key.created'] })).statusCode).toBe(201);
    strict();
  });

  it('checks the event types: at least one, each known, each once', async () => {
    strict();
    expect(problems(await create({ url: URL_OK, eventTypes: [] }))).toEqual([
      'eventTypes: must list at least one event type, each once',
    ]);
    expect(problems(await create({ url: URL_OK, eventTypes: ['key.created', 'key.made'] }))).toEqual([
      expect.stringMatching(
        /^eventTypes\.1: must be one of usage\.threshold, .*rate\.alert, reporter\.flagged$/,
      ),
    ]);
    expect(problems(await create({ url: URL_OK, eventTypes: ['key.created', 'key.created'] }))).toEqual([
      'eventTypes: must list at least one event type, each once',
    ]);
    expect(problems(await create({ url: URL_OK }))[0]).toMatch(/^eventTypes: /);
  });

  it('a rate alert needs a valid filter on a listed currency; its state starts as what holds now', async () => {
    strict();
    const alert = (filter?: Record<string, unknown>) =>
      create({ url: URL_OK, eventTypes: ['rate.alert'], ...(filter ? { filter } : {}) });
    expect(problems(await alert())).toEqual([expect.stringMatching(/^filter: is required with rate\.alert/)]);
    expect(
      problems(await alert({ metric: 'rate', currency: 'EUR', side: 'sell', above: '1', below: '2' })),
    ).toEqual([expect.stringMatching(/^filter: .*source is required.*exactly one of filter\.above/)]);
    expect(
      problems(await alert({ metric: 'premium', currency: 'EUR', side: 'sell', above: 'lots' })),
    ).toEqual([expect.stringContaining('"lots" is not a percent')]);
    expect(
      problems(
        await alert({ metric: 'rate', currency: 'ZZZ', source: 'parallel', side: 'sell', above: '1' }),
      ),
    ).toEqual([
      expect.stringMatching(/^filter: filter\.currency "ZZZ" is not a currency of the asset directory/),
    ]);
    expect(
      problems(
        await create({
          url: URL_OK,
          eventTypes: ['key.created'],
          filter: { metric: 'premium', currency: 'EUR', side: 'sell', above: '1' },
        }),
      ),
    ).toEqual([expect.stringMatching(/^filter: is only for rate\.alert/)]);

    // Any EUR parallel sell is at or above 0 DZD, none at or above a million: the state is today's.
    const holds = await created({
      url: URL_OK,
      eventTypes: ['rate.alert'],
      filter: { metric: 'rate', currency: 'EUR', source: 'parallel', side: 'sell', above: '0' },
    });
    expect(holds.alertActive).toBe(true);
    const waits = await created({
      url: URL_OK,
      eventTypes: ['rate.alert'],
      filter: { metric: 'rate', currency: 'EUR', source: 'parallel', side: 'sell', above: '1000000' },
    });
    expect(waits.alertActive).toBe(false);
    // A new filter starts from what holds now too; dropping rate.alert needs the filter cleared.
    const moved = await call('PATCH', `/admin/v1/webhooks/${waits.id}`, {
      filter: { metric: 'rate', currency: 'EUR', source: 'parallel', side: 'buy', above: '0' },
    });
    expect(moved.json().data).toMatchObject({ alertActive: true, filter: { side: 'buy', above: '0' } });
    expect(
      problems(await call('PATCH', `/admin/v1/webhooks/${waits.id}`, { eventTypes: ['key.created'] })),
    ).toEqual([expect.stringMatching(/^filter: is only for rate\.alert.*filter: null/)]);
    const cleared = await call('PATCH', `/admin/v1/webhooks/${waits.id}`, {
      eventTypes: ['key.created'],
      filter: null,
    });
    expect(cleared.json().data).toMatchObject({ eventTypes: ['key.created'], filter: null });
  });

  it('ties a subscription to an existing account only, and lists by account', async () => {
    strict();
    expectErrorBody(
      await create({ url: URL_OK, eventTypes: ['key.created'], accountId: 'acc_nope' }),
      400,
      'invalid_request',
      [{ parameter: 'accountId', message: 'no account acc_nope' }],
    );
    const account = (await call('POST', '/admin/v1/accounts', { name: 'Hooked' })).json().data;
    const hook = await created({ url: URL_OK, eventTypes: ['usage.threshold'], accountId: account.id });
    const listed = await call('GET', `/admin/v1/webhooks?accountId=${account.id}`);
    expect(listed.json().data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
    const first = await call('GET', '/admin/v1/webhooks?limit=1');
    expect(first.json().meta.nextCursor).toEqual(expect.any(String));
    const next = await call('GET', `/admin/v1/webhooks?limit=1&cursor=${first.json().meta.nextCursor}`);
    expect(next.json().data[0].id).not.toBe(first.json().data[0].id);
  });

  it('disables with the actor as the reason, enables again, deletes', async () => {
    strict();
    const hook = await created({ url: URL_OK, eventTypes: ['key.created'] });
    const patch = (body: unknown) => call('PATCH', `/admin/v1/webhooks/${hook.id}`, body);
    const off = await patch({ enabled: false });
    expect(off.json().data).toMatchObject({
      status: 'disabled',
      disabledReason: expect.stringMatching(/^disabled by webhook admin \(adm_/),
    });
    const on = await patch({ enabled: true });
    expect(on.json().data).toMatchObject({ status: 'enabled', disabledReason: null });
    expectErrorBody(await patch({}), 400, 'invalid_request', [
      expect.objectContaining({ parameter: 'body' }),
    ]);

    const deleted = await call('DELETE', `/admin/v1/webhooks/${hook.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectErrorBody(await call('GET', `/admin/v1/webhooks/${hook.id}`), 404, 'not_found');
    expectErrorBody(await call('DELETE', `/admin/v1/webhooks/${hook.id}`), 404, 'not_found');
    expectErrorBody(await patch({ enabled: true }), 404, 'not_found');
    expectErrorBody(await call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`), 404, 'not_found');
  });

  it('rotates to a new secret; the old one signs for 24 hours more', async () => {
    strict();
    const hook = await created({ url: URL_OK, eventTypes: ['key.created'] });
    const before = Date.now();
    const res = await call('POST', `/admin/v1/webhooks/${hook.id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    const until = Date.parse(rotated.previousSecretExpiresAt);
    expect(until).toBeGreaterThanOrEqual(before + DAY_MS);
    expect(until).toBeLessThanOrEqual(Date.now() + DAY_MS);
    const got = await call('GET', `/admin/v1/webhooks/${hook.id}`);
    expect(got.json().data.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    expect(got.body).not.toContain('whsec_');
    const stored = await h.store.webhooks.getSubscription(hook.id);
    expect([stored?.secret, stored?.previousSecret]).toEqual([rotated.secret, hook.secret]);
  });

  it('lists deliveries, newest first, and queues one again; unknown ids are 404', async () => {
    strict();
    const hook = await created({ url: URL_OK, eventTypes: ['key.created'] });
    const empty = await call('GET', `/admin/v1/webhooks/${hook.id}/deliveries`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({ data: [], meta: { nextCursor: null } });
    expectErrorBody(await call('GET', '/admin/v1/webhooks/whk_nope/deliveries'), 404, 'not_found');
    expectErrorBody(
      await call('POST', `/admin/v1/webhooks/${hook.id}/deliveries/dlv_nope/redeliver`),
      404,
      'not_found',
    );
    expectErrorBody(
      await call('POST', '/admin/v1/webhooks/whk_nope/deliveries/dlv_nope/redeliver'),
      404,
      'not_found',
    );

    // Two events of no account: delivered to every subscription of their type.
    const keyEvent = (publicId: string) => ({
      ...keyCreated(
        { publicId, grantId: 'grt_x', label: 'k', environment: 'live', expiresAt: null },
        'acc_x',
      ),
      accountId: null,
    });
    await h.store.webhooks.emitEvents([keyEvent('k1'), keyEvent('k2')], Date.now());
    const listed = await call('GET', `/admin/v1/webhooks/${hook.id}/deliveries?limit=1`);
    expect(listed.statusCode).toBe(200);
    const [newest] = listed.json().data;
    expect(newest).toMatchObject({ eventType: 'key.created', eventId: expect.stringMatching(/^evt_/) });
    expect(Array.isArray(newest.log)).toBe(true);
    expect(listed.json().meta.nextCursor).toEqual(expect.any(String));
    const rest = await call(
      'GET',
      `/admin/v1/webhooks/${hook.id}/deliveries?cursor=${listed.json().meta.nextCursor}`,
    );
    expect(rest.json().data).toHaveLength(1);
    expect(rest.json().data[0].id).not.toBe(newest.id);

    const again = await call('POST', `/admin/v1/webhooks/${hook.id}/deliveries/${newest.id}/redeliver`);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json().data).toMatchObject({ id: newest.id, eventId: newest.eventId, status: 'pending' });
    const audit = await call('GET', `/admin/v1/audit?targetId=${hook.id}&action=webhook.redeliver`);
    expect(audit.json().data).toHaveLength(1);
  });

  it('the typed admin client has every webhook operation, a deletion resolving to nothing', async () => {
    strict();
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      const res = await h.admin.inject({
        method: init?.method as 'GET',
        url: url.pathname + url.search,
        headers: Object.fromEntries(new Headers(init?.headers)),
        payload: init?.body as string | undefined,
      });
      return new Response(res.statusCode === 204 ? null : res.body, {
        status: res.statusCode,
        headers: res.headers as Record<string, string>,
      });
    };
    const client = new MdsAdminClient({
      baseUrl: 'http://admin.test',
      token,
      fetch: fetch as typeof globalThis.fetch,
    });
    const made = await client.createWebhook({ url: URL_OK, eventTypes: ['data.stale', 'data.fresh'] });
    expect(made.data.secret).toMatch(/^whsec_/);
    const id = made.data.id;
    expect((await client.getWebhook(id)).data).not.toHaveProperty('secret');
    expect((await client.listWebhooks({ limit: 1000 })).data.map((w) => w.id)).toContain(id);
    expect((await client.updateWebhook(id, { enabled: false })).data.status).toBe('disabled');
    const rotated = await client.rotateWebhookSecret(id, {}, { idempotencyKey: `rotate-${id}` });
    expect(rotated.data.secret).not.toBe(made.data.secret);
    expect((await client.listWebhookDeliveries(id)).data).toEqual([]);
    const missing = await client.redeliverWebhook(id, 'dlv_nope').catch((e: unknown) => e);
    expect(missing).toMatchObject({ name: 'MdsAdminError', status: 404, code: 'not_found' });
    expect(await client.deleteWebhook(id)).toBeUndefined();
    const gone = await client.getWebhook(id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, code: 'not_found' });
  });
});
