/**
 * Accounts, grants and API keys. Each change appends its audit record in its
 * transaction, by `actor` (SYSTEM_ACTOR when not given). Implemented in Kysely
 * (kysely/access.ts, kysely/access-lists.ts); SQLite writes `lastUsedAt` its
 * own way (sqlite-access.ts). Tested on both backends by
 * test/storage/access.contract.test.ts.
 */
import type {
  AccountFilter,
  AccountPatch,
  AccountRecord,
  AuditActor,
  GrantFilter,
  GrantPatch,
  GrantRecord,
  KeyFilter,
  KeyListItem,
  KeyRecord,
  KeysetPage,
  NewAccount,
  NewGrant,
} from '../admin-records.js';

export interface AccessRepository {
  /** DuplicateError when another account has its externalId. */
  createAccount(account: NewAccount, actor?: AuditActor): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** DuplicateError when another grant of its provider has its externalId. */
  createGrant(grant: NewGrant, actor?: AuditActor): Promise<void>;
  getGrant(id: string): Promise<GrantRecord | undefined>;
  /** GrantCancelledError when it would reopen a cancelled grant. */
  updateGrant(
    id: string,
    patch: GrantPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<GrantRecord | undefined>;
  createKey(key: KeyRecord, actor?: AuditActor): Promise<void>;
  getKey(publicId: string): Promise<KeyRecord | undefined>;
  listKeys(grantId?: string): Promise<KeyRecord[]>;
  revokeKey(publicId: string, now: number, actor?: AuditActor): Promise<KeyRecord | undefined>;
  /** Best-effort `lastUsedAt` updates; never moves a timestamp backwards. */
  touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void>;
  countAccounts(): Promise<number>;

  updateAccount(
    id: string,
    patch: AccountPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<AccountRecord | undefined>;
  /** Oldest first (created time, then id). */
  listAccounts(filter: AccountFilter, page: KeysetPage): Promise<AccountRecord[]>;
  /** Oldest first (created time, then id). */
  listGrants(filter: GrantFilter, page: KeysetPage): Promise<GrantRecord[]>;
  /** Oldest first (created time, then public id), each with its grant's account and plan. */
  listKeyItems(filter: KeyFilter, page: KeysetPage): Promise<KeyListItem[]>;
  /**
   * One transaction: `next` created, the old key's expiry brought forward to
   * `oldExpiresAt` (never pushed back), one `key.roll` record. Undefined when
   * there is no such key.
   */
  rollKey(
    publicId: string,
    next: KeyRecord,
    oldExpiresAt: number,
    now: number,
    actor?: AuditActor,
  ): Promise<{ old: KeyRecord; next: KeyRecord } | undefined>;
}
