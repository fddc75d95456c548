/**
 * The operator's lists, the key roll, admin tokens and idempotency keys, as
 * Kysely writes them for either dialect (docs/decisions.md, 57). Changes
 * append their audit record in their own transaction, as kysely/access.ts does.
 */

import { keyCreated } from '../../domain/webhook-builders.js';
import type {
  AccountFilter,
  AccountRecord,
  AuditActor,
  GrantFilter,
  GrantRecord,
  KeyFilter,
  KeyListItem,
  KeyRecord,
  KeysetPage,
} from '../admin-records.js';
import { grantAccount } from './access-events.js';
import { insertKey, keyFields, toAccount, toGrant, toKey } from './access-rows.js';
import { appendAudit, changesOf } from './audit.js';
import { bump, createdAfter, type Db } from './database.js';
import { emitIn } from './webhooks.js';

/**
 * The lists of accounts, grants and keys and the key roll: the part of the
 * access repository KyselyAccess (access.ts) takes from here, for the size of
 * one file.
 */
export class KyselyAccessLists {
  constructor(protected readonly db: Db) {}

  async listAccounts(f: AccountFilter, page: KeysetPage): Promise<AccountRecord[]> {
    let q = this.db.selectFrom('accounts').selectAll();
    if (f.externalId !== undefined) q = q.where('external_id', '=', f.externalId);
    if (f.email !== undefined) q = q.where('email', '=', f.email);
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toAccount);
  }

  async listGrants(f: GrantFilter, page: KeysetPage): Promise<GrantRecord[]> {
    let q = this.db.selectFrom('grants').selectAll();
    if (f.accountId !== undefined) q = q.where('account_id', '=', f.accountId);
    if (f.provider !== undefined) q = q.where('provider', '=', f.provider);
    if (f.externalId !== undefined) q = q.where('external_id', '=', f.externalId);
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toGrant);
  }

  async listKeyItems(f: KeyFilter, page: KeysetPage): Promise<KeyListItem[]> {
    let q = this.db
      .selectFrom('api_keys as k')
      .innerJoin('grants as g', 'g.id', 'k.grant_id')
      .selectAll('k')
      .select([
        'g.account_id as account_id',
        'g.plan as plan',
        'g.status as grant_status',
        'g.valid_from as grant_valid_from',
        'g.valid_until as grant_valid_until',
      ]);
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
    return rows.map((r) => ({
      ...toKey(r),
      accountId: r.account_id,
      plan: r.plan,
      grantStatus: r.grant_status as KeyListItem['grantStatus'],
      grantValidFrom: Number(r.grant_valid_from),
      grantValidUntil: Number(r.grant_valid_until),
    }));
  }

  async rollKey(
    publicId: string,
    next: KeyRecord,
    oldExpiresAt: number,
    now: number,
    actor?: AuditActor,
  ): Promise<{ old: KeyRecord; next: KeyRecord } | undefined> {
    return this.db.transaction().execute(async (trx) => {
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
}
