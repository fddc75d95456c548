import { grantUpdated, keyCreated, keyRevoked } from '../../domain/webhook-builders.js';
import {
  type AccountPatch,
  type AccountRecord,
  type AuditActor,
  DuplicateError,
  GrantCancelledError,
  type GrantPatch,
  type GrantRecord,
  type KeyRecord,
  type NewAccount,
  type NewGrant,
} from '../admin-records.js';
import type { AccessRepository } from '../repositories/access.js';
import type { Database } from '../schema.js';
import { grantAccount } from './access-events.js';
import { KyselyAccessLists } from './access-lists.js';
import {
  accountFields,
  grantFields,
  insertKey,
  keyFields,
  toAccount,
  toGrant,
  toKey,
} from './access-rows.js';
import { appendAudit, changesOf, isUniqueViolation } from './audit.js';
import { bump } from './database.js';
import { emitIn } from './webhooks.js';

/** An insert refused by the unique index of an external id becomes a DuplicateError. */
async function unique<T>(externalId: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (externalId != null && isUniqueViolation(err)) throw new DuplicateError('externalId');
    throw err;
  }
}

/**
 * The access repository as both backends run it; SQLite writes `lastUsedAt`
 * its own way (sqlite-access.ts).
 */
export class KyselyAccess extends KyselyAccessLists implements AccessRepository {
  async createAccount(given: NewAccount, actor?: AuditActor): Promise<void> {
    const a: AccountRecord = {
      ...given,
      externalId: given.externalId ?? null,
      updatedAt: given.updatedAt ?? given.createdAt,
    };
    await unique(a.externalId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({
            id: a.id,
            name: a.name,
            email: a.email,
            external_id: a.externalId,
            created_at: a.createdAt,
            updated_at: a.updatedAt,
          })
          .execute();
        await appendAudit(trx, actor, 'account.create', a.id, changesOf(null, accountFields(a)), a.createdAt);
        await bump(trx, 'access');
      }),
    );
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const r = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toAccount(r);
  }

  async updateAccount(
    id: string,
    patch: AccountPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<AccountRecord | undefined> {
    return unique(patch.externalId, () =>
      this.db.transaction().execute(async (trx) => {
        const r = await trx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
        if (!r) return undefined;
        const before = toAccount(r);
        const after: AccountRecord = {
          ...before,
          name: patch.name === undefined ? before.name : patch.name,
          email: patch.email === undefined ? before.email : patch.email,
          externalId: patch.externalId === undefined ? before.externalId : patch.externalId,
        };
        const changes = changesOf(accountFields(before), accountFields(after));
        // Nothing changed: nothing to write or record.
        if (Object.keys(changes).length === 0) return before;
        after.updatedAt = now;
        await trx
          .updateTable('accounts')
          .set({ name: after.name, email: after.email, external_id: after.externalId, updated_at: now })
          .where('id', '=', id)
          .execute();
        await appendAudit(trx, actor, 'account.update', id, changes, now);
        await bump(trx, 'access');
        return after;
      }),
    );
  }

  async countAccounts(): Promise<number> {
    const r = await this.db
      .selectFrom('accounts')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async createGrant(given: NewGrant, actor?: AuditActor): Promise<void> {
    const g: GrantRecord = { ...given, externalId: given.externalId ?? null };
    await unique(g.externalId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('grants')
          .values({
            id: g.id,
            account_id: g.accountId,
            provider: g.provider,
            external_id: g.externalId,
            plan: g.plan,
            status: g.status,
            scopes: g.scopes.join(','),
            valid_from: g.validFrom,
            valid_until: g.validUntil,
            monthly_request_limit: g.monthlyRequestLimit,
            requests_per_minute: g.requestsPerMinute,
            created_at: g.createdAt,
            updated_at: g.updatedAt,
          })
          .execute();
        await appendAudit(trx, actor, 'grant.create', g.id, changesOf(null, grantFields(g)), g.createdAt);
        await bump(trx, 'access');
      }),
    );
  }

  async getGrant(id: string): Promise<GrantRecord | undefined> {
    const r = await this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toGrant(r);
  }

  async updateGrant(
    id: string,
    patch: GrantPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<GrantRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r) return undefined;
      const before = toGrant(r);
      const set: Partial<Database['grants']> = { updated_at: now };
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.scopes !== undefined) set.scopes = patch.scopes.join(',');
      if (patch.monthlyRequestLimit !== undefined) set.monthly_request_limit = patch.monthlyRequestLimit;
      if (patch.requestsPerMinute !== undefined) set.requests_per_minute = patch.requestsPerMinute;
      if (patch.validUntil !== undefined) set.valid_until = patch.validUntil;
      let update = trx.updateTable('grants').set(set).where('id', '=', id);
      // Cancelled is final, checked by the statement itself: a concurrent cancel cannot be undone.
      if (patch.status !== undefined && patch.status !== 'cancelled') {
        update = update.where('status', '<>', 'cancelled');
      }
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) throw new GrantCancelledError(id);
      const after = toGrant(updated);
      const changes = changesOf(grantFields(before), grantFields(after));
      if (Object.keys(changes).length > 0) {
        await appendAudit(trx, actor, 'grant.update', id, changes, now);
        await emitIn(trx, [grantUpdated(after, changes)], now);
      }
      await bump(trx, 'access');
      return after;
    });
  }

  async createKey(k: KeyRecord, actor?: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await insertKey(trx, k);
      await appendAudit(trx, actor, 'key.create', k.publicId, changesOf(null, keyFields(k)), k.createdAt);
      await emitIn(trx, [keyCreated(k, await grantAccount(trx, k.grantId))], k.createdAt);
      await bump(trx, 'access');
    });
  }

  async getKey(publicId: string): Promise<KeyRecord | undefined> {
    const r = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return r && toKey(r);
  }

  async listKeys(grantId?: string): Promise<KeyRecord[]> {
    let q = this.db.selectFrom('api_keys').selectAll();
    if (grantId !== undefined) q = q.where('grant_id', '=', grantId);
    const rows = await q.orderBy('created_at').orderBy('public_id').execute();
    return rows.map(toKey);
  }

  async revokeKey(publicId: string, now: number, actor?: AuditActor): Promise<KeyRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('public_id', '=', publicId)
        .executeTakeFirst();
      if (!r) return undefined;
      const before = toKey(r);
      // Revocation is final: a revoked key keeps its first revocation time, and
      // revoking it again changes (and records) nothing.
      if (before.status === 'revoked') return before;
      await trx
        .updateTable('api_keys')
        .set({ status: 'revoked', revoked_at: now })
        .where('public_id', '=', publicId)
        .execute();
      const after: KeyRecord & { revokedAt: number } = { ...before, status: 'revoked', revokedAt: now };
      await appendAudit(
        trx,
        actor,
        'key.revoke',
        publicId,
        changesOf(keyFields(before), keyFields(after)),
        now,
      );
      await emitIn(trx, [keyRevoked(after, await grantAccount(trx, after.grantId))], now);
      await bump(trx, 'access');
      return after;
    });
  }

  /**
   * PostgreSQL's `lastUsedAt` updates; SQLite runs them on its raw connection
   * (sqlite-access.ts). lastUsedAt is informational: it does not bump the access version.
   */
  async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    if (uses.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const u of uses) {
        await trx
          .updateTable('api_keys')
          .set({ last_used_at: u.at })
          .where('public_id', '=', u.publicId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', u.at)]))
          .execute();
      }
    });
  }
}
