/**
 * Operator actions on accounts, grants and keys (decisions §3, §11), shared by
 * the CLI and the first-run set-up. Every rule is checked before anything is
 * written; a broken rule is an AdminError with a sentence for the operator.
 */
import { randomBytes } from 'node:crypto';
import { generateKey, KEY_ENVIRONMENTS, type KeyEnvironment } from '../domain/keys.js';
import { parseScopeList } from '../domain/scopes.js';
import type { GrantRecord, GrantStatus, KeyRecord, Store } from '../storage/store.js';
import { GRANT_STATUSES } from '../storage/store.js';

export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

/** Far enough to mean "no end" while staying a valid timestamp for /v1/me. */
export const NO_END = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const newId = (prefix: string) =>
  `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').toLowerCase()}`;

export function parseInstant(text: string, option: string): number {
  // Full ISO 8601 date-times with a zone, or a bare date (midnight UTC).
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)) {
    throw new AdminError(`${option}: must be an ISO 8601 timestamp such as 2027-01-01T00:00:00Z`);
  }
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  // Date.parse rolls 2030-02-30 over to 2030-03-02: the calendar day must exist.
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (Number.isNaN(ms) || new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) {
    throw new AdminError(`${option}: ${text} is not a real date`);
  }
  return ms;
}

export function parsePositiveInt(text: string | undefined, option: string): number {
  if (text === undefined || !/^[1-9]\d{0,11}$/.test(text)) {
    throw new AdminError(`${option}: must be a whole number of at least 1`);
  }
  return Number(text);
}

export function parseScopes(text: string, option = '--scopes'): string[] {
  const { scopes, unknown } = parseScopeList(text);
  if (unknown.length > 0)
    throw new AdminError(`${option}: unknown scope ${unknown.map((u) => `"${u}"`).join(', ')}`);
  if (scopes.length === 0) throw new AdminError(`${option}: list at least one scope`);
  return scopes;
}

export async function createAccount(
  store: Store,
  input: { name?: string; email?: string },
  now = Date.now(),
) {
  const id = newId('acc');
  await store.createAccount({ id, name: input.name ?? null, email: input.email ?? null, createdAt: now });
  return { id };
}

export interface GrantInput {
  accountId: string;
  plan: string;
  scopes: string[];
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  provider?: string;
  validFrom?: number;
  validUntil?: number;
}

export async function createGrant(store: Store, input: GrantInput, now = Date.now()): Promise<GrantRecord> {
  if (!(await store.getAccount(input.accountId)))
    throw new AdminError(`--account: no account ${input.accountId}`);
  if (input.plan.trim() === '') throw new AdminError('--plan: must not be empty');
  const validFrom = input.validFrom ?? now;
  const validUntil = input.validUntil ?? NO_END;
  if (validUntil <= validFrom) throw new AdminError('--valid-until: must be after --valid-from');
  const grant: GrantRecord = {
    id: newId('grt'),
    accountId: input.accountId,
    provider: input.provider ?? 'manual',
    plan: input.plan,
    status: 'active',
    scopes: input.scopes,
    validFrom,
    validUntil,
    monthlyRequestLimit: input.monthlyRequestLimit,
    requestsPerMinute: input.requestsPerMinute,
    createdAt: now,
    updatedAt: now,
  };
  await store.createGrant(grant);
  return grant;
}

/** Grant transitions: active ⇄ suspended, either → cancelled (final). */
export function checkTransition(from: GrantStatus, to: string): GrantStatus {
  if (!(GRANT_STATUSES as readonly string[]).includes(to)) {
    throw new AdminError(`--status: must be one of ${GRANT_STATUSES.join(', ')}`);
  }
  if (from === 'cancelled' && to !== 'cancelled')
    throw new AdminError('a cancelled grant cannot be reopened');
  return to as GrantStatus;
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
  const grant = await store.getGrant(id);
  if (!grant) throw new AdminError(`no grant ${id}`);
  const status = patch.status === undefined ? undefined : checkTransition(grant.status, patch.status);
  if (patch.validUntil !== undefined && patch.validUntil <= grant.validFrom) {
    throw new AdminError('--valid-until: must be after the grant starts');
  }
  const updated = await store.updateGrant(id, { ...patch, status }, now);
  if (!updated) throw new AdminError(`no grant ${id}`);
  return updated;
}

export async function createKey(
  store: Store,
  input: { grantId: string; label?: string; environment?: string; scopes?: string[]; expiresAt?: number },
  now = Date.now(),
) {
  const grant = await store.getGrant(input.grantId);
  if (!grant) throw new AdminError(`--grant: no grant ${input.grantId}`);
  if (grant.status === 'cancelled') throw new AdminError('--grant: the grant is cancelled');
  const environment = (input.environment ?? 'live') as KeyEnvironment;
  if (!KEY_ENVIRONMENTS.includes(environment)) throw new AdminError('--environment: must be live or test');
  if (input.expiresAt !== undefined && input.expiresAt <= now)
    throw new AdminError('--expires-at: must be in the future');
  const generated = generateKey(environment);
  const record: KeyRecord = {
    publicId: generated.publicId,
    grantId: grant.id,
    environment,
    digest: generated.digest,
    label: input.label ?? '',
    scopes: input.scopes ?? null,
    status: 'active',
    expiresAt: input.expiresAt ?? null,
    lastUsedAt: null,
    createdAt: now,
    revokedAt: null,
  };
  await store.createKey(record);
  return { key: generated.key, publicId: generated.publicId, prefix: generated.prefix, record };
}

export async function revokeKey(store: Store, publicId: string, now = Date.now()): Promise<KeyRecord> {
  const key = await store.revokeKey(publicId, now);
  if (!key) throw new AdminError(`no key ${publicId}`);
  return key;
}
