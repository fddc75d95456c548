/**
 * The operator's lists, the key roll, admin tokens and idempotency keys, as
 * Kysely writes them for either dialect (docs/decisions.md, 57). Changes
 * append their audit record in their own transaction, as kysely/access.ts does.
 */

import { keyCreated } from '../../domain/webhook-builders.js';
import type {
  AccountFilter,
  AccountRecord,
  AdminTokenRecord,
  AdminTokenStatus,
  AuditActor,
  GrantFilter,
  GrantRecord,
  IdempotencyClaim,
  KeyFilter,
  KeyListItem,
  KeyRecord,
  KeysetPage,
} from '../admin-records.js';
import type { Database } from '../schema.js';
import { insertKey } from './access.js';
import { grantAccount } from './access-events.js';
import { keyFields, splitScopes, toAccount, toGrant, toKey } from './access-rows.js';
import { appendAudit, auditInstant, changesOf } from './audit.js';
import { bump, createdAfter, type Db } from './database.js';
import { emitIn } from './webhooks.js';

export async function listAccounts(db: Db, f: AccountFilter, page: KeysetPage): Promise<AccountRecord[]> {
  let q = db.selectFrom('accounts').selectAll();
  if (f.externalId !== undefined) q = q.where('external_id', '=', f.externalId);
  if (f.email !== undefined) q = q.where('email', '=', f.email);
  if (page.after) q = q.where(createdAfter(page.after));
  const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
  return rows.map(toAccount);
}

export async function listGrants(db: Db, f: GrantFilter, page: KeysetPage): Promise<GrantRecord[]> {
  let q = db.selectFrom('grants').selectAll();
  if (f.accountId !== undefined) q = q.where('account_id', '=', f.accountId);
  if (f.provider !== undefined) q = q.where('provider', '=', f.provider);
  if (f.externalId !== undefined) q = q.where('external_id', '=', f.externalId);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (page.after) q = q.where(createdAfter(page.after));
  const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
  return rows.map(toGrant);
}

export async function listKeyItems(db: Db, f: KeyFilter, page: KeysetPage): Promise<KeyListItem[]> {
  let q = db
    .selectFrom('api_keys as k')
    .innerJoin('grants as g', 'g.id', 'k.grant_id')
    .selectAll('k')
    .select(['g.account_id as account_id', 'g.plan as plan']);
  if (f.grantId !== undefined) q = q.where('k.grant_id', '=', f.grantId);
  if (f.accountId !== undefined) q = q.where('g.account_id', '=', f.accountId);
  const after = page.after;
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('k.created_at', '>', after.at),
        eb.and([eb('k.created_at', '=', after.at), eb('k.public_id', '>', after.id)]),
      ]),
    );
  }
  const rows = await q.orderBy('k.created_at').orderBy('k.public_id').limit(page.limit).execute();
  return rows.map((r) => ({ ...toKey(r), accountId: r.account_id, plan: r.plan }));
}

export async function rollKey(
  db: Db,
  publicId: string,
  next: KeyRecord,
  oldExpiresAt: number,
  now: number,
  actor?: AuditActor,
): Promise<{ old: KeyRecord; next: KeyRecord } | undefined> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .selectFrom('api_keys')
      .selectAll()
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    if (!r) return undefined;
    const before = toKey(r);
    // The grace period only ever shortens the old key's life: an earlier expiry stays.
    const expiresAt = before.expiresAt === null ? oldExpiresAt : Math.min(before.expiresAt, oldExpiresAt);
    await insertKey(trx, next);
    await trx
      .updateTable('api_keys')
      .set({ expires_at: expiresAt })
      .where('public_id', '=', publicId)
      .execute();
    const old: KeyRecord = { ...before, expiresAt };
    const changes = {
      ...changesOf(keyFields(before), keyFields(old)),
      replacedBy: { before: null, after: next.publicId },
    };
    await appendAudit(trx, actor, 'key.roll', publicId, changes, now);
    await emitIn(trx, [keyCreated(next, await grantAccount(trx, next.grantId))], now);
    await bump(trx, 'access');
    return { old, next };
  });
}

function toAdminToken(r: Database['admin_tokens']): AdminTokenRecord {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    publicId: r.id,
    digest: r.digest,
    label: r.label,
    scopes: splitScopes(r.scopes),
    status: r.status as AdminTokenStatus,
    createdAt: Number(r.created_at),
    lastUsedAt: num(r.last_used_at),
    revokedAt: num(r.revoked_at),
  };
}

/** What the audit log records of a token: never its digest. */
const tokenFields = (t: AdminTokenRecord) => ({
  label: t.label,
  scopes: t.scopes,
  status: t.status,
  revokedAt: auditInstant(t.revokedAt),
});

export async function createAdminToken(db: Db, t: AdminTokenRecord, actor?: AuditActor): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('admin_tokens')
      .values({
        id: t.publicId,
        digest: t.digest,
        label: t.label,
        scopes: t.scopes.join(','),
        status: t.status,
        created_at: t.createdAt,
        last_used_at: t.lastUsedAt,
        revoked_at: t.revokedAt,
      })
      .execute();
    await appendAudit(
      trx,
      actor,
      'admin_token.create',
      t.publicId,
      changesOf(null, tokenFields(t)),
      t.createdAt,
    );
    // Instances caching tokens drop them on the access version, as they do keys.
    await bump(trx, 'access');
  });
}

export async function getAdminToken(db: Db, id: string): Promise<AdminTokenRecord | undefined> {
  const r = await db.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toAdminToken(r);
}

export async function findAdminTokenByDigest(db: Db, digest: string): Promise<AdminTokenRecord | undefined> {
  const r = await db.selectFrom('admin_tokens').selectAll().where('digest', '=', digest).executeTakeFirst();
  return r && toAdminToken(r);
}

export async function listAdminTokens(db: Db, page: KeysetPage): Promise<AdminTokenRecord[]> {
  let q = db.selectFrom('admin_tokens').selectAll();
  if (page.after) q = q.where(createdAfter(page.after));
  const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
  return rows.map(toAdminToken);
}

export async function revokeAdminToken(
  db: Db,
  id: string,
  now: number,
  actor?: AuditActor,
): Promise<AdminTokenRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const r = await trx.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) return undefined;
    const before = toAdminToken(r);
    if (before.status === 'revoked') return before;
    await trx
      .updateTable('admin_tokens')
      .set({ status: 'revoked', revoked_at: now })
      .where('id', '=', id)
      .execute();
    const after: AdminTokenRecord = { ...before, status: 'revoked', revokedAt: now };
    await appendAudit(
      trx,
      actor,
      'admin_token.revoke',
      id,
      changesOf(tokenFields(before), tokenFields(after)),
      now,
    );
    await bump(trx, 'access');
    return after;
  });
}

export async function touchAdminToken(db: Db, id: string, at: number): Promise<void> {
  await db
    .updateTable('admin_tokens')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
}

export async function claimIdempotencyKey(
  db: Db,
  actor: string,
  key: string,
  fingerprint: string,
  now: number,
  ttlMs: number,
): Promise<IdempotencyClaim> {
  // Expired claims go first (this key's among them), so the table holds one TTL of requests.
  await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  // A row released between our failed INSERT and the read is claimed again: a few rounds at most.
  for (let round = 0; round < 5; round++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        actor,
        key,
        fingerprint,
        status: null,
        body: null,
        created_at: now,
        expires_at: now + ttlMs,
      })
      .onConflict((oc) => oc.columns(['actor', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return { state: 'claimed' };
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('actor', '=', actor)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) continue;
    if (row.status === null || row.body === null) {
      return { state: 'in_progress', fingerprint: row.fingerprint };
    }
    return { state: 'done', fingerprint: row.fingerprint, status: Number(row.status), body: row.body };
  }
  throw new Error(`idempotency key ${key}: claimed and released repeatedly while being claimed`);
}

export async function completeIdempotencyKey(
  db: Db,
  actor: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status, body })
    .where('actor', '=', actor)
    .where('key', '=', key)
    .execute();
}

export async function releaseIdempotencyKey(db: Db, actor: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('actor', '=', actor).where('key', '=', key).execute();
}
