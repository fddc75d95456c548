/**
 * What the operations return: records as the CLI prints them and the admin
 * API sends them, instants in ISO 8601 with milliseconds. No view holds a
 * digest; a secret appears only in what creates it, once.
 */

import { keyPrefix } from '../domain/keys.js';
import { expandScopes } from '../domain/scopes.js';
import type { AuditRecord } from '../storage/admin-records.js';
import type { AccountRecord, AdminTokenRecord, GrantRecord, KeyRecord } from '../storage/store.js';

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const isoOf = (ms: number): string => new Date(ms).toISOString();

export interface AccountView {
  id: string;
  name: string | null;
  email: string | null;
  externalId: string | null;
  createdAt: string;
  updatedAt: string;
}

export const accountView = (a: AccountRecord): AccountView => ({
  id: a.id,
  name: a.name,
  email: a.email,
  externalId: a.externalId,
  createdAt: isoOf(a.createdAt),
  updatedAt: isoOf(a.updatedAt),
});

export interface GrantView {
  id: string;
  accountId: string;
  provider: string;
  externalId: string | null;
  plan: string;
  status: GrantRecord['status'];
  /** As stored (legacy umbrellas included). */
  scopes: string[];
  /** What the scopes grant, expanded and sorted. */
  entitlements: string[];
  validFrom: string;
  validUntil: string;
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  createdAt: string;
  updatedAt: string;
}

export const grantView = (g: GrantRecord): GrantView => ({
  id: g.id,
  accountId: g.accountId,
  provider: g.provider,
  externalId: g.externalId,
  plan: g.plan,
  status: g.status,
  scopes: g.scopes,
  entitlements: expandScopes(g.scopes),
  validFrom: isoOf(g.validFrom),
  validUntil: isoOf(g.validUntil),
  monthlyRequestLimit: g.monthlyRequestLimit,
  requestsPerMinute: g.requestsPerMinute,
  createdAt: isoOf(g.createdAt),
  updatedAt: isoOf(g.updatedAt),
});

export interface KeyView {
  publicId: string;
  /** `mds_<environment>_<publicId>`: what a key shows of itself. */
  prefix: string;
  grantId: string;
  accountId: string;
  plan: string;
  label: string;
  environment: KeyRecord['environment'];
  /** Null: the key follows its grant's scopes. */
  scopes: string[] | null;
  /** As stored: `revoked` once revoked, else `active` (expiry and the grant aside). */
  status: KeyRecord['status'];
  /** Whether it works now (keyEffectiveStatus). */
  effectiveStatus: KeyEffectiveStatus;
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * Whether a key works now, and if not the first reason (decisions 103): its
 * own revocation, its grant's cancellation, its own expiry (a rolled key past
 * its grace period), its grant suspended or outside its validity.
 */
export type KeyEffectiveStatus =
  | 'active'
  | 'revoked'
  | 'grant_cancelled'
  | 'expired'
  | 'grant_suspended'
  | 'grant_expired'
  | 'grant_not_started';

/** What a key's view needs of its grant. */
export type KeyGrant = Pick<GrantRecord, 'accountId' | 'plan' | 'status' | 'validFrom' | 'validUntil'>;

export function keyEffectiveStatus(k: KeyRecord, grant: KeyGrant, now: number): KeyEffectiveStatus {
  if (k.status === 'revoked') return 'revoked';
  if (grant.status === 'cancelled') return 'grant_cancelled';
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  if (grant.status === 'suspended') return 'grant_suspended';
  if (grant.validUntil <= now) return 'grant_expired';
  if (grant.validFrom > now) return 'grant_not_started';
  return 'active';
}

export const keyView = (k: KeyRecord, grant: KeyGrant, now: number): KeyView => ({
  publicId: k.publicId,
  prefix: keyPrefix(k.environment, k.publicId),
  grantId: k.grantId,
  accountId: grant.accountId,
  plan: grant.plan,
  label: k.label,
  environment: k.environment,
  scopes: k.scopes,
  status: k.status,
  effectiveStatus: keyEffectiveStatus(k, grant, now),
  expiresAt: iso(k.expiresAt),
  lastUsedAt: iso(k.lastUsedAt),
  createdAt: isoOf(k.createdAt),
  revokedAt: iso(k.revokedAt),
});

export interface AdminTokenView {
  /** `adm_…`. */
  publicId: string;
  label: string;
  scopes: string[];
  status: AdminTokenRecord['status'];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const adminTokenView = (t: AdminTokenRecord): AdminTokenView => ({
  publicId: t.publicId,
  label: t.label,
  scopes: t.scopes,
  status: t.status,
  createdAt: isoOf(t.createdAt),
  lastUsedAt: iso(t.lastUsedAt),
  revokedAt: iso(t.revokedAt),
});

export interface AuditView {
  /** `aud_…`. */
  id: string;
  at: string;
  actor: { id: string; label: string };
  action: string;
  targetId: string;
  changes: Record<string, { before: unknown; after: unknown }>;
  requestId: string | null;
}

export const auditView = (r: AuditRecord): AuditView => ({
  id: r.id,
  at: isoOf(r.at),
  actor: { id: r.actorId, label: r.actorLabel },
  action: r.action,
  targetId: r.targetId,
  changes: r.changes,
  requestId: r.requestId,
});
