/**
 * Reporter authentication and the per-reporter limit (docs/decisions.md 110, 111).
 * `Authorization: Bearer mdsrep_…` only: an admin token or an API key is an
 * invalid reporter token. Failed attempts are throttled per client address as
 * for admin tokens (access/failed-attempts.ts); a token that verifies is
 * served from any address. Nothing is cached: a suspension holds on the next
 * request on every instance.
 *
 * The per-reporter limit is protective, not billed: a fixed UTC-minute window
 * counted in this process, so N instances behind a balancer allow up to N
 * times the limit (decisions 111).
 */
import { FailedAttempts } from '../../access/failed-attempts.js';
import { minuteWindow, secondsUntil } from '../../domain/dates.js';
import type { ReporterRecord } from '../../storage/reporter-records.js';
import type { ReporterAccess } from '../../use-cases/quotes.js';
import { ADMIN_FAILED_ATTEMPTS_LIMIT } from '../admin/auth.js';
import { ApiError } from '../errors.js';

export const REPORTER_TOKEN_TAG = 'mdsrep_';

const BEARER = /^Bearer +(\S+) *$/i;
const MISSING = { 'www-authenticate': 'Bearer' };
const INVALID = { 'www-authenticate': 'Bearer error="invalid_token"' };

export type VerifyReporterToken = (token: string, now: number) => Promise<ReporterAccess>;

export class ReporterAuthenticator {
  constructor(
    private readonly verify: VerifyReporterToken,
    private readonly attempts = new FailedAttempts(ADMIN_FAILED_ATTEMPTS_LIMIT),
  ) {}

  /** The token's reporter, or the refusal to answer with (401, 403, or 429 once the address failed too often). */
  async authenticate(
    authorization: string | string[] | undefined,
    address: string,
    now: number,
  ): Promise<ReporterRecord | ApiError> {
    if (authorization === undefined || authorization === '')
      return new ApiError(401, 'missing_reporter_token', undefined, MISSING);
    const presented = Array.isArray(authorization) ? undefined : BEARER.exec(authorization)?.[1];
    // Only something shaped like a reporter token reaches the store.
    const access: ReporterAccess =
      presented?.startsWith(REPORTER_TOKEN_TAG) === true
        ? await this.verify(presented, now)
        : { ok: false, reason: 'invalid' };
    if (access.ok) return access.reporter;
    if (access.reason === 'inactive') {
      return new ApiError(
        403,
        'reporter_inactive',
        undefined,
        undefined,
        `This reporter is ${access.status}: its quotes are not taken; ask the operator.`,
      );
    }
    const wait = this.attempts.blockedFor(address, now);
    if (wait > 0) return new ApiError(429, 'too_many_requests', undefined, { 'retry-after': wait });
    this.attempts.fail(address, now);
    return access.reason === 'expired'
      ? new ApiError(401, 'expired_reporter_token', undefined, INVALID)
      : new ApiError(401, 'invalid_reporter_token', undefined, INVALID);
  }
}

const MAX_TRACKED = 100_000;

/** Requests per reporter per UTC minute, in this process. */
export class ReporterRateLimit {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(readonly perMinute: number) {}

  /** Counts a request: 0 when allowed, else the seconds until the minute ends. */
  take(reporterId: string, now: number): number {
    const { start, end } = minuteWindow(now);
    if (start !== this.window || this.counts.size > MAX_TRACKED) {
      this.window = start;
      this.counts = new Map();
    }
    const used = this.counts.get(reporterId) ?? 0;
    if (used >= this.perMinute) return secondsUntil(end, now);
    this.counts.set(reporterId, used + 1);
    return 0;
  }
}
