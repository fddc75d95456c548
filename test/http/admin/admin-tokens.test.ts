/**
 * PATCH /admin/v1/admin-tokens/{publicId} on every backend: a token's scopes
 * replaced (its next request judged by them), under an Idempotency-Key,
 * audited with the calling token as actor; never to a scope the caller lacks
 * (403 naming it), so no token raises its own powers or another's past its
 * own. The CLI's `mds admin-tokens update` is the same operation
 * (test/cli/operator-flow.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';

describe.each(backends())('changing an admin token’s scopes on $name', (backend) => {
  let h: AdminHarness;
  let caller: { token: string; publicId: string };
  let target: { token: string; publicId: string };
  beforeAll(async () => {
    h = await startAdminHarness(backend);
    caller = await h.token(['admin-tokens:write', 'accounts:read', 'usage:read', 'audit:read'], 'ops');
    target = await h.token(['accounts:read'], 'billing');
  });
  afterAll(async () => h?.close());

  const patch = (id: string, scopes: unknown, key?: string, as = caller.token) =>
    h.call('PATCH', `/admin/v1/admin-tokens/${id}`, {
      token: as,
      body: { scopes },
      headers: key ? { 'idempotency-key': key } : {},
    });

  it('replaces the scopes; the token’s next request is judged by them; a replay answers the same', async () => {
    expect((await h.call('GET', '/admin/v1/accounts', { token: target.token })).statusCode).toBe(200);
    const changed = await patch(target.publicId, ['usage:read', 'usage:read'], 'scopes-1');
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({
      publicId: target.publicId,
      label: 'billing',
      scopes: ['usage:read'],
      status: 'active',
    });
    expect(changed.body).not.toContain(target.token);
    const replayed = await patch(target.publicId, ['usage:read', 'usage:read'], 'scopes-1');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(changed.body);
    expectErrorBody(
      await h.call('GET', '/admin/v1/accounts', { token: target.token }),
      403,
      'insufficient_admin_scope',
    );
  });

  it('refuses a scope the caller lacks, naming it, for another token and for itself; changes nothing', async () => {
    for (const id of [target.publicId, caller.publicId]) {
      const res = await patch(id, ['usage:read', 'keys:write']);
      expectErrorBody(res, 403, 'insufficient_admin_scope', [
        { parameter: 'scopes', message: 'keys:write is not a scope of this admin token' },
      ]);
      expect(res.json().error.message).toContain('keys:write');
    }
    const audit = await h.call('GET', `/admin/v1/audit?targetId=${caller.publicId}`, { token: caller.token });
    expect(audit.json().data.map((r: { action: string }) => r.action)).toEqual(['admin_token.create']);
  });

  it('is audited with the calling token as actor, scopes before and after, no secret', async () => {
    const audit = await h.call('GET', `/admin/v1/audit?targetId=${target.publicId}`, { token: caller.token });
    const [update] = audit.json().data;
    expect(update).toMatchObject({
      action: 'admin_token.update',
      actor: { id: caller.publicId, label: 'ops' },
      changes: { scopes: { before: ['accounts:read'], after: ['usage:read'] } },
    });
    expect(audit.json().data).toHaveLength(2); // the replay recorded nothing
    expect(audit.body).not.toContain(target.token.slice(-20));
  });

  it('needs admin-tokens:write; refuses an unknown scope, an unknown or a revoked token', async () => {
    expectErrorBody(
      await patch(caller.publicId, ['usage:read'], undefined, target.token),
      403,
      'insufficient_admin_scope',
    );
    expectErrorBody(await patch(target.publicId, ['root']), 400, 'invalid_request', [
      {
        parameter: 'scopes.0',
        message: expect.stringContaining('unknown scope "root"'),
      },
    ]);
    expectErrorBody(await patch(target.publicId, []), 400, 'invalid_request', [
      { parameter: 'scopes', message: expect.stringContaining('list at least one of') },
    ]);
    expectErrorBody(await patch('adm_nobody', ['usage:read']), 404, 'not_found');
    await h.revokeToken(target.publicId);
    expectErrorBody(await patch(target.publicId, ['usage:read']), 409, 'conflict');
  });
});
