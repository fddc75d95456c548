/**
 * Rows of accounts, grants and keys as records, and the fields of each that
 * the audit log records (never a digest or a secret: docs/decisions.md, 57).
 */
import type { AccountRecord, GrantRecord, GrantStatus, KeyRecord, KeyStatus } from '../admin-records.js';
import type { Database } from '../schema.js';
import { auditInstant } from './audit.js';
import type { Runner } from './database.js';

export const splitScopes = (text: string) => (text === '' ? [] : text.split(','));

export function toAccount(r: Database['accounts']): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    externalId: r.external_id,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function toGrant(r: Database['grants']): GrantRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    provider: r.provider,
    externalId: r.external_id,
    plan: r.plan,
    status: r.status as GrantStatus,
    scopes: splitScopes(r.scopes),
    validFrom: Number(r.valid_from),
    validUntil: Number(r.valid_until),
    monthlyRequestLimit: Number(r.monthly_request_limit),
    requestsPerMinute: Number(r.requests_per_minute),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function toKey(r: Database['api_keys']): KeyRecord {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    publicId: r.public_id,
    grantId: r.grant_id,
    environment: r.environment as 'live' | 'test',
    digest: r.digest,
    label: r.label,
    scopes: r.scopes === null ? null : splitScopes(r.scopes),
    status: r.status as KeyStatus,
    expiresAt: num(r.expires_at),
    lastUsedAt: num(r.last_used_at),
    createdAt: Number(r.created_at),
    revokedAt: num(r.revoked_at),
  };
}

/** What the audit log records of each: never a digest or a secret. */
export const accountFields = (a: AccountRecord) => ({
  name: a.name,
  email: a.email,
  externalId: a.externalId,
});

export const grantFields = (g: GrantRecord) => ({
  accountId: g.accountId,
  provider: g.provider,
  externalId: g.externalId,
  plan: g.plan,
  status: g.status,
  scopes: g.scopes,
  validFrom: auditInstant(g.validFrom),
  validUntil: auditInstant(g.validUntil),
  monthlyRequestLimit: g.monthlyRequestLimit,
  requestsPerMinute: g.requestsPerMinute,
});

export const keyFields = (k: KeyRecord) => ({
  grantId: k.grantId,
  environment: k.environment,
  label: k.label,
  scopes: k.scopes,
  status: k.status,
  expiresAt: auditInstant(k.expiresAt),
  revokedAt: auditInstant(k.revokedAt),
});

export async function insertKey(trx: Runner, k: KeyRecord): Promise<void> {
  await trx
    .insertInto('api_keys')
    .values({
      public_id: k.publicId,
      grant_id: k.grantId,
      environment: k.environment,
      digest: k.digest,
      label: k.label,
      scopes: k.scopes === null ? null : k.scopes.join(','),
      status: k.status,
      expires_at: k.expiresAt,
      last_used_at: k.lastUsedAt,
      created_at: k.createdAt,
      revoked_at: k.revokedAt,
    })
    .execute();
}
