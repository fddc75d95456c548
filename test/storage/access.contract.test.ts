/**
 * The access repository's contract, on every backend: accounts, grants and
 * keys, and the access version each change moves. (Its lists, the key roll and
 * the audit records of each change: operator.contract.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const DAY = 86_400_000;

describe.each(backends())('access repository on $name', ({ name }) => {
  const store = migratedStore(name);

  it('stores accounts, grants and keys, and moves the access version on each change', async () => {
    const v0 = (await store.versions()).access;
    await store.access.createAccount({ id: 'acc_1', name: 'A', email: 'a@example.com', createdAt: T0 });
    await store.access.createGrant({
      id: 'grt_1',
      accountId: 'acc_1',
      provider: 'manual',
      plan: 'pro',
      status: 'active',
      scopes: ['read', 'assets:read'],
      validFrom: T0,
      validUntil: T0 + 365 * DAY,
      monthlyRequestLimit: 1000,
      requestsPerMinute: 10,
      createdAt: T0,
      updatedAt: T0,
    });
    await store.access.createKey({
      publicId: 'abcdefabcdef',
      grantId: 'grt_1',
      environment: 'live',
      digest: 'f'.repeat(64),
      label: 'k',
      scopes: null,
      status: 'active',
      expiresAt: null,
      lastUsedAt: null,
      createdAt: T0,
      revokedAt: null,
    });
    expect((await store.versions()).access).toBe(v0 + 3);
    expect(await store.access.getGrant('grt_1')).toMatchObject({
      scopes: ['read', 'assets:read'],
      monthlyRequestLimit: 1000,
    });
    expect(await store.access.getKey('abcdefabcdef')).toMatchObject({
      scopes: null,
      status: 'active',
      lastUsedAt: null,
    });
    expect(await store.access.countAccounts()).toBe(1);

    const updated = await store.access.updateGrant(
      'grt_1',
      { status: 'suspended', requestsPerMinute: 5 },
      T0 + 1,
    );
    expect(updated).toMatchObject({ status: 'suspended', requestsPerMinute: 5, updatedAt: T0 + 1 });
    expect(await store.access.updateGrant('nope', { status: 'active' }, T0)).toBeUndefined();

    await store.access.touchKeys([{ publicId: 'abcdefabcdef', at: T0 + 100 }]);
    await store.access.touchKeys([{ publicId: 'abcdefabcdef', at: T0 + 50 }]);
    expect((await store.access.getKey('abcdefabcdef'))?.lastUsedAt).toBe(T0 + 100);

    const revoked = await store.access.revokeKey('abcdefabcdef', T0 + 200);
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: T0 + 200 });
    // Revocation is final and keeps its first time.
    expect(await store.access.revokeKey('abcdefabcdef', T0 + 300)).toMatchObject({ revokedAt: T0 + 200 });
    expect(await store.access.revokeKey('unknown12345', T0)).toBeUndefined();
    expect((await store.access.listKeys('grt_1')).map((k) => k.publicId)).toEqual(['abcdefabcdef']);
    expect(await store.access.listKeys('grt_other')).toEqual([]);
  });
});
