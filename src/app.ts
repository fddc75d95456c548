/**
 * Builds the Fastify application from running services. It knows HTTP only:
 * the process (listening, signals, TLS) is server.ts's business, and the
 * services are assembled in runtime/assemble.ts.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import scalar from '@scalar/fastify-api-reference';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { ApiError, errorBody } from './http/errors.js';
import { cleanDocument, registerOpenApi } from './http/openapi.js';
import { pipeline, QUOTA_HEADERS, unavailable } from './http/pipeline.js';
import { JSON_TYPE } from './http/respond.js';
import { assetsRoutes } from './http/routes/assets.js';
import { goldRoutes } from './http/routes/gold.js';
import { healthRoutes } from './http/routes/health.js';
import { meRoutes } from './http/routes/me.js';
import { pagesRoutes } from './http/routes/pages.js';
import { premiumRoutes } from './http/routes/premium.js';
import { ratesRoutes } from './http/routes/rates.js';
import type { Services } from './runtime/services.js';

export interface AppOptions {
  logger?: Logger | false;
  /** PEM certificate and key: serve HTTPS (TLS 1.2+) with HSTS (decisions §10). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** URLs longer than this get 414 (decisions §10). */
  maxUrlLength?: number;
}

const MAX_URL_LENGTH = 4096;

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
/** Statuses that carry the quota headers (specification, Errors). */
const WITH_QUOTA = new Set([200, 304, 400, 404, 429]);

/**
 * Request ids: a random per-process prefix and a counter. Unique across
 * instances and restarts, and far cheaper than a UUID per request.
 */
function requestIds(): () => string {
  const prefix = `req_${randomBytes(6).toString('base64url')}_`;
  let n = 0;
  return () => prefix + (n++).toString(36);
}

/**
 * Requests Node's parser rejects before Fastify sees them (oversized headers,
 * timeouts, malformed HTTP) still get our envelope and a request id.
 */
function clientErrorHandler(nextId: () => string) {
  return (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large' as const]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout' as const]
          : [400, 'bad_request' as const];
    if (socket.writable) {
      const id = nextId();
      const body = errorBody(new ApiError(status, code), id);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const maxUrl = options.maxUrlLength ?? MAX_URL_LENGTH;
  const nextId = requestIds();
  const app = Fastify({
    loggerInstance: options.logger || undefined,
    logger: options.logger === false ? false : undefined,
    genReqId: nextId,
    clientErrorHandler: clientErrorHandler(nextId),
    requestIdHeader: false,
    // One access line per response (onResponse below) instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    exposeHeadRoutes: true,
    return503OnClosing: true,
    bodyLimit: 1024,
    // Slow or idle clients are cut off (decisions §10).
    requestTimeout: 15_000,
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    http: { headersTimeout: 10_000, maxHeaderSize: 16_384 },
    ...(options.tls ? { https: { ...options.tls, minVersion: 'TLSv1.2' as const } } : {}),
  }) as unknown as FastifyInstance;

  // GET routes only: remember their paths so other methods get 405, not 404.
  const getPaths = new Set<string>();
  // Per-route hooks, with what they need captured once: the route template for
  // metrics, and the /v1 pipeline with the route's own configuration.
  const v1Pipeline = pipeline(services);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET')) getPaths.add(route.url);
    route.onResponse = [...asArray(route.onResponse), observe(route.url)] as typeof route.onResponse;
    const v1 = route.config?.v1;
    if (v1) route.preHandler = [v1Pipeline(v1), ...asArray(route.preHandler)] as typeof route.preHandler;
  });

  app.decorateRequest('access', null);
  app.decorateRequest('limits', null);

  const { lifecycle } = services;
  const hsts = options.tls ? 'max-age=31536000; includeSubDomains' : null;
  // Callback-style hooks: on every request, a promise per hook is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', hsts);
    if (lifecycle.draining) reply.header('connection', 'close');
    done(request.url.length > maxUrl ? new ApiError(414, 'uri_too_long') : undefined);
  });

  // Metrics on every response; one access line too when the level would print it.
  // Matched routes get their own hook with the route template captured (below),
  // so the hot path never builds request.routeOptions.
  const { metrics } = services;
  const logRequests = (options.logger || undefined)?.isLevelEnabled('info') ?? false;
  const observe = (route: string) => (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const labels = { route, status: reply.statusCode };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    if (logRequests) {
      request.log.info(
        {
          method: request.method,
          url: request.url.length > 512 ? `${request.url.slice(0, 512)}…` : request.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          grantId: request.access?.grant.id,
          keyId: request.access?.key.publicId,
        },
        'request',
      );
    }
    done();
  };
  const observeUnmatched = observe('unmatched');
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observeUnmatched(request, reply, done);
    else done();
  });

  app.setValidatorCompiler(() => () => true);

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    let api = unavailable(err);
    if (!api) {
      const status = (err as FastifyError).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        api = new ApiError(400, 'invalid_parameter', undefined, undefined, 'The request is malformed.');
      } else {
        request.log.error({ err }, 'unhandled error');
        api = new ApiError(500, 'internal_error');
      }
    }
    if (api.status >= 500 && request.limits && request.access) {
      // The unit was consumed for a request we failed to answer: give it back.
      void services.limiter.refund(request.access.grant, services.now()).catch(() => {});
    }
    if (!WITH_QUOTA.has(api.status)) for (const h of QUOTA_HEADERS) reply.removeHeader(h);
    if (api.headers) reply.headers(api.headers);
    reply.code(api.status).header('content-type', JSON_TYPE).send(errorBody(api, request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const q = request.url.indexOf('?');
    const path = q === -1 ? request.url : request.url.slice(0, q);
    const err = getPaths.has(path)
      ? new ApiError(405, 'method_not_allowed', undefined, { allow: 'GET, HEAD' })
      : new ApiError(404, 'route_not_found');
    if (err.headers) reply.headers(err.headers);
    reply.code(err.status).header('content-type', JSON_TYPE).send(errorBody(err, request.id));
  });

  // gzip/brotli for bodies over 1 KB; brotli at quality 4, not the default 11,
  // which would cost more CPU per request than the whole pipeline.
  await app.register(compress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
  });
  await registerOpenApi(app);

  healthRoutes(app, services);
  pagesRoutes(app);
  let document: string | undefined;
  app.get('/openapi.json', async (_request, reply) => {
    document ??= JSON.stringify(cleanDocument(app.swagger()));
    reply.header('content-type', JSON_TYPE);
    return document;
  });

  // The interactive reference, rendered offline from the served document.
  await app.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'silent',
    configuration: {
      url: '/openapi.json',
      title: 'Market Data Service (DZD) – API reference',
      withDefaultFonts: false,
      hideClientButton: false,
    },
  });

  await app.register(
    async (v1) => {
      assetsRoutes(v1, services);
      ratesRoutes(v1, services);
      premiumRoutes(v1, services);
      goldRoutes(v1, services);
      meRoutes(v1, services);
    },
    { prefix: '/v1' },
  );

  return app;
}
