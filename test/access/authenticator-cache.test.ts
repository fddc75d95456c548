/**
 * The synchronous look-up of a verified key (Authenticator.cached), which the
 * pipeline takes on every request: a header seen last time is recognised
 * without the map, and nothing it remembers outlives an access change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/access/authenticator.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';

const DAY = 86_400_000;

describe('Authenticator.cached', () => {
  let db: Database;
  let store: Store;
  let keys: string[];
  const now = Date.now();

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    store = db.open();
    await store.migrate();
    const account = await createAccount(store, { name: 'Cache' });
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'pro',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000,
      requestsPerMinute: 100,
      validFrom: now - DAY,
    });
    keys = [
      (await createKey(store, { grantId: grant.id, label: 'a' })).key,
      (await createKey(store, { grantId: grant.id, label: 'b' })).key,
    ];
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('answers a verified key again and again, alternating with another, and forgets both at an access change', async () => {
    const auth = new Authenticator(store);
    const [a, b] = [`Bearer ${keys[0]}`, `Bearer ${keys[1]}`];
    // Not verified yet: left to authenticate().
    expect(auth.cached(a, undefined, now)).toBeUndefined();
    for (const header of [a, b]) {
      const verdict = await auth.authenticate({ authorization: header }, now);
      expect(verdict.ok).toBe(true);
    }
    const first = auth.cached(a, undefined, now);
    const second = auth.cached(b, undefined, now);
    expect(first?.key.publicId).not.toBe(second?.key.publicId);
    for (let i = 0; i < 3; i++) {
      expect(auth.cached(a, undefined, now)).toBe(first);
      expect(auth.cached(a, undefined, now)).toBe(first);
      expect(auth.cached(b, undefined, now)).toBe(second);
    }
    // A header built anew (another string with the same text) is the same key.
    expect(auth.cached(`Bearer ${keys[1]!.slice(0)}`, undefined, now)).toBe(second);
    // Anything but `Bearer <key>` alone, or a key that was never verified, is left to authenticate().
    expect(auth.cached(a, keys[0], now)).toBeUndefined();
    expect(auth.cached(`bearer ${keys[0]}`, undefined, now)).toBeUndefined();
    expect(auth.cached(`${a}x`, undefined, now)).toBeUndefined();
    expect(auth.cached(b, undefined, now)).toBe(second);

    auth.invalidate();
    expect(auth.cached(b, undefined, now)).toBeUndefined();
    expect(auth.cached(a, undefined, now)).toBeUndefined();
  });
});
