/**
 * The operator's own records: admin tokens, the audit log and the admin API's
 * idempotency keys (docs/decisions.md, 57). Implemented in Kysely
 * (kysely/operator.ts). Tested on both backends by
 * test/storage/operator.contract.test.ts.
 */
import type {
  AdminTokenRecord,
  AuditActor,
  AuditFilter,
  AuditRecord,
  IdempotencyClaim,
  KeysetPage,
} from '../admin-records.js';

export interface OperatorRepository {
  createAdminToken(token: AdminTokenRecord, actor?: AuditActor): Promise<void>;
  getAdminToken(publicId: string): Promise<AdminTokenRecord | undefined>;
  findAdminTokenByDigest(digest: string): Promise<AdminTokenRecord | undefined>;
  /** Oldest first. */
  listAdminTokens(page: KeysetPage): Promise<AdminTokenRecord[]>;
  /** Final; a revoked token keeps its first revocation time. */
  revokeAdminToken(publicId: string, now: number, actor?: AuditActor): Promise<AdminTokenRecord | undefined>;
  /** Informational, not audited; never moves the time backwards. */
  /** The token with these scopes, in one transaction with its audit record (none when they are its scopes); unchanged when revoked. */
  updateAdminTokenScopes(
    publicId: string,
    scopes: string[],
    now: number,
    actor?: AuditActor,
  ): Promise<AdminTokenRecord | undefined>;
  touchAdminToken(publicId: string, at: number): Promise<void>;

  /** Newest first (time, then id). */
  listAudit(filter: AuditFilter, page: KeysetPage): Promise<AuditRecord[]>;

  /**
   * Claims `key` for `actor`: an INSERT that loses the race on the primary key
   * tells a concurrent duplicate apart on every backend. A row past its expiry
   * is replaced.
   */
  claimIdempotencyKey(
    actor: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): Promise<IdempotencyClaim>;
  completeIdempotencyKey(actor: string, key: string, status: number, body: string): Promise<void>;
  /** Drops a claim (the request failed with a 5xx), so that a retry runs. */
  releaseIdempotencyKey(actor: string, key: string): Promise<void>;
}
