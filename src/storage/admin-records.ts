/**
 * The operator's records (accounts, grants, keys, admin tokens), the audit log
 * and the admin API's idempotency keys, as the store keeps them
 * (docs/decisions.md, 57), for the access and operator repositories
 * (repositories/access.ts, repositories/operator.ts).
 *
 * Every method that changes an account, a grant, a key or an admin token takes
 * the actor making the change and appends one audit record in the same
 * transaction as the change: the change and its record commit or roll back
 * together. The audit log is append-only: nothing in the service updates or
 * deletes a record (the migration's triggers refuse both).
 */

export const GRANT_STATUSES = ['active', 'suspended', 'cancelled'] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];
export const KEY_STATUSES = ['active', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
export const ADMIN_TOKEN_STATUSES = ['active', 'revoked'] as const;
export type AdminTokenStatus = (typeof ADMIN_TOKEN_STATUSES)[number];

export interface AccountRecord {
  id: string;
  name: string | null;
  email: string | null;
  /** The billing system's customer id; unique when set. */
  externalId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A new account: without an external id or an update time, it has none / its creation time. */
export type NewAccount = Omit<AccountRecord, 'externalId' | 'updatedAt'> &
  Partial<Pick<AccountRecord, 'externalId' | 'updatedAt'>>;

export interface AccountPatch {
  name?: string | null;
  email?: string | null;
  externalId?: string | null;
}

export interface GrantRecord {
  id: string;
  accountId: string;
  provider: string;
  /** The provider's id for it (a subscription id); unique per provider when set. */
  externalId: string | null;
  plan: string;
  status: GrantStatus;
  /** As stored: may hold legacy umbrellas and, from older writers, unknown strings. */
  scopes: string[];
  validFrom: number;
  validUntil: number;
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  createdAt: number;
  updatedAt: number;
}

export type NewGrant = Omit<GrantRecord, 'externalId'> & Partial<Pick<GrantRecord, 'externalId'>>;

export interface GrantPatch {
  status?: GrantStatus;
  scopes?: string[];
  monthlyRequestLimit?: number;
  requestsPerMinute?: number;
  validUntil?: number;
}

export interface KeyRecord {
  publicId: string;
  grantId: string;
  environment: 'live' | 'test';
  digest: string;
  label: string;
  /** Null: the key follows its grant's scopes. */
  scopes: string[] | null;
  status: KeyStatus;
  expiresAt: number | null;
  lastUsedAt: number | null;
  createdAt: number;
  revokedAt: number | null;
}

/** A key as the lists show it: with its grant's account and plan, and what decides whether it works. */
export interface KeyListItem extends KeyRecord {
  accountId: string;
  plan: string;
  grantStatus: GrantStatus;
  grantValidFrom: number;
  grantValidUntil: number;
}

export interface AdminTokenRecord {
  /** `adm_…`. */
  publicId: string;
  /** SHA-256 of the whole token, hex. */
  digest: string;
  label: string;
  scopes: string[];
  status: AdminTokenStatus;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Who makes a change (the operations' Actor, src/use-cases/contract.ts, has this shape). */
export interface AuditActor {
  /** `adm_…`, `cli` or `system`. */
  id: string;
  label: string;
  requestId: string | null;
}

/** The actor of a store method called without one. */
export const SYSTEM_ACTOR: AuditActor = { id: 'system', label: 'system', requestId: null };

/** The changed fields: never a secret, a digest or a full key. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

export interface AuditRecord {
  /** `aud_…`. */
  id: string;
  at: number;
  actorId: string;
  actorLabel: string;
  /** `account.create`, `grant.update`, `key.roll`, `data.import`, `admin_token.revoke`… */
  action: string;
  targetId: string;
  changes: AuditChanges;
  requestId: string | null;
}

/** A keyset page: items after `after` (in the list's order), at most `limit`. */
export interface KeysetPage {
  limit: number;
  /** The position of the last item of the previous page: its time and id. */
  after?: { at: number; id: string };
}

export interface AccountFilter {
  externalId?: string;
  email?: string;
}

export interface GrantFilter {
  accountId?: string;
  provider?: string;
  externalId?: string;
  status?: GrantStatus;
}

export interface KeyFilter {
  grantId?: string;
  accountId?: string;
}

export interface AuditFilter {
  actor?: string;
  targetId?: string;
  action?: string;
  /** Records at or after this instant. */
  from?: number;
  /** Records at or before this instant. */
  to?: number;
}

/** What a claim of an idempotency key found (the admin API's Idempotency-Key). */
export type IdempotencyClaim =
  | { state: 'claimed' }
  | { state: 'in_progress'; fingerprint: string }
  | { state: 'done'; fingerprint: string; status: number; body: string };

/** A unique value (an external id) another record already holds: the change was not made. */
export class DuplicateError extends Error {
  readonly code = 'duplicate';
  constructor(readonly field: 'externalId' | 'name') {
    super(`duplicate ${field}`);
    this.name = 'DuplicateError';
  }
}

/** A change of status asked of a cancelled grant, which stays cancelled: nothing was written. */
export class GrantCancelledError extends Error {
  readonly code = 'grant_cancelled';
  constructor(readonly grantId: string) {
    super(`grant ${grantId} is cancelled`);
    this.name = 'GrantCancelledError';
  }
}
