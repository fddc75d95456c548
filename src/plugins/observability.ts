/**
 * Metrics on every response, and one access line when the level would print
 * it. Each route gets its own onResponse hook with its template captured, so
 * that request.routeOptions is never built; the /v1 entrance records through
 * the same observer (http/pipeline/entrance.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactKeys } from '../domain/keys.js';
import type { Observe } from '../http/pipeline/entrance.js';
import type { Metrics } from '../observability/metrics.js';

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** A forwarded address is whatever a trusted proxy passed on: the access line keeps it short. */
const MAX_LOGGED_ADDRESS = 64;
/**
 * The URL as the access log shows it: keys redacted (one pasted into a URL by
 * mistake, `?api_key=…`, keeps only its public prefix), then truncated at 512 characters.
 */
function logUrl(url: string): string {
  const safe = redactKeys(url);
  return safe.length > 512 ? `${safe.slice(0, 512)}…` : safe;
}

/** The observer of each route template: metrics children looked up once per status. */
export function observers(
  metrics: Metrics,
  logger: Logger | undefined,
  addressOf: (raw: IncomingMessage) => string,
) {
  const logRequests = logger?.isLevelEnabled('info') ?? false;
  return (route: string): Observe => {
    // prom-client would otherwise hash the label object on every observation.
    const children = new Map<number, { count: { inc(): void }; time: { observe(v: number): void } }>();
    return (status, elapsedMs, requestId, method, url, access, raw) => {
      let child = children.get(status);
      if (!child) {
        child = {
          count: metrics.requestTallies.for({ route, status: String(status) }),
          time: metrics.duration.for({ route, status: String(status) }),
        };
        children.set(status, child);
      }
      child.count.inc();
      child.time.observe(elapsedMs / 1000);
      if (logRequests) {
        const ip = addressOf(raw);
        logger!.info(
          {
            requestId,
            method,
            url: logUrl(url),
            ip: ip.length > MAX_LOGGED_ADDRESS ? `${ip.slice(0, MAX_LOGGED_ADDRESS)}…` : ip,
            status,
            ms: Math.round(elapsedMs * 100) / 100,
            grantId: access?.grant.id,
            keyId: access?.key.publicId,
          },
          'request',
        );
      }
    };
  };
}

const onResponse =
  (observed: Observe) => (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    observed(reply.statusCode, reply.elapsedTime, request.id, request.method, request.url, null, request.raw);
    done();
  };

/** Observes every route's responses, and unmatched requests'. */
export function observe(app: FastifyInstance, observer: (route: string) => Observe): void {
  app.addHook('onRoute', (route) => {
    route.onResponse = [
      ...asArray(route.onResponse),
      onResponse(observer(route.url)),
    ] as typeof route.onResponse;
  });
  // Unmatched requests have no route of their own to carry the hook.
  const observeUnmatched = onResponse(observer('unmatched'));
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.is404) observeUnmatched(request, reply, done);
    else done();
  });
}
