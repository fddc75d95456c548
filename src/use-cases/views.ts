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
  status: KeyRecord['status'];
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export const keyView = (k: KeyRecord, grant: { accountId: string; plan: string }): KeyView => ({
  publicId: k.publicId,
  prefix: keyPrefix(k.environment, k.publicId),
  grantId: k.grantId,
  accountId: grant.accountId,
  plan: grant.plan,
  label: k.label,
  environment: k.environment,
  scopes: k.scopes,
  status: k.status,
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
