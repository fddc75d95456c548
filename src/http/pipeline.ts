/**
 * The request pipeline of every /v1 route (decisions §1), as one preHandler so
 * the order is visible in one place and costs one hook:
 *
 *   2. authenticate the key        401
 *   3. check the grant             403 grant_inactive
 *   4. validate the query          400 (quota headers, nothing consumed)
 *   5. check the entitlement       403 insufficient_scope
 *   6. per-minute window, monthly quota, consumed atomically     429
 *   7. the route handler           200 / 404 (the unit stays consumed)
 *
 * Step 1 (route and method) is the router's; see app.ts for 404 and 405.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessContext } from '../access/authenticator.js';
import { monthPeriod, secondsUntil } from '../domain/dates.js';
import type { Entitlement } from '../domain/scopes.js';
import {
  type GrantLimits,
  type LimitDecision,
  LimiterUnavailableError,
  type LimitState,
} from '../limits/limiter.js';
import type { Services } from '../runtime/services.js';
import { StoreUnavailableError } from '../storage/errors.js';
import { ApiError, invalidParameters, serviceUnavailable } from './errors.js';
import type { QueryValidationError } from './query.js';
import type { PreparedAnswer } from './respond.js';

export interface V1RouteConfig {
  validate: (raw: Record<string, unknown>) => { value: unknown } | { error: QueryValidationError };
  /** The entitlement this request needs, from its validated query. */
  entitlement: (query: never) => Entitlement;
  /**
   * The answer when it is already prepared (it depends only on the data
   * snapshot and the validated query), or undefined when the handler has work
   * to do. Routes that have it are served by the fast path (fast-path.ts).
   * `csv`: the request's Accept asks for CSV (only on routes with `csv`).
   */
  prepared?: (query: never, csv: boolean) => PreparedAnswer | undefined;
  /** The route answers CSV too, as `Accept` asks (decisions §12: the history pages). */
  csv?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    v1?: V1RouteConfig;
  }
  interface FastifyRequest {
    access: AccessContext | null;
    limits: LimitDecision | null;
  }
}

/** Statuses that carry the quota headers (specification, Errors). */
export const WITH_QUOTA: ReadonlySet<number> = new Set([200, 304, 400, 404, 429]);

export const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
] as const;

/**
 * Writes the quota headers of the specification (Errors) through `set`, in a
 * fixed order. The reset counts from the limiter's own instant (`state.at`),
 * not this instance's clock: instances then agree on it (issue #13).
 */
export function writeQuotaHeaders(state: LimitState, set: (name: string, value: string) => void): void {
  set('ratelimit-limit', String(state.minuteLimit));
  set('ratelimit-remaining', String(state.minuteRemaining));
  set('ratelimit-reset', String(secondsUntil(state.minuteResetAt, state.at)));
  set('ratelimit-policy', `${state.minuteLimit};w=60`);
  set('x-monthly-quota-limit', String(state.monthLimit));
  set('x-monthly-quota-remaining', String(state.monthRemaining));
  set('x-monthly-quota-reset', monthPeriod(state.monthStart).endIso);
}

export const grantLimits = (ctx: AccessContext): GrantLimits => ctx.grant;

/**
 * Store and limiter failures surface as 503 with Retry-After, never as a 500.
 * The adapters type them where they arise (storage/errors.ts, limits/limiter.ts):
 * nothing here reads a driver's codes or messages.
 */
export function unavailable(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailableError || err instanceof LimiterUnavailableError) {
    return serviceUnavailable();
  }
  return null;
}

/**
 * Step 6, shared by the Fastify pipeline and the fast path (fast-path.ts):
 * consumes one unit and returns the decision, or throws the 429 or 503, with
 * the quota headers already set through `setHeader`.
 */
export function unitConsumer(services: Services) {
  const { limiter, activity, metrics } = services;
  const tally = (decision: string) => metrics.decisionTallies.for({ decision });
  const allowed = tally('allowed');
  const refused = { rate_limited: tally('rate_limited'), quota_exceeded: tally('quota_exceeded') };
  const unavailableCount = tally('unavailable');
  // Promise callbacks rather than an async function: this runs on every request.
  return (
    access: AccessContext,
    now: number,
    setHeader: (name: string, value: string) => void,
  ): Promise<LimitDecision> => {
    return limiter.consume(access.grant, now).then(
      (decision) => {
        (decision.allowed ? allowed : refused[decision.reason!]).inc();
        writeQuotaHeaders(decision, setHeader);
        if (!decision.allowed) {
          throw new ApiError(429, decision.reason!, undefined, {
            'retry-after': secondsUntil(decision.retryAt!, decision.at),
          });
        }
        activity.use(access.key.publicId, now);
        return decision;
      },
      (err: unknown) => {
        unavailableCount.inc();
        throw unavailable(err) ?? err;
      },
    );
  };
}

export function pipeline(services: Services) {
  const { authenticator, limiter } = services;
  const consume = unitConsumer(services);
  return (config: V1RouteConfig) =>
    async function v1Pipeline(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const now = services.now();
      let access: AccessContext;
      try {
        // request.ip: the peer, or the client the trusted proxies name (app.ts, trustProxy).
        access = await authenticator.authenticate(request.headers, now, request.ip);
      } catch (err) {
        throw unavailable(err) ?? err;
      }
      request.access = access;

      const checked = config.validate(request.query as Record<string, unknown>);
      if ('error' in checked) {
        const state = await limiter.peek(access.grant, now).catch((err: unknown) => {
          throw unavailable(err) ?? err;
        });
        writeQuotaHeaders(state, (name, value) => reply.header(name, value));
        throw invalidParameters(checked.error.details);
      }
      request.query = checked.value;

      const needed = config.entitlement(checked.value as never);
      if (!access.keyScopes.has(needed) || !access.grantScopes.has(needed)) {
        throw new ApiError(403, 'insufficient_scope', [{ entitlement: needed }]);
      }

      request.limits = await consume(access, now, (name, value) => reply.header(name, value));
    };
}
