/**
 * THE pipeline of every /v1 request (decisions §1): one function decides the
 * answer, `(operation, request) → { status, headers, body }`, and one writer
 * writes it (write.ts).
 *
 *   1. route and method                 the entrance's (404, 405: entrance.ts)
 *   2. authenticate the key             401 (429 for an address that keeps guessing)
 *   3. check the grant                  403 grant_inactive
 *   4. validate the query               400 (quota headers, nothing consumed)
 *   5. check the entitlement            403 insufficient_scope
 *   6. per-minute window and monthly quota, consumed atomically        429
 *   7. the operation's answer           200 / 304 / 404 (the unit stays consumed)
 *
 * The query is validated by the operation's own validator before the pipeline
 * runs (the entrance calls it), and its result is reported here at step 4:
 * validation is pure, so when it runs does not matter, only where its refusal
 * ranks. Every request gets an answer.
 */
import type { AccessContext } from '../../access/authenticator.js';
import { REPEATED_CREDENTIAL, repeatedCredential } from '../../access/credential-headers.js';
import { secondsUntil } from '../../domain/dates.js';
import { type LimitDecision, type LimiterUnavailableError, limiterFailure } from '../../limits/limiter.js';
import type { Tally } from '../../observability/metrics.js';
import type { Services } from '../../runtime/services.js';
import { prefersCsv } from '../accept.js';
import { ApiError, accessRefused, invalidParameters, unavailable } from '../errors.js';
import { type Answer, errorAnswer, outcomeAnswer, type V1Request } from './answer.js';
import type { Operation, Outcome } from './operation.js';
import { quotaHeaders } from './quota.js';

/** Told the pipeline's answer, once. A throw here is logged by the pipeline, never answered again. */
export interface Decided {
  decided(answer: Answer): void;
}

/**
 * Decides the answer to `request` and tells `done`, at once for a refusal
 * that needs no I/O, else once the step that waits (the key's check, the
 * limiter, the operation's answer) is done.
 */
export type Decide = (op: Operation, request: V1Request, done: Decided) => void;

/** Logs a failure of ours (not a refusal): the answer is then a 500. */
export type LogFailure = (err: unknown, requestId: string) => void;

export function decider(services: Services, logFailure: LogFailure): Decide {
  const pipeline = new Pipeline(services, logFailure);
  return (op, request, done) => pipeline.decide(op, request, done);
}

/** What steps 6 and 7 carry from the steps before. */
interface Consuming {
  op: Operation;
  request: V1Request;
  access: AccessContext;
  now: number;
  query: unknown;
  csv: boolean;
  /** A prepared answer (the hot path), else the operation is asked after the consume. */
  ready: Outcome | undefined;
  done: Decided;
}

class Pipeline {
  private readonly allowed: Tally;
  private readonly refused: Record<'rate_limited' | 'quota_exceeded', Tally>;
  private readonly unavailableCount: Tally;

  constructor(
    private readonly services: Services,
    private readonly logFailure: LogFailure,
  ) {
    const tally = (decision: string) => services.metrics.decisionTallies.for({ decision });
    this.allowed = tally('allowed');
    this.refused = { rate_limited: tally('rate_limited'), quota_exceeded: tally('quota_exceeded') };
    this.unavailableCount = tally('unavailable');
  }

  decide(op: Operation, request: V1Request, done: Decided): void {
    this.run(op, request, done, null, () => this.steps(op, request, done));
  }

  /**
   * Runs a step: the answer it returns is told, a throw of ours is told as the
   * 500 (logged), undefined means the step tells `done` itself later.
   */
  private run(
    op: Operation,
    request: V1Request,
    done: Decided,
    access: AccessContext | null,
    step: () => Answer | undefined,
  ): void {
    let answer: Answer | undefined;
    try {
      answer = step();
    } catch (err) {
      answer = this.failed(err, request, [], access);
    }
    if (answer !== undefined) this.finish(op, request, answer, done);
  }

  /**
   * Every answer leaves here, once: an operation's own headers go on every
   * answer it gives, refusals included. A throw past this point (the writer's
   * side) is logged, never answered a second time.
   */
  private finish(op: Operation, request: V1Request, answer: Answer, done: Decided): void {
    let told = answer;
    try {
      op.headers?.(told.headers);
    } catch (err) {
      told = this.failed(err, request, [], answer.access);
    }
    try {
      done.decided(told);
    } catch (err) {
      this.logFailure(err, request.requestId);
    }
  }

  /** Any failure of a step: a refusal keeps its status; anything else is logged and a 500. */
  private failed(err: unknown, request: V1Request, set: string[], access: AccessContext | null): Answer {
    let api = unavailable(err);
    if (!api) {
      this.logFailure(err, request.requestId);
      api = new ApiError(500, 'internal_error');
    }
    return errorAnswer(api, request.requestId, set, access);
  }

  /** Steps 2 and 3; the answer when it is known now, else undefined and `done` is told later. */
  private steps(op: Operation, request: V1Request, done: Decided): Answer | undefined {
    const now = this.services.now();
    const { headers } = request;
    // Before any key is read: two credential headers are refused whichever one is valid
    // (docs/decisions.md 60).
    if (repeatedCredential(request.rawHeaders)) {
      return errorAnswer(accessRefused(REPEATED_CREDENTIAL), request.requestId);
    }
    const { authenticator } = this.services;
    const access = authenticator.cached(
      headers.authorization,
      headers['x-api-key'] as string | undefined,
      now,
    );
    if (access !== undefined) return this.proceed(op, request, access, now, done);
    authenticator.authenticate(headers, now, request.ip()).then(
      (auth) =>
        this.run(op, request, done, auth.ok ? auth.access : null, () =>
          auth.ok
            ? this.proceed(op, request, auth.access, now, done)
            : errorAnswer(accessRefused(auth), request.requestId),
        ),
      (err: unknown) => this.finish(op, request, this.failed(err, request, [], null), done),
    );
    return undefined;
  }

  /** Steps 4 to 6, for an authenticated key; step 7 follows the limiter's decision (`consumed`). */
  private proceed(
    op: Operation,
    request: V1Request,
    access: AccessContext,
    now: number,
    done: Decided,
  ): Answer | undefined {
    const { limiter } = this.services;
    const checked = request.query;
    if ('error' in checked) {
      limiter.peek(access.grant, now).then(
        (state) =>
          this.run(op, request, done, access, () =>
            errorAnswer(
              invalidParameters(checked.error.details),
              request.requestId,
              quotaHeaders(state),
              access,
            ),
          ),
        (err: unknown) => this.finish(op, request, this.failed(err, request, [], access), done),
      );
      return undefined;
    }
    const query = checked.value;
    const needed = op.entitlement(query);
    if (!access.keyScopes.has(needed) || !access.grantScopes.has(needed)) {
      const denied = new ApiError(403, 'insufficient_scope', [{ entitlement: needed }]);
      return errorAnswer(denied, request.requestId, [], access);
    }
    const csv = op.csv === true && prefersCsv(request.headers.accept);
    // A CSV request gets the CSV page or waits for it: never the JSON one.
    const ready = op.ready?.(query, csv);
    const c: Consuming = { op, request, access, now, query, csv, ready, done };
    limiter.consume(access.grant, now, access.key.publicId).then(
      (decision) => this.consumed(c, decision),
      (err: unknown) => this.unavailable(c, limiterFailure(err)),
    );
    return undefined;
  }

  /** The limiter could not decide: 503, nothing consumed. */
  unavailable(c: Consuming, err: LimiterUnavailableError): void {
    this.unavailableCount.inc();
    this.finish(c.op, c.request, this.failed(err, c.request, [], c.access), c.done);
  }

  /** Step 6's decision, then step 7. */
  consumed(c: Consuming, decision: LimitDecision): void {
    let set: string[] = [];
    let answer: Answer | undefined;
    try {
      (decision.allowed ? this.allowed : this.refused[decision.reason!]).inc();
      set = quotaHeaders(decision);
      answer = this.answer(c, decision, set);
    } catch (err) {
      answer = this.failed(err, c.request, set, c.access);
      if (decision.allowed) {
        this.giveBack(c, answer, decision);
        return;
      }
    }
    if (answer !== undefined) this.finish(c.op, c.request, answer, c.done);
  }

  /** The 429, or step 7's answer; undefined when the operation answers later (then `done` is told). */
  private answer(c: Consuming, decision: LimitDecision, set: string[]): Answer | undefined {
    const { op, request, access } = c;
    if (!decision.allowed) {
      const retryAfter = secondsUntil(decision.retryAt!, decision.at);
      const limited = new ApiError(429, decision.reason!, undefined, { 'retry-after': retryAfter });
      return errorAnswer(limited, request.requestId, set, access);
    }
    this.services.activity.use(access.key.publicId, c.now);
    const context = { access, limits: decision, csv: c.csv };
    // A prepared answer (the hot path) allocates no handler for a later failure.
    if (c.ready !== undefined) return outcomeAnswer(op, request, c.ready, set, context);
    const outcome = op.answer(c.query as never, context);
    if (!(outcome instanceof Promise)) return outcomeAnswer(op, request, outcome, set, context);
    outcome.then(
      (o) => {
        let answer: Answer;
        try {
          answer = outcomeAnswer(op, request, o, set, context);
        } catch (err) {
          this.giveBack(c, this.failed(err, request, set, access), decision);
          return;
        }
        this.finish(op, request, answer, c.done);
      },
      (err: unknown) => this.giveBack(c, this.failed(err, request, set, access), decision),
    );
    return undefined;
  }

  /**
   * The unit was consumed for a request we failed to answer: given back, and
   * the answer waits until the give-back is committed (or queued for retry).
   */
  private giveBack(c: Consuming, answer: Answer, consumed: LimitDecision): void {
    const told = () => this.finish(c.op, c.request, answer, c.done);
    if (answer.status < 500) {
      told();
      return;
    }
    this.services.limiter.refund(c.access.grant, consumed, c.access.key.publicId).then(told, told);
  }
}
