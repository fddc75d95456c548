/**
 * The error vocabulary of the API (decisions §1–2). Everything the pipeline or
 * a handler refuses is an ApiError; the error handler turns it into the one
 * documented body shape.
 */
import type { AccessRefusalReason, AccessRefused } from '../access/authenticator.js';
import type { Problem } from '../domain/problems.js';
import { LimiterUnavailableError } from '../limits/limiter.js';
import { ErrorCode, errorBody as errorEnvelope } from '../schemas/errors.js';
import { type ImportRefusal, ImportRefusedInfo } from '../schemas/import-report.js';
import { StoreUnavailableError } from '../storage/errors.js';
import { serializer } from './serialize.js';

/** One entry of `error.details`: a problem a domain rule or the query validator found. */
export type ErrorDetail = Problem;

const MESSAGES: Record<ErrorCode, string> = {
  route_not_found: 'No such endpoint.',
  method_not_allowed: 'Only GET and HEAD are supported.',
  missing_api_key: 'An API key is required: send Authorization: Bearer <key> or X-API-Key.',
  invalid_api_key: 'The API key is not valid.',
  revoked_api_key: 'The API key has been revoked.',
  expired_api_key: 'The API key has expired.',
  grant_inactive: 'The access grant of this key is not active.',
  invalid_parameter: 'One or more query parameters are invalid.',
  invalid_cursor: 'The cursor is not valid for this request.',
  insufficient_scope: 'The key is not entitled to this operation.',
  rate_limited: 'Per-minute request limit exceeded.',
  quota_exceeded: 'Monthly request quota exceeded.',
  not_found: 'The requested resource was not found.',
  service_unavailable: 'The service is temporarily unavailable. Retry later.',
  internal_error: 'An unexpected error occurred.',
  uri_too_long: 'The request URL is too long.',
  headers_too_large: 'The request headers are too large.',
  request_timeout: 'The request was not received in time.',
  bad_request: 'The request is not valid HTTP.',
  too_many_requests: 'Too many invalid attempts from this address.',
  missing_admin_token: 'An admin token is required: send Authorization: Bearer mdsadm_….',
  invalid_admin_token: 'The admin token is not valid.',
  insufficient_admin_scope: 'The admin token lacks the scope this operation requires.',
  invalid_request: 'The request is not valid.',
  conflict: 'The request conflicts with the current state of the resource.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request.',
  idempotency_key_in_progress: 'A request with this Idempotency-Key is still being processed. Retry later.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body has an unsupported Content-Type.',
  missing_reporter_token: 'A reporter token is required: send Authorization: Bearer mdsrep_….',
  invalid_reporter_token: 'The reporter token is not valid.',
  expired_reporter_token: 'The reporter token was rolled and its grace period has ended: use the new token.',
  reporter_inactive: 'This reporter is not active: ask the operator.',
  insufficient_storage:
    'Disk full: the store refused the write and nothing was changed. Free space on its disk, then retry; no restart is needed.',
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string | number>,
    message?: string,
    /** A refused data import's report (schemas/import-report.ts), sent as `error.report`. */
    readonly report?: ImportRefusal,
  ) {
    super(message ?? MESSAGES[code]);
    this.name = 'ApiError';
  }
}

/** `invalid_cursor` only when the cursor is the only problem (docs/decisions.md 11b). */
export const invalidParameters = (details: ErrorDetail[]) =>
  new ApiError(
    400,
    details.some((d) => d.parameter === 'cursor') && details.every((d) => d.parameter === 'cursor')
      ? 'invalid_cursor'
      : 'invalid_parameter',
    details,
  );

export const notFound = (message?: string) => new ApiError(404, 'not_found', undefined, undefined, message);

export const serviceUnavailable = (retryAfter = 5) =>
  new ApiError(503, 'service_unavailable', undefined, { 'retry-after': retryAfter });

/** The stopping server's 503: again at once, on a new connection (another instance). */
export const stopping = () => serviceUnavailable(1);

/**
 * Store and limiter failures surface as 503 with Retry-After, never as a 500;
 * a refusal stays what it is; anything else is not ours to classify (null).
 */
export function unavailable(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailableError || err instanceof LimiterUnavailableError) {
    return serviceUnavailable();
  }
  return null;
}

const INVALID_TOKEN = { 'www-authenticate': 'Bearer error="invalid_token"' };

/** The status and headers of each refusal of a key (decisions §1 steps 2–3, 18a). */
const REFUSALS: Record<AccessRefusalReason, { status: number; headers?: Record<string, string> }> = {
  missing_api_key: { status: 401, headers: { 'www-authenticate': 'Bearer' } },
  invalid_api_key: { status: 401, headers: INVALID_TOKEN },
  revoked_api_key: { status: 401, headers: INVALID_TOKEN },
  expired_api_key: { status: 401, headers: INVALID_TOKEN },
  grant_inactive: { status: 403 },
  too_many_requests: { status: 429 },
};

/** The answer to a key the authenticator refused: 401, 403, or 429 with Retry-After. */
export function accessRefused(refusal: AccessRefused): ApiError {
  const { status, headers } = REFUSALS[refusal.reason];
  const sent =
    refusal.retryAfter !== undefined
      ? { ...headers, 'retry-after': refusal.retryAfter }
      : headers && { ...headers };
  return new ApiError(status, refusal.reason, undefined, sent, refusal.message);
}

/**
 * The error envelope with any code (schemas/errors.ts), compiled once, on the
 * first error body: error bodies are hot under attack, and a CLI command that
 * never writes one does not pay the compilation at start-up.
 */
let writeError: ReturnType<typeof compileErrorWriter> | undefined;
const compileErrorWriter = () =>
  serializer(errorEnvelope(ErrorCode.enum as ErrorCode[], {}, ImportRefusedInfo));

export function errorBody(err: ApiError, requestId: string): string {
  const { status, code, message, details, report } = err;
  writeError ??= compileErrorWriter();
  return writeError({ data: null, error: { status, code, message, details, report }, meta: { requestId } });
}
