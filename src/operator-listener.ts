/**
 * What the operator listeners share (docs/decisions.md 58, 109): the admin
 * listener (admin-app.ts) and the reporter listener (report-app.ts) are each
 * a Fastify instance, never the public one, with the same envelope, error
 * body and request ids as /v1 (http/errors.ts, plugins/transport.ts), the
 * hardened input rules (http/admin/input.ts), and HTTPS with HSTS when given
 * a certificate.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { defaultOf } from './config/environment.js';
import type { Contact } from './config.js';
import { adminErrors } from './http/admin/errors.js';
import type { IdempotencyRecords } from './http/admin/idempotency.js';
import { adminInputRules } from './http/admin/input.js';
import { adminValidator } from './http/admin/validation.js';
import { clientAddress, type TrustProxy, trustFunction } from './http/client-address.js';
import { ApiError, errorBody } from './http/errors.js';
import { requestIds } from './http/request-ids.js';
import { JSON_TYPE } from './http/respond.js';
import { cutStalledReaders } from './http/stalled-readers.js';
import { observe, observers } from './plugins/observability.js';
import { clientErrorHandler } from './plugins/transport.js';
import type { Services } from './runtime/services.js';

/** The body of an admin JSON request; the data imports set their own (http/admin/data.ts). */
const ADMIN_BODY_LIMIT = 1024 * 1024;
const MAX_URL_LENGTH = 4096;
/**
 * The time to receive a whole admin request: longer than the public
 * listener's, for a data import of up to 50 MB (ADMIN_MAX_IMPORT_BYTES); the
 * headers get the public listener's time (docs/decisions.md 89).
 */
const ADMIN_REQUEST_TIMEOUT_MS = 60_000;

/** What both operator listeners take. */
export interface ListenerOptions {
  logger?: Logger | false;
  /** PEM certificate and key: HTTPS (TLS 1.2+) with HSTS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  trustProxy?: TrustProxy;
  contact?: Contact;
  idempotency?: IdempotencyRecords;
  /** Time to receive a request's headers, as on the public listener (MDS_HEADERS_TIMEOUT_MS); 10 s when undefined. */
  headersTimeoutMs?: number;
}

/** The store's idempotency records (Store.claimIdempotencyKey and the two after it). */
export function storeIdempotency(services: Services): IdempotencyRecords {
  const { store } = services;
  return {
    claim: (actor, key, fingerprint, now, ttlMs) =>
      store.operator.claimIdempotencyKey(actor, key, fingerprint, now, ttlMs),
    complete: (actor, key, status, body) => store.operator.completeIdempotencyKey(actor, key, status, body),
    release: (actor, key) => store.operator.releaseIdempotencyKey(actor, key),
  };
}

/**
 * A Fastify instance with the operator listeners' rules (the admin listener
 * and the reporter listener, report-app.ts): timeouts, request ids, HSTS
 * with TLS, the envelope for every refusal, the hardened input rules
 * (http/admin/input.ts) and the observers; no route.
 */
export function operatorListener(services: Services, options: ListenerOptions): FastifyInstance {
  const trust = trustFunction(options.trustProxy);
  const nextId = requestIds();
  const hsts = options.tls ? 'max-age=31536000; includeSubDomains' : null;
  // A slow client is cut off as on the public listener (plugins/transport.ts):
  // Node checks these timeouts only every connectionsCheckingInterval (30 s by default).
  const headersTimeout = options.headersTimeoutMs ?? Number(defaultOf('MDS_HEADERS_TIMEOUT_MS'));
  const serverOptions = {
    headersTimeout,
    requestTimeout: ADMIN_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
  const app = Fastify({
    loggerInstance: options.logger || undefined,
    logger: options.logger === false ? false : undefined,
    trustProxy: trust ?? false,
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    genReqId: nextId,
    requestIdHeader: false,
    bodyLimit: ADMIN_BODY_LIMIT,
    requestTimeout: ADMIN_REQUEST_TIMEOUT_MS,
    connectionTimeout: 120_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: false,
    // GET, POST and PATCH only: what the document lists is what a client may send.
    exposeHeadRoutes: false,
    http: serverOptions,
    ...(options.tls ? { https: { ...options.tls, ...serverOptions, minVersion: 'TLSv1.2' as const } } : {}),
    // What Node's parser rejects (a header timeout, a header flood) in the envelope, as on the public listener.
    clientErrorHandler: clientErrorHandler(nextId, hsts ? `Strict-Transport-Security: ${hsts}\r\n` : ''),
    // A path the router cannot decode, or a path parameter over 100 characters:
    // the envelope, never Fastify's body, which quotes the path. Before the
    // onRequest hook, so its headers are set here too; nothing of the body is read.
    frameworkErrors: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const api =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(
              414,
              'uri_too_long',
              undefined,
              undefined,
              'A path segment is longer than 100 characters.',
            )
          : new ApiError(400, 'invalid_request', [
              { parameter: 'path', message: 'is not valid percent-encoded UTF-8' },
            ]);
      reply.code(api.status).header('x-request-id', request.id).header('content-type', JSON_TYPE);
      if (hsts) reply.header('strict-transport-security', hsts);
      reply.header('connection', 'close');
      reply.send(errorBody(api, request.id));
    },
  } as never) as unknown as FastifyInstance;
  // A client that stops reading its answers is cut off too (docs/decisions.md 75), once listening.
  app.server.once('listening', () =>
    cutStalledReaders(app.server, ADMIN_REQUEST_TIMEOUT_MS, options.tls !== undefined),
  );
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.setValidatorCompiler(adminValidator as never);

  app.addHook('onRequest', (request, reply, next) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', hsts);
    if (services.lifecycle.draining) reply.header('connection', 'close');
    next(request.url.length > MAX_URL_LENGTH ? new ApiError(414, 'uri_too_long') : undefined);
  });
  adminErrors(app);
  adminInputRules(app);
  observe(app, observers(services.metrics, options.logger || undefined, clientAddress(trust)));
  return app;
}
