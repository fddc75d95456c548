/**
 * THE pipeline of every /v1 request (decisions §1): one function decides the
 * answer, `(operation, request) → { status, headers, body }`, and one writer
 * writes it (write.ts), whichever entrance the request came through.
 *
 *   1. route and method                 the router's (404, 405: plugins/errors.ts)
 *   2. authenticate the key             401 (429 for an address that keeps guessing)
 *   3. check the grant                  403 grant_inactive
 *   4. validate the query               400 (quota headers, nothing consumed)
 *   5. check the entitlement            403 insufficient_scope
 *   6. per-minute window and monthly quota, consumed atomically        429
 *   7. the operation's answer           200 / 304 / 404 (the unit stays consumed)
 *
 * The query is validated by the operation's own validator before the pipeline
 * runs (Fastify runs it as the route's validator; the raw entrance calls it), and
 * its result is reported here at step 4: validation is pure, so when it runs
 * does not matter, only where its refusal ranks.
 *
 * Every request gets an answer, whichever entrance it came through: the
 * entrances differ only in how the request reached the pipeline, never in
 * what it decides.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessContext } from '../../access/authenticator.js';
import { REPEATED_CREDENTIAL, repeatedCredential } from '../../access/credential-headers.js';
import { secondsUntil } from '../../domain/dates.js';
import type { LimitDecision } from '../../limits/limiter.js';
import type { Services } from '../../runtime/services.js';
import { prefersCsv } from '../accept.js';
import { ApiError, accessRefused, errorBody, invalidParameters, notFound, unavailable } from '../errors.js';
import { CSV_TYPE, cacheControl, JSON_TYPE, linkFor, type Prepared, VARY_PAGE } from '../respond.js';
import type { AnswerContext, Operation, Outcome } from './operation.js';
import type { QueryResult } from './query.js';
import { QUOTA_HEADERS, quotaHeaders, WITH_QUOTA } from './quota.js';

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

export type Decide = (op: Operation, request: V1Request) => Promise<Answer>;

/** Logs a failure of ours (not a refusal): the answer is then a 500. */
export type LogFailure = (err: unknown, requestId: string) => void;

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

export function decider(services: Services, logFailure: LogFailure): Decide {
  const { authenticator, limiter, activity, metrics } = services;
  const tally = (decision: string) => metrics.decisionTallies.for({ decision });
  const allowed = tally('allowed');
  const refused = { rate_limited: tally('rate_limited'), quota_exceeded: tally('quota_exceeded') };
  const unavailableCount = tally('unavailable');

  /** Any failure of a step: a refusal keeps its status; anything else is logged and a 500. */
  const failed = (err: unknown, request: V1Request, set: string[], access: AccessContext | null) => {
    let api = unavailable(err);
    if (!api) {
      logFailure(err, request.requestId);
      api = new ApiError(500, 'internal_error');
    }
    return errorAnswer(api, request.requestId, set, access);
  };

  /** Step 7's outcome as an answer (`set` holds the quota headers). */
  const answered = (
    op: Operation,
    request: V1Request,
    outcome: Outcome,
    set: string[],
    context: AnswerContext,
  ): Answer => {
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
  };

  /** Steps 4 to 7, for an authenticated key. */
  const proceed = (
    op: Operation,
    request: V1Request,
    access: AccessContext,
    now: number,
  ): Promise<Answer> => {
    const checked = request.query;
    if ('error' in checked) {
      return limiter.peek(access.grant, now).then(
        (state) =>
          errorAnswer(
            invalidParameters(checked.error.details),
            request.requestId,
            quotaHeaders(state),
            access,
          ),
        (err: unknown) => failed(err, request, [], access),
      );
    }
    const query = checked.value;
    const needed = op.entitlement(query);
    if (!access.keyScopes.has(needed) || !access.grantScopes.has(needed)) {
      const denied = new ApiError(403, 'insufficient_scope', [{ entitlement: needed }]);
      return Promise.resolve(errorAnswer(denied, request.requestId, [], access));
    }
    const csv = op.csv === true && prefersCsv(request.headers.accept);
    // A CSV request gets the CSV page or waits for it: never the JSON one.
    const ready = op.ready?.(query, csv);

    // Two handlers, no .catch(): a promise less on every request.
    return limiter.consume(access.grant, now, access.key.publicId).then(
      (decision) => {
        (decision.allowed ? allowed : refused[decision.reason!]).inc();
        const set = quotaHeaders(decision);
        if (!decision.allowed) {
          const retryAfter = secondsUntil(decision.retryAt!, decision.at);
          const limited = new ApiError(429, decision.reason!, undefined, { 'retry-after': retryAfter });
          return errorAnswer(limited, request.requestId, set, access);
        }
        activity.use(access.key.publicId, now);
        const context = { access, limits: decision, csv };
        try {
          // A prepared answer (the hot path) allocates no handler for a later failure.
          if (ready !== undefined) return answered(op, request, ready, set, context);
          const outcome = op.answer(query, context);
          if (!(outcome instanceof Promise)) return answered(op, request, outcome, set, context);
          return outcome
            .then((o) => answered(op, request, o, set, context))
            .catch((err: unknown) => giveBack(failed(err, request, set, access), access, decision));
        } catch (err) {
          return giveBack(failed(err, request, set, access), access, decision);
        }
      },
      (err: unknown) => {
        unavailableCount.inc();
        return failed(err, request, [], access);
      },
    );
  };

  /**
   * The unit was consumed for a request we failed to answer: given back, and
   * the answer waits until the give-back is committed (or queued for retry).
   */
  const giveBack = (
    answer: Answer,
    access: AccessContext,
    consumed: LimitDecision,
  ): Answer | Promise<Answer> =>
    answer.status < 500
      ? answer
      : limiter.refund(access.grant, consumed, access.key.publicId).then(
          () => answer,
          () => answer,
        );

  const decide: Decide = (op, request) => {
    const now = services.now();
    const { headers } = request;
    // Before any key is read: two credential headers are refused whichever one is valid
    // (docs/decisions.md 60).
    if (repeatedCredential(request.rawHeaders)) {
      return Promise.resolve(errorAnswer(accessRefused(REPEATED_CREDENTIAL), request.requestId));
    }
    const access = authenticator.cached(
      headers.authorization,
      headers['x-api-key'] as string | undefined,
      now,
    );
    if (access !== undefined) return proceed(op, request, access, now);
    return authenticator.authenticate(headers, now, request.ip()).then(
      (auth) =>
        auth.ok
          ? proceed(op, request, auth.access, now)
          : errorAnswer(accessRefused(auth), request.requestId),
      (err: unknown) => failed(err, request, [], null),
    );
  };
  // An operation's own headers go on every answer it gives, refusals included.
  return (op, request) => {
    const answer = decide(op, request);
    const extra = op.headers;
    if (extra === undefined) return answer;
    return answer.then((a) => {
      extra(a.headers);
      return a;
    });
  };
}
