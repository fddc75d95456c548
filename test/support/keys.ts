/**
 * Accounts, grants and keys written straight to a store, for tests that
 * provision as the service itself: the admin use-cases of src/use-cases/,
 * which hold every rule (docs/decisions.md, 57), by the `system` actor, with a
 * refusal thrown as an Error and instants given as epoch milliseconds; and
 * `keyOnNewGrant`, a key on a fresh account and grant for tests that run real
 * server processes (the harness has its own `newKey`).
 */
import { ENTITLEMENTS, isKnownScope } from '../../src/domain/scopes.js';
import { SYSTEM_ACTOR } from '../../src/storage/admin-records.js';
import type { GrantRecord, KeyRecord, Store } from '../../src/storage/store.js';
import { createAccount as createAccountOperation } from '../../src/use-cases/accounts.js';
import type { Actor, Result } from '../../src/use-cases/contract.js';
import {
  createGrant as createGrantOperation,
  updateGrant as updateGrantOperation,
} from '../../src/use-cases/grants.js';
import {
  createKey as createKeyOperation,
  revokeKey as revokeKeyOperation,
} from '../../src/use-cases/keys.js';

const SYSTEM: Actor = SYSTEM_ACTOR;
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function value<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const e = result.error;
  throw new Error(e.kind === 'invalid' ? `${e.field}: ${e.message}` : e.message);
}

export async function createAccount(
  store: Store,
  input: { name?: string; email?: string; externalId?: string },
  now = Date.now(),
): Promise<{ id: string }> {
  const account = value(await createAccountOperation(store, SYSTEM, input, { now }));
  return { id: account.id };
}

export interface GrantInput {
  accountId: string;
  plan: string;
  scopes: string[];
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  provider?: string;
  externalId?: string;
  validFrom?: number;
  validUntil?: number;
}

/**
 * Scopes are stored as given, unknown strings included, as older writers
 * stored them: the access tests make such grants to check that an unknown
 * scope found in the store is ignored (decisions §4). Every other rule holds.
 */
export async function createGrant(store: Store, input: GrantInput, now = Date.now()): Promise<GrantRecord> {
  const { validFrom, validUntil, scopes, ...rest } = input;
  const known = scopes.filter(isKnownScope);
  const view = value(
    await createGrantOperation(
      store,
      SYSTEM,
      {
        ...rest,
        scopes: known.length > 0 ? known : scopes,
        validFrom: iso(validFrom),
        validUntil: iso(validUntil),
      },
      { now },
    ),
  );
  if (known.length !== scopes.length)
    return (await store.access.updateGrant(view.id, { scopes }, now, SYSTEM))!;
  return (await store.access.getGrant(view.id))!;
}

export async function updateGrant(
  store: Store,
  id: string,
  patch: {
    status?: string;
    scopes?: string[];
    monthlyRequestLimit?: number;
    requestsPerMinute?: number;
    validUntil?: number;
  },
  now = Date.now(),
): Promise<GrantRecord> {
  const { validUntil, ...rest } = patch;
  value(await updateGrantOperation(store, SYSTEM, { id, ...rest, validUntil: iso(validUntil) }, { now }));
  return (await store.access.getGrant(id))!;
}

export async function createKey(
  store: Store,
  input: { grantId: string; label?: string; environment?: string; scopes?: string[]; expiresAt?: number },
  now = Date.now(),
): Promise<{ key: string; publicId: string; prefix: string; record: KeyRecord }> {
  const { expiresAt, ...rest } = input;
  const created = value(
    await createKeyOperation(store, SYSTEM, { ...rest, expiresAt: iso(expiresAt) }, { now }),
  );
  return {
    key: created.key,
    publicId: created.publicId,
    prefix: created.prefix,
    record: (await store.access.getKey(created.publicId))!,
  };
}

export async function revokeKey(store: Store, publicId: string, now = Date.now()): Promise<KeyRecord> {
  value(await revokeKeyOperation(store, SYSTEM, { publicId }, { now }));
  return (await store.access.getKey(publicId))!;
}

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
