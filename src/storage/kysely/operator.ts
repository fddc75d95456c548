/**
 * The operator's lists, the key roll, admin tokens and idempotency keys, as
 * Kysely writes them for either dialect (docs/decisions.md, 57). Changes
 * append their audit record in their own transaction, as kysely/access.ts does.
 */
import type {
  AdminTokenRecord,
  AdminTokenStatus,
  AuditActor,
  AuditFilter,
  AuditRecord,
  IdempotencyClaim,
  KeysetPage,
} from '../admin-records.js';
import type { OperatorRepository } from '../repositories/operator.js';
import type { Database } from '../schema.js';
import { splitScopes } from './access-rows.js';
import { appendAudit, auditInstant, changesOf, toAudit } from './audit.js';
import { bump, createdAfter, type Db } from './database.js';

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

/** The operator repository as both backends run it. */
export class KyselyOperator implements OperatorRepository {
  constructor(protected readonly db: Db) {}

  async createAdminToken(t: AdminTokenRecord, actor?: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
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

  async getAdminToken(id: string): Promise<AdminTokenRecord | undefined> {
    const r = await this.db.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toAdminToken(r);
  }

  async findAdminTokenByDigest(digest: string): Promise<AdminTokenRecord | undefined> {
    const r = await this.db
      .selectFrom('admin_tokens')
      .selectAll()
      .where('digest', '=', digest)
      .executeTakeFirst();
    return r && toAdminToken(r);
  }

  async listAdminTokens(page: KeysetPage): Promise<AdminTokenRecord[]> {
    let q = this.db.selectFrom('admin_tokens').selectAll();
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toAdminToken);
  }

  async revokeAdminToken(id: string, now: number, actor?: AuditActor): Promise<AdminTokenRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
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

  async updateAdminTokenScopes(
    id: string,
    scopes: string[],
    now: number,
    actor?: AuditActor,
  ): Promise<AdminTokenRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.selectFrom('admin_tokens').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r) return undefined;
      const before = toAdminToken(r);
      const same = before.scopes.length === scopes.length && before.scopes.every((s) => scopes.includes(s));
      if (before.status === 'revoked' || same) return before;
      await trx
        .updateTable('admin_tokens')
        .set({ scopes: scopes.join(',') })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .execute();
      const after: AdminTokenRecord = { ...before, scopes };
      await appendAudit(
        trx,
        actor,
        'admin_token.update',
        id,
        changesOf(tokenFields(before), tokenFields(after)),
        now,
      );
      await bump(trx, 'access');
      return after;
    });
  }

  async touchAdminToken(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('admin_tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }

  async claimIdempotencyKey(
    actor: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): Promise<IdempotencyClaim> {
    // Expired claims go first (this key's among them), so the table holds one TTL of requests.
    await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
    // A row released between our failed INSERT and the read is claimed again: a few rounds at most.
    for (let round = 0; round < 5; round++) {
      const inserted = await this.db
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
      const row = await this.db
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

  async completeIdempotencyKey(actor: string, key: string, status: number, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status, body })
      .where('actor', '=', actor)
      .where('key', '=', key)
      .execute();
  }

  async releaseIdempotencyKey(actor: string, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('actor', '=', actor).where('key', '=', key).execute();
  }

  async listAudit(f: AuditFilter, page: KeysetPage): Promise<AuditRecord[]> {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (f.actor !== undefined) q = q.where('actor_id', '=', f.actor);
    if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    if (f.from !== undefined) q = q.where('at', '>=', f.from);
    if (f.to !== undefined) q = q.where('at', '<=', f.to);
    const after = page.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
      );
    }
    const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
    return rows.map(toAudit);
  }
}
