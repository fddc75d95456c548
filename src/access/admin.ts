/**
 * Accounts, grants and keys for code that provisions as the service itself
 * (tests, scripts): the operations of src/operations/, which hold every rule
 * (docs/decisions.md, 57), by the `system` actor, with a refusal thrown as an
 * AdminError and instants given as epoch milliseconds. The CLI and the admin
 * API call the operations directly.
 */

import { isKnownScope } from '../domain/scopes.js';
import { createAccount as createAccountOperation } from '../operations/accounts.js';
import type { Actor, Result } from '../operations/contract.js';
import {
  createGrant as createGrantOperation,
  updateGrant as updateGrantOperation,
} from '../operations/grants.js';
import { createKey as createKeyOperation, revokeKey as revokeKeyOperation } from '../operations/keys.js';
import { SYSTEM_ACTOR } from '../storage/admin-records.js';
import type { GrantRecord, KeyRecord, Store } from '../storage/store.js';
import { AdminError } from './admin-error.js';

export { NO_END } from '../operations/rules.js';
export { AdminError } from './admin-error.js';

const SYSTEM: Actor = SYSTEM_ACTOR;
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function value<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const e = result.error;
  throw new AdminError(e.kind === 'invalid' ? `${e.field}: ${e.message}` : e.message);
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
  if (known.length !== scopes.length) return (await store.updateGrant(view.id, { scopes }, now, SYSTEM))!;
  return (await store.getGrant(view.id))!;
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
  return (await store.getGrant(id))!;
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
    record: (await store.getKey(created.publicId))!,
  };
}

export async function revokeKey(store: Store, publicId: string, now = Date.now()): Promise<KeyRecord> {
  value(await revokeKeyOperation(store, SYSTEM, { publicId }, { now }));
  return (await store.getKey(publicId))!;
}
