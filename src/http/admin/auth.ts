/**
 * Admin authentication (docs/decisions.md 58): `Authorization: Bearer
 * mdsadm_…` only. An API key, a malformed or unknown token, a revoked one: 401,
 * the same answer for each, so that nothing tells which tokens exist. Failed
 * attempts are throttled per client address as on /v1 (access/failed-attempts.ts,
 * decisions 18a): a token that verifies is served from any address; an address
 * that failed too often this minute gets 429 with Retry-After.
 *
 * Nothing is cached: every admin request reads its token from the store, so a
 * revocation holds on the next request on every instance (admin traffic is an
 * operator's, not a customer's).
 */
import { FailedAttempts } from '../../access/failed-attempts.js';
import type { AdminScope } from '../../schemas/admin.js';
import { ApiError } from '../errors.js';

/** What a verified admin token tells: who it is (the audit log's actor) and what it may do. */
export interface AdminIdentity {
  publicId: string;
  label: string;
  scopes: readonly string[];
}

/** The store's verdict on a presented token: its record when it is valid and not revoked, else null. */
export type VerifyAdminToken = (token: string) => Promise<AdminIdentity | null>;

/** Every admin token starts with it; an API key (`mds_live_…`) does not. */
export const ADMIN_TOKEN_TAG = 'mdsadm_';
/** Failed admin authentications an address may make per UTC minute before it gets 429. */
export const ADMIN_FAILED_ATTEMPTS_LIMIT = 10;

const BEARER = /^Bearer +(\S+) *$/i;
const MISSING = { 'www-authenticate': 'Bearer' };
const INVALID = { 'www-authenticate': 'Bearer error="invalid_token"' };

export class AdminAuthenticator {
  constructor(
    private readonly verify: VerifyAdminToken,
    private readonly attempts = new FailedAttempts(ADMIN_FAILED_ATTEMPTS_LIMIT),
  ) {}

  /** The token's identity, or the refusal to answer with (401, or 429 once the address failed too often). */
  async authenticate(
    authorization: string | string[] | undefined,
    address: string,
    now: number,
  ): Promise<AdminIdentity | ApiError> {
    if (authorization === undefined || authorization === '')
      return new ApiError(401, 'missing_admin_token', undefined, MISSING);
    const presented = presentedToken(authorization);
    // Only something shaped like an admin token reaches the store.
    const identity = presented?.startsWith(ADMIN_TOKEN_TAG) === true ? await this.verify(presented) : null;
    if (identity) return identity;
    const wait = this.attempts.blockedFor(address, now);
    if (wait > 0) return new ApiError(429, 'too_many_requests', undefined, { 'retry-after': wait });
    this.attempts.fail(address, now);
    return new ApiError(401, 'invalid_admin_token', undefined, INVALID);
  }
}

/** The credential of a Bearer header, as presented (the one authenticate verified). */
export function presentedToken(authorization: string | string[] | undefined): string | undefined {
  return typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
}

/** 403 unless the token holds `scope`. */
export function requireScope(identity: AdminIdentity, scope: AdminScope): ApiError | undefined {
  if (identity.scopes.includes(scope)) return undefined;
  return new ApiError(
    403,
    'insufficient_admin_scope',
    undefined,
    undefined,
    `The admin token lacks the scope ${scope}, which this operation requires.`,
  );
}
