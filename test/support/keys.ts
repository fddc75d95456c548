/**
 * A key on a fresh account and grant, written straight to a store: for tests
 * that run real server processes (the harness has its own `newKey`).
 */
import { createAccount, createGrant, createKey } from '../../src/access/admin.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import type { Store } from '../../src/storage/store.js';

export interface GrantOptions {
  /** Requests per minute; generous by default. */
  rpm?: number;
  monthly?: number;
  scopes?: string[];
}

export async function keyOnNewGrant(
  store: Store,
  { rpm = 1_000_000, monthly = 1_000_000, scopes = [...ENTITLEMENTS] }: GrantOptions = {},
): Promise<{ key: string; publicId: string; grantId: string; accountId: string }> {
  const account = await createAccount(store, {});
  const grant = await createGrant(store, {
    accountId: account.id,
    plan: 'test',
    scopes,
    monthlyRequestLimit: monthly,
    requestsPerMinute: rpm,
  });
  const created = await createKey(store, { grantId: grant.id });
  return { key: created.key, publicId: created.publicId, grantId: grant.id, accountId: account.id };
}
