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
import { ApiError, invalidParameters, serviceUnavailable } from './errors.js';
import type { QueryValidationError } from './query.js';

export interface V1RouteConfig {
  validate: (raw: Record<string, unknown>) => { value: unknown } | { error: QueryValidationError };
  /** The entitlement this request needs, from its validated query. */
  entitlement: (query: never) => Entitlement;
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

export const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
] as const;

export function quotaHeaders(state: LimitState, now: number): Record<string, string | number> {
  return {
    'ratelimit-limit': state.minuteLimit,
    'ratelimit-remaining': state.minuteRemaining,
    'ratelimit-reset': secondsUntil(state.minuteResetAt, now),
    'ratelimit-policy': `${state.minuteLimit};w=60`,
    'x-monthly-quota-limit': state.monthLimit,
    'x-monthly-quota-remaining': state.monthRemaining,
    'x-monthly-quota-reset': monthPeriod(state.monthStart).endIso,
  };
}

export const grantLimits = (ctx: AccessContext): GrantLimits => ctx.grant;

/** Store and limiter failures surface as 503 with Retry-After, never as a 500. */
export function unavailable(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof LimiterUnavailableError) return serviceUnavailable();
  const code = (err as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P0[1-3]|08\d\d\d|53300|SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR.*|SQLITE_FULL|SQLITE_READONLY.*|NR_CLOSED)$/.test(
      code,
    )
  ) {
    return serviceUnavailable();
  }
  if (
    err instanceof Error &&
    /Connection terminated|timeout exceeded|Connection is closed|connect ECONNREFUSED/.test(err.message)
  ) {
    return serviceUnavailable();
  }
  return null;
}

export function pipeline(services: Services) {
  const { authenticator, limiter, activity, metrics } = services;
  const allowed = metrics.limiterDecisions.labels('allowed');
  return (config: V1RouteConfig) =>
    async function v1Pipeline(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const now = services.now();
      let access: AccessContext;
      try {
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
        reply.headers(quotaHeaders(state, now));
        throw invalidParameters(checked.error.details);
      }
      request.query = checked.value;

      const needed = config.entitlement(checked.value as never);
      if (!access.keyScopes.has(needed) || !access.grantScopes.has(needed)) {
        throw new ApiError(403, 'insufficient_scope', [{ entitlement: needed }]);
      }

      let decision: LimitDecision;
      const timer = metrics.limiterLatency.startTimer();
      try {
        decision = await limiter.consume(access.grant, now);
      } catch (err) {
        metrics.limiterDecisions.inc({ decision: 'unavailable' });
        throw unavailable(err) ?? err;
      } finally {
        timer();
      }
      (decision.allowed ? allowed : metrics.limiterDecisions.labels(decision.reason!)).inc();
      reply.headers(quotaHeaders(decision, now));
      if (!decision.allowed) {
        throw new ApiError(429, decision.reason!, undefined, {
          'retry-after': secondsUntil(decision.retryAt!, now),
        });
      }
      request.limits = decision;
      activity.use(access.key.publicId, now);
    };
}
