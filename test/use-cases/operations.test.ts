/**
 * The operations behind the CLI and the admin API (docs/decisions.md, 57),
 * called directly on every backend: refusals as results naming the field,
 * external ids unique under concurrent requests, grant transitions, pages and
 * cursors, the key roll, and admin tokens verified by format, then digest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/store.js';
import { createAccount, getAccount, listAccounts, updateAccount } from '../../src/use-cases/accounts.js';
import { createAdminToken, revokeAdminToken, verifyAdminToken } from '../../src/use-cases/admin-tokens.js';
import { listAudit } from '../../src/use-cases/audit.js';
import type { Actor } from '../../src/use-cases/contract.js';
import { createGrant, getGrant, listGrants, updateGrant } from '../../src/use-cases/grants.js';
import { createKey, getKey, listKeys, revokeKey, rollKey } from '../../src/use-cases/keys.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';

const ACTOR: Actor = { id: 'adm_tttttttttttt', label: 'billing', requestId: 'req_1' };
const T0 = Date.UTC(2026, 10, 1, 9);

function value<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.error)}`);
  return r.value;
}

describe.each(backends())('operations on $name', ({ name }) => {
  let db: Database;
  let store: Store;
  let account: string;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
    await store.migrate();
    account = value(await createAccount(store, ACTOR, { name: 'Acme', externalId: 'cus_1' }, { now: T0 })).id;
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('refuses bad input as a result naming the field, writing nothing', async () => {
    expect(await createAccount(store, ACTOR, { email: 'nope' })).toEqual({
      ok: false,
      error: { kind: 'invalid', field: 'email', message: 'must be an email address' },
    });
    expect(await createGrant(store, ACTOR, { accountId: account, plan: 'custom', scopes: ['read'] })).toEqual(
      {
        ok: false,
        error: {
          kind: 'invalid',
          field: 'monthlyRequestLimit',
          message: 'is required (plan "custom" is not in the plan catalogue)',
        },
      },
    );
    expect(
      await createGrant(store, ACTOR, {
        accountId: account,
        plan: 'pro',
        validFrom: '2030-01-01T00:00:00Z',
        validUntil: '2029-01-01T00:00:00Z',
      }),
    ).toMatchObject({ ok: false, error: { field: 'validUntil', message: 'must be after validFrom' } });
    expect(await createGrant(store, ACTOR, { accountId: 'acc_none', plan: 'pro' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid', field: 'accountId', message: 'no account acc_none' },
    });
    expect(await getGrant(store, ACTOR, { id: 'grt_none' })).toEqual({
      ok: false,
      error: { kind: 'not_found', message: 'no grant grt_none' },
    });
    expect(await listAccounts(store, ACTOR, { limit: 0 })).toMatchObject({
      ok: false,
      error: { field: 'limit' },
    });
    expect(await listAudit(store, ACTOR, { cursor: 'x' })).toMatchObject({
      ok: false,
      error: { field: 'cursor' },
    });
    expect(value(await listAudit(store, ACTOR, {})).items).toHaveLength(1);
  });

  it('creates one grant for a provider and externalId among concurrent requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        createGrant(store, ACTOR, {
          accountId: account,
          plan: 'pro',
          provider: 'stripe',
          externalId: 'sub_1',
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((r) => !r.ok)) {
      expect(r).toEqual({
        ok: false,
        error: { kind: 'conflict', message: 'provider stripe already has a grant with externalId sub_1' },
      });
    }
    expect(
      value(await listGrants(store, ACTOR, { provider: 'stripe', externalId: 'sub_1' })).items,
    ).toHaveLength(1);
    const accounts = await Promise.all(
      Array.from({ length: 5 }, () => createAccount(store, ACTOR, { externalId: 'cus_2' })),
    );
    expect(accounts.filter((r) => r.ok)).toHaveLength(1);
  });

  it('enforces grant transitions: cancelled is final, a conflict', async () => {
    const g = value(await createGrant(store, ACTOR, { accountId: account, plan: 'free' }));
    expect(value(await updateGrant(store, ACTOR, { id: g.id, status: 'suspended' })).status).toBe(
      'suspended',
    );
    expect(value(await updateGrant(store, ACTOR, { id: g.id, status: 'cancelled' })).status).toBe(
      'cancelled',
    );
    expect(await updateGrant(store, ACTOR, { id: g.id, status: 'active' })).toEqual({
      ok: false,
      error: { kind: 'conflict', message: 'a cancelled grant cannot be reopened' },
    });
    expect(await updateGrant(store, ACTOR, { id: g.id, status: 'paused' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid', field: 'status' },
    });
    const audit = value(await listAudit(store, ACTOR, { targetId: g.id }));
    expect(audit.items.map((r) => r.action)).toEqual(['grant.update', 'grant.update', 'grant.create']);
    expect(audit.items[0]).toMatchObject({
      actor: { id: ACTOR.id, label: 'billing' },
      requestId: 'req_1',
      changes: { status: { before: 'suspended', after: 'cancelled' } },
    });
  });

  it('pages accounts by cursor and updates them', async () => {
    const first = value(await listAccounts(store, ACTOR, { limit: 1 }));
    expect(first.items.map((a) => a.id)).toEqual([account]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = value(await listAccounts(store, ACTOR, { limit: 100, cursor: first.nextCursor! }));
    expect(rest.nextCursor).toBeNull();
    expect(rest.items.map((a) => a.id)).not.toContain(account);
    expect(value(await updateAccount(store, ACTOR, { id: account, externalId: null })).externalId).toBeNull();
    expect(value(await getAccount(store, ACTOR, { id: account })).externalId).toBeNull();
    expect(await updateAccount(store, ACTOR, { id: 'acc_none', name: 'x' })).toMatchObject({
      ok: false,
      error: { kind: 'not_found' },
    });
  });

  it('rolls a key: both shown, the old one expiring after the grace period', async () => {
    const g = value(await createGrant(store, ACTOR, { accountId: account, plan: 'basic' }));
    const created = value(await createKey(store, ACTOR, { grantId: g.id, label: 'prod' }, { now: T0 }));
    expect(created.key.startsWith(`${created.prefix}_`)).toBe(true);
    expect(created.apiKey).toMatchObject({ accountId: account, plan: 'basic', label: 'prod' });
    const rolled = value(
      await rollKey(store, ACTOR, { publicId: created.publicId, gracePeriodSeconds: 60 }, { now: T0 + 1000 }),
    );
    expect(rolled.previous.expiresAt).toBe(new Date(T0 + 61_000).toISOString());
    expect(rolled.apiKey).toMatchObject({ grantId: g.id, label: 'prod', status: 'active' });
    expect(rolled.key).not.toBe(created.key);
    expect(value(await getKey(store, ACTOR, { publicId: rolled.publicId })).plan).toBe('basic');
    expect(value(await listKeys(store, ACTOR, { grantId: g.id })).items).toHaveLength(2);
    expect(await rollKey(store, ACTOR, { publicId: created.publicId, gracePeriodSeconds: -1 })).toMatchObject(
      {
        ok: false,
        error: { field: 'gracePeriodSeconds' },
      },
    );
    value(await revokeKey(store, ACTOR, { publicId: rolled.publicId }));
    expect(await rollKey(store, ACTOR, { publicId: rolled.publicId })).toMatchObject({
      ok: false,
      error: { kind: 'conflict' },
    });
  });

  it('verifies an admin token by format and digest; a typo, an API key or a revoked token is null', async () => {
    const created = value(await createAdminToken(store, ACTOR, { label: 'ops', scopes: ['audit:read'] }));
    expect(created.token).toMatch(/^mdsadm_[a-z0-9]{12}_[0-9A-Za-z]{49}$/);
    const record = await verifyAdminToken(store, created.token, T0);
    expect(record).toMatchObject({ publicId: created.publicId, label: 'ops', scopes: ['audit:read'] });
    expect((await store.operator.getAdminToken(created.publicId))?.lastUsedAt).toBe(T0);
    const typo = `${created.token.slice(0, -1)}${created.token.endsWith('A') ? 'B' : 'A'}`;
    expect(await verifyAdminToken(store, typo)).toBeNull();
    const apiKey = value(
      await createKey(store, ACTOR, {
        grantId: value(await createGrant(store, ACTOR, { accountId: account, plan: 'free' })).id,
      }),
    );
    expect(await verifyAdminToken(store, apiKey.key)).toBeNull();
    // The field is the item's, as the admin API names it in a body (`scopes.0`).
    expect(await createAdminToken(store, ACTOR, { label: 'x', scopes: ['root'] })).toMatchObject({
      ok: false,
      error: { field: 'scopes.0' },
    });
    value(await revokeAdminToken(store, ACTOR, { id: created.publicId }));
    expect(await verifyAdminToken(store, created.token)).toBeNull();
    expect(JSON.stringify(value(await listAudit(store, ACTOR, { limit: 1000 })))).not.toContain('mdsadm_');
  });
});
