/**
 * API keys (decisions §3; docs/decisions.md, 57): the full key is returned
 * once, by the operation that creates it (createKey, rollKey), and never
 * again; the store keeps its SHA-256 digest. A roll gives the same grant a new
 * key with the old one's label, scopes and environment, and lets the old key
 * work for a grace period (default a day) so clients can switch without an
 * outage.
 */
import { generateKey, type KeyEnvironment } from '../domain/keys.js';
import { DEFAULT_GRACE_PERIOD_SECONDS, KeyCreate, KeyRoll } from '../schemas/admin.js';
import type { GrantRecord, KeyRecord, Store } from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import { withoutRepeats } from './grants.js';
import {
  checked,
  conflict,
  invalid,
  keysetOf,
  notFound,
  type OperationOptions,
  pageOf,
  refusing,
} from './rules.js';
import { type KeyView, keyView } from './views.js';

export interface KeyInput {
  grantId: string;
  label?: string;
  /** `live` (default) or `test`. */
  environment?: string;
  /** Narrower than the grant's; default: the grant's own. */
  scopes?: string[];
  /** ISO 8601, in the future; default: no expiry. */
  expiresAt?: string;
}

export interface KeyListInput extends ListOptions {
  grantId?: string;
  accountId?: string;
}

export interface RollInput {
  publicId: string;
  /** How long the old key keeps working: 0 to 90 days in seconds, default 86,400. */
  gracePeriodSeconds?: number;
}

/** A new key: the full key, shown this once, and what lists show of it. */
export interface CreatedKey {
  key: string;
  publicId: string;
  prefix: string;
  apiKey: KeyView;
}

/** A roll: the new key (its full key, once) and the old one with its new expiry. */
export interface RolledKey {
  key: string;
  publicId: string;
  prefix: string;
  apiKey: KeyView;
  previous: KeyView;
  gracePeriodSeconds: number;
}

async function grantOf(store: Store, key: KeyRecord): Promise<GrantRecord> {
  const grant = await store.access.getGrant(key.grantId);
  if (!grant) throw new Error(`key ${key.publicId} has no grant ${key.grantId}`);
  return grant;
}

function newKeyRecord(
  grant: GrantRecord,
  environment: KeyEnvironment,
  fields: Pick<KeyRecord, 'label' | 'scopes' | 'expiresAt'>,
  now: number,
) {
  const generated = generateKey(environment);
  const record: KeyRecord = {
    publicId: generated.publicId,
    grantId: grant.id,
    environment,
    digest: generated.digest,
    ...fields,
    status: 'active',
    lastUsedAt: null,
    createdAt: now,
    revokedAt: null,
  };
  return { key: generated.key, record };
}

export function createKey(
  store: Store,
  actor: Actor,
  input: KeyInput,
  options: OperationOptions = {},
): Promise<Result<CreatedKey>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const given = checked(KeyCreate, input);
    const label = given.label ?? '';
    const scopes = given.scopes === undefined ? null : withoutRepeats(given.scopes);
    const expiresAt = given.expiresAt === undefined ? null : Date.parse(given.expiresAt);
    if (expiresAt !== null && expiresAt <= now) throw invalid('expiresAt', 'must be in the future');
    const grant = await store.access.getGrant(given.grantId);
    if (!grant) throw invalid('grantId', `no grant ${given.grantId}`);
    if (grant.status === 'cancelled') throw invalid('grantId', 'the grant is cancelled');
    const environment: KeyEnvironment = given.environment ?? 'live';
    const created = newKeyRecord(grant, environment, { label, scopes, expiresAt }, now);
    await store.access.createKey(created.record, actor);
    const apiKey = keyView(created.record, grant, now);
    return { key: created.key, publicId: apiKey.publicId, prefix: apiKey.prefix, apiKey };
  });
}

export function getKey(
  store: Store,
  _actor: Actor,
  { publicId }: { publicId: string },
): Promise<Result<KeyView>> {
  return refusing(async () => {
    const key = await store.access.getKey(publicId);
    if (!key) throw notFound(`no key ${publicId}`);
    return keyView(key, await grantOf(store, key), Date.now());
  });
}

export function listKeys(
  store: Store,
  _actor: Actor,
  input: KeyListInput = {},
): Promise<Result<Page<KeyView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const filter = {
      ...(input.grantId !== undefined ? { grantId: input.grantId } : {}),
      ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
    };
    const rows = await store.access.listKeyItems(filter, page);
    const now = Date.now();
    return pageOf(
      rows,
      page,
      (k) => ({ at: k.createdAt, id: k.publicId }),
      (k) =>
        keyView(
          k,
          {
            accountId: k.accountId,
            plan: k.plan,
            status: k.grantStatus,
            validFrom: k.grantValidFrom,
            validUntil: k.grantValidUntil,
          },
          now,
        ),
    );
  });
}

/** Final, and idempotent: revoking a revoked key changes nothing and answers the key. */
export function revokeKey(
  store: Store,
  actor: Actor,
  { publicId }: { publicId: string },
  options: OperationOptions = {},
): Promise<Result<KeyView>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const key = await store.access.revokeKey(publicId, now, actor);
    if (!key) throw notFound(`no key ${publicId}`);
    return keyView(key, await grantOf(store, key), now);
  });
}

export function rollKey(
  store: Store,
  actor: Actor,
  input: RollInput,
  options: OperationOptions = {},
): Promise<Result<RolledKey>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const { publicId: _, ...fields } = input;
    const grace = checked(KeyRoll, fields).gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    const old = await store.access.getKey(input.publicId);
    if (!old) throw notFound(`no key ${input.publicId}`);
    if (old.status === 'revoked')
      throw conflict(`key ${input.publicId} is revoked: create a new key instead`);
    if (old.expiresAt !== null && old.expiresAt <= now) {
      throw conflict(`key ${input.publicId} has expired: create a new key instead`);
    }
    const grant = await grantOf(store, old);
    if (grant.status === 'cancelled')
      throw conflict(`the grant ${grant.id} of key ${input.publicId} is cancelled`);
    // The new key ends when the old one was meant to (a key made to end keeps its end).
    const created = newKeyRecord(
      grant,
      old.environment,
      { label: old.label, scopes: old.scopes, expiresAt: old.expiresAt },
      now,
    );
    const rolled = await store.access.rollKey(old.publicId, created.record, now + grace * 1000, now, actor);
    if (!rolled) throw notFound(`no key ${input.publicId}`);
    const apiKey = keyView(rolled.next, grant, now);
    return {
      key: created.key,
      publicId: apiKey.publicId,
      prefix: apiKey.prefix,
      apiKey,
      previous: keyView(rolled.old, grant, now),
      gracePeriodSeconds: grace,
    };
  });
}
