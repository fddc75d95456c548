/**
 * Mounts the reporter API under /report/v1 (docs/decisions.md 110), each
 * route behind the same steps as an admin route (plugins/admin.ts):
 * authenticate the reporter's token (401, 403, 429 for an address that failed
 * too often), count the reporter's request (429 with Retry-After), validate
 * (400), then for a POST claim its Idempotency-Key or answer for it (a
 * replay, 409), with the reporter's id as the key's owner; then the operation.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentedToken } from '../http/admin/auth.js';
import { type IdempotencyRecords, idempotencyGate, idempotencyRecorder } from '../http/admin/idempotency.js';
import { ApiError } from '../http/errors.js';
import { type ReporterAuthenticator, ReporterRateLimit } from '../http/report/auth.js';
import type { ReportRoute } from '../http/report/routes.js';
import type { Services } from '../runtime/services.js';
import { ReportIdempotencyKeyHeader } from '../schemas/report.js';
import type { ReporterRecord } from '../storage/reporter-records.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The reporter of a /report/v1 request, its token verified. */
    reporter?: ReporterRecord;
  }
}

export interface ReportRoutesOptions {
  services: Services;
  routes: ReportRoute[];
  authenticator: ReporterAuthenticator;
  idempotency: IdempotencyRecords;
  /** MDS_REPORT_RATE_LIMIT: requests per reporter per UTC minute. */
  requestsPerMinute: number;
}

export function reportRoutes(app: FastifyInstance, options: ReportRoutesOptions, done: () => void): void {
  const { services, routes, authenticator, idempotency } = options;
  const gate = idempotencyGate(idempotency, services.now);
  const record = idempotencyRecorder(idempotency);
  const limit = new ReporterRateLimit(options.requestsPerMinute);

  const authenticate = async (request: FastifyRequest) => {
    const now = services.now();
    const verdict = await authenticator.authenticate(request.headers.authorization, request.ip, now);
    if (verdict instanceof ApiError) throw verdict;
    const wait = limit.take(verdict.id, now);
    if (wait > 0) {
      throw new ApiError(
        429,
        'rate_limited',
        undefined,
        { 'retry-after': wait },
        `More than ${limit.perMinute} requests from this reporter this minute: wait ${wait} s, and send quotes in batches.`,
      );
    }
    request.reporter = verdict;
  };

  for (const route of routes) {
    const writes = route.method === 'POST';
    app.route({
      method: route.method,
      url: route.url,
      schema: { ...route.schema, ...(writes ? { headers: ReportIdempotencyKeyHeader } : {}) } as never,
      onRequest: authenticate,
      preHandler: writes
        ? async (request: FastifyRequest, reply: FastifyReply) => {
            // The reporter's token seals and opens its stored answers (decisions 104).
            const credential = presentedToken(request.headers.authorization)!;
            if (await gate(request, reply, request.reporter!.id, credential)) return reply;
          }
        : undefined,
      onSend: writes ? record : undefined,
      handler: (request, reply) => route.handler(request, reply, { services, reporter: request.reporter! }),
    });
  }
  done();
}
