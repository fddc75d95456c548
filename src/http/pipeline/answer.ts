/**
 * What the pipeline reads (a request, from the entrance) and what it
 * decides (decide.ts) for the one writer to write (write.ts): an answer, made
 * from a refusal or from an operation's outcome.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessContext } from '../../access/authenticator.js';
import type { LimitDecision } from '../../limits/limiter.js';
import { type ApiError, errorBody, notFound } from '../errors.js';
import { CSV_TYPE, cacheControl, JSON_TYPE, linkFor, type Prepared, VARY_PAGE } from '../respond.js';
import type { AnswerContext, Operation, Outcome } from './operation.js';
import type { QueryResult } from './query.js';
import { QUOTA_HEADERS, WITH_QUOTA } from './quota.js';

export interface V1Request {
  headers: IncomingHttpHeaders;
  /** The headers as received (`[name, value, …]`): a repeated credential header shows only here. */
  rawHeaders: readonly string[];
  /** The query as the operation's validator judged it. */
  query: QueryResult<unknown>;
  /** The request target as received: the Link header keeps its query. */
  url: string;
  requestId: string;
  /** The client's address (trusted proxies applied), for the failed-attempt throttle. */
  ip: () => string;
}

export interface Answer {
  status: number;
  /** Flat [name, value, …] with lower-case names; X-Request-Id and HSTS are every answer's (the writers'). */
  headers: string[];
  /** Prepared: the request id goes between its halves; a string: the whole body; null: none (304). */
  body: Prepared | string | null;
  /** The writer may compress the body (Vary is already among the headers). */
  compressible: boolean;
  access: AccessContext | null;
  /** What the request consumed, for the give-back if the answer then cannot be written. */
  consumed: LimitDecision | null;
}

const QUOTA_HEADER_NAMES: ReadonlySet<string> = new Set(QUOTA_HEADERS);

/** The answer to a refusal or failure: the envelope, with the quota headers if its status carries them. */
export function errorAnswer(
  api: ApiError,
  requestId: string,
  set: string[] = [],
  access: AccessContext | null = null,
): Answer {
  const headers = WITH_QUOTA.has(api.status) ? set : set.filter(notQuota);
  if (api.headers) for (const [name, value] of Object.entries(api.headers)) headers.push(name, String(value));
  headers.push('content-type', JSON_TYPE);
  return {
    status: api.status,
    headers,
    body: errorBody(api, requestId),
    compressible: false,
    access,
    consumed: null,
  };
}

/** For a flat header list: drops quota pairs (name and value). */
function notQuota(this: void, _: string, i: number, all: string[]): boolean {
  const name = i % 2 === 0 ? all[i]! : all[i - 1]!;
  return !QUOTA_HEADER_NAMES.has(name);
}

/** True when the client's `If-None-Match` names this representation (RFC 9110 §13.1.2, weak comparison). */
function matches(given: string | undefined, etag: string): boolean {
  if (given === undefined) return false;
  return (
    given === etag ||
    given === '*' ||
    given.split(',').some((t) => t.trim() === etag || t.trim() === etag.slice(2))
  );
}

/** Step 7's outcome as an answer (`set` holds the quota headers). */
export function outcomeAnswer(
  op: Operation,
  request: V1Request,
  outcome: Outcome,
  set: string[],
  context: AnswerContext,
): Answer {
  const { access, limits } = context;
  if ('notFound' in outcome) return errorAnswer(notFound(outcome.notFound), request.requestId, set, access);
  if ('data' in outcome) {
    set.push('content-type', JSON_TYPE, 'vary', 'accept-encoding');
    const meta = { requestId: request.requestId, ...outcome.meta };
    const body = op.serialize({ data: outcome.data, meta });
    return { status: 200, headers: set, body, compressible: true, access, consumed: limits };
  }
  const { body, maxAge } = outcome;
  set.push('etag', body.etag, 'cache-control', cacheControl(maxAge));
  const vary = op.csv ? VARY_PAGE : 'accept-encoding';
  if (matches(request.headers['if-none-match'], body.etag)) {
    if (op.csv) set.push('vary', vary);
    return { status: 304, headers: set, body: null, compressible: false, access, consumed: limits };
  }
  if (body.next) set.push('link', linkFor(body, body.next, request.url));
  set.push('content-type', body.csv ? CSV_TYPE : JSON_TYPE, 'vary', vary);
  return { status: 200, headers: set, body, compressible: true, access, consumed: limits };
}
