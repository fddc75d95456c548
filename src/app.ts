/**
 * Builds the Fastify application from running services. It knows HTTP only:
 * the process (listening, signals, TLS) is server.ts's business, and the
 * services are assembled in runtime/assemble.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { parse as parseQueryString } from 'fast-querystring';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { redactKeys } from './domain/keys.js';
import { clientAddress, type TrustProxy, trustFunction } from './http/client-address.js';
import { encode } from './http/compression.js';
import { ApiError, errorBody, serviceUnavailable } from './http/errors.js';
import { FastPath, type Observe } from './http/fast-path.js';
import { cleanDocument, registerOpenApi } from './http/openapi.js';
import { pipeline, QUOTA_HEADERS, unavailable, WITH_QUOTA } from './http/pipeline.js';
import { JSON_TYPE } from './http/respond.js';
import { assetsRoutes } from './http/routes/assets.js';
import { docsRoutes } from './http/routes/docs.js';
import { goldRoutes } from './http/routes/gold.js';
import { healthRoutes } from './http/routes/health.js';
import { llmsRoutes } from './http/routes/llms.js';
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
  /** Time to receive a request's headers (default 10 s) and the whole request (default 15 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * Which peers may tell the client's address in X-Forwarded-For (MDS_TRUST_PROXY,
   * Fastify's `trustProxy` forms; see http/client-address.ts). Nothing by default:
   * the header is ignored and the client is the connection's peer.
   */
  trustProxy?: TrustProxy;
}

const MAX_URL_LENGTH = 4096;
/** A forwarded address is whatever a trusted proxy passed on: the access line keeps it short. */
const MAX_LOGGED_ADDRESS = 64;

/** Retry-After of the stopping server's 503: at once, on a new connection (another instance). */
const STOPPING_RETRY_AFTER = 1;

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * Request ids: a random per-process prefix and a counter. Unique across
 * instances and restarts, and far cheaper than a UUID per request.
 */
function requestIds(): () => string {
  const prefix = `req_${randomBytes(6).toString('base64url')}_`;
  let n = 0;
  return () => prefix + (n++).toString(36);
}

/** The router's query-string parser, and the fast path's: one parse for both. */
const parseQuery = (query: string): Record<string, unknown> =>
  query.length === 0 ? {} : (parseQueryString(query) as Record<string, unknown>);

/**
 * The URL as the access log shows it: keys redacted (one pasted into a URL by
 * mistake, `?api_key=…`, keeps only its public prefix), then truncated at 512 characters.
 */
function logUrl(url: string): string {
  const safe = redactKeys(url);
  return safe.length > 512 ? `${safe.slice(0, 512)}…` : safe;
}

/** How long a rejected connection's further input is read and discarded before it is closed. */
const LINGER_MS = 1_000;
/** How much of a rejected connection's further input is read and dropped before reading stops. */
const LINGER_BYTES = 256 * 1024;
const rejected = new WeakSet<import('node:net').Socket>();

/**
 * Writes one complete error response on a raw socket and half-closes it. What
 * the client is still sending (a header flood, say) is read and discarded for a
 * moment: closing with unread input would reset the connection, and the client
 * would lose the response.
 */
function rejectSocket(
  socket: import('node:net').Socket,
  nextId: () => string,
  status: number,
  code: 'headers_too_large' | 'request_timeout' | 'bad_request' | 'method_not_allowed',
  extraHeaders = '',
): void {
  if (rejected.has(socket)) return; // Node reports the error again for each further chunk
  if (!socket.writable) return void socket.destroy();
  rejected.add(socket);
  const id = nextId();
  const body = errorBody(new ApiError(status, code), id);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
  // Read and dropped, up to a point: a flood's bytes beyond it stay in the kernel's
  // buffers (the client's writes then block) instead of passing through ours as
  // buffers the GC frees late; Node 24 held ~200 MB of them through a 10 MB
  // header flood, Node 20 ~30 MB (test/hardening/http-abuse.test.ts).
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) socket.pause();
  });
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Requests Node's parser rejects before Fastify sees them (oversized headers,
 * timeouts, malformed HTTP) still get our envelope and a request id.
 * `headers` are the raw header lines every such answer carries (HSTS over TLS).
 */
function clientErrorHandler(nextId: () => string, headers: string) {
  return (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large' as const]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout' as const]
          : [400, 'bad_request' as const];
    rejectSocket(socket, nextId, status, code, headers);
  };
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const maxUrl = options.maxUrlLength ?? MAX_URL_LENGTH;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 15_000;
  // Node checks the header and request timeouts only every connectionsCheckingInterval
  // (30 s by default), which would let a slow client hold a connection far longer.
  // The same options for HTTPS: Fastify passes `http` to http.createServer only.
  const serverOptions = {
    headersTimeout,
    requestTimeout,
    maxHeaderSize: 16_384,
    // Checked in onRequest instead, so that the 400 carries the envelope and a request id.
    requireHostHeader: false,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
  const nextId = requestIds();
  const hsts = options.tls ? 'max-age=31536000; includeSubDomains' : null;
  // One trust function for Fastify's request.ip (the throttle's address) and for the
  // access line, so both name the same client.
  const trust = trustFunction(options.trustProxy);
  const addressOf = clientAddress(trust);
  // Answers written on the raw socket, outside Fastify's hooks, need HSTS spelled out.
  const rawHeaders = hsts ? `Strict-Transport-Security: ${hsts}\r\n` : '';
  const fast = new FastPath({
    services,
    nextId,
    parseQuery,
    maxUrlLength: maxUrl,
    hsts,
    logError: (err, requestId) => app.log.error({ err, requestId }, 'unhandled error'),
  });
  const app = Fastify({
    // The server Fastify would create, with the fast path (http/fast-path.ts) in front of its router.
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const dispatch = (req: IncomingMessage, res: ServerResponse) => {
        if (!fast.take(req, res)) handler(req, res);
      };
      const server = options.tls
        ? createTlsServer({ ...options.tls, ...serverOptions, minVersion: 'TLSv1.2' }, dispatch)
        : createServer(serverOptions, dispatch);
      // An expectation other than 100-continue: Node would answer its own bare 417
      // (no envelope, no X-Request-Id, no HSTS). RFC 9110 §10.1.1 lets a server
      // ignore it instead; every route is a GET, so nothing depends on it.
      server.on('checkExpectation', dispatch);
      server.keepAliveTimeout = 5_000;
      server.requestTimeout = requestTimeout;
      server.setTimeout(30_000);
      return server;
    },
    routerOptions: { querystringParser: parseQuery },
    loggerInstance: options.logger || undefined,
    logger: options.logger === false ? false : undefined,
    genReqId: nextId,
    clientErrorHandler: clientErrorHandler(nextId, rawHeaders),
    // A path the router cannot decode (`/v1/%C0%AE`): our envelope, not Fastify's body.
    // It runs before the onRequest hook: the headers that hook sets are set here too.
    frameworkErrors: (_err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      reply.code(400).header('x-request-id', request.id).header('content-type', JSON_TYPE);
      if (hsts) reply.header('strict-transport-security', hsts);
      if (services.lifecycle.draining) reply.header('connection', 'close');
      reply.send(errorBody(new ApiError(400, 'bad_request'), request.id));
    },
    requestIdHeader: false,
    trustProxy: trust ?? false,
    // One access line per response (onResponse below) instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    exposeHeadRoutes: true,
    // Fastify's own 503 while closing has neither our envelope nor a request id:
    // requests on connections still open are answered by us (onRequest below).
    return503OnClosing: false,
    bodyLimit: 1024,
    // Slow or idle clients are cut off (decisions §10).
    requestTimeout,
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    ...(options.tls ? { https: true } : {}),
  }) as unknown as FastifyInstance;
  // CONNECT never reaches Fastify: without a listener Node drops the connection unanswered.
  app.server.on('connect', (_request: unknown, socket: import('node:net').Socket) =>
    rejectSocket(socket, nextId, 405, 'method_not_allowed', `${rawHeaders}Allow: GET, HEAD\r\n`),
  );

  // GET routes only: remember their paths so other methods get 405, not 404.
  const getPaths = new Set<string>();
  const routeError = (url: string) => {
    const q = url.indexOf('?');
    return getPaths.has(q === -1 ? url : url.slice(0, q))
      ? new ApiError(405, 'method_not_allowed', undefined, { allow: 'GET, HEAD' })
      : new ApiError(404, 'route_not_found');
  };
  // Per-route hooks, with what they need captured once: the route template for
  // metrics, and the /v1 pipeline with the route's own configuration.
  const v1Pipeline = pipeline(services);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET')) getPaths.add(route.url);
    const observed = observer(route.url);
    route.onResponse = [...asArray(route.onResponse), onResponse(observed)] as typeof route.onResponse;
    const v1 = route.config?.v1;
    if (!v1) return;
    // A route with hooks of its own (the deprecated alias's headers) stays on the general path.
    const ownHooks = [route.onRequest, route.preHandler, route.onSend, route.preSerialization].some(
      (hook) => asArray(hook).length > 0,
    );
    if (methods.includes('GET') && !ownHooks) fast.add(route.url, v1, observed);
    route.preHandler = [v1Pipeline(v1), ...asArray(route.preHandler)] as typeof route.preHandler;
  });

  app.decorateRequest('access', null);
  app.decorateRequest('limits', null);

  const { lifecycle } = services;
  // Closing is draining too, also when app.close() is called without server.ts's
  // drain: the fast path steps aside, answers close their connections, /readyz fails.
  app.addHook('preClose', (done) => {
    lifecycle.draining = true;
    done();
  });
  // Callback-style hooks: on every request, a promise per hook is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', hsts);
    if (lifecycle.draining) {
      // Served as usual, closing the connection (docs/decisions.md 20)...
      reply.header('connection', 'close');
      // ...except a request pipelined behind one still being answered: its answer would
      // be sent only if the one before kept the connection open, which answers while
      // stopping do not. Refused before it consumes a unit; its client sends it again
      // on a new connection.
      if (reply.raw.socket === null) return done(serviceUnavailable(STOPPING_RETRY_AFTER));
    }
    done(
      request.url.length > maxUrl
        ? new ApiError(414, 'uri_too_long')
        : request.headers.host === undefined && request.raw.httpVersion === '1.1'
          ? new ApiError(400, 'bad_request') // HTTP/1.1 requires Host (RFC 9112 §3.2)
          : request.method !== 'GET' && request.method !== 'HEAD'
            ? routeError(request.url) // every route is GET: refused before any body is parsed
            : undefined,
    );
  });

  // Metrics on every response; one access line too when the level would print it.
  // Matched routes get their own hook with the route template captured (below),
  // so the hot path never builds request.routeOptions.
  const { metrics } = services;
  const logRequests = (options.logger || undefined)?.isLevelEnabled('info') ?? false;
  const observer = (route: string): Observe => {
    // Label children per status, looked up once: prom-client would otherwise hash
    // the label object on every observation.
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
        app.log.info(
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
  const onResponse =
    (observed: Observe) => (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      observed(
        reply.statusCode,
        reply.elapsedTime,
        request.id,
        request.method,
        request.url,
        request.access,
        request.raw,
      );
      done();
    };
  // Unmatched requests have no route of their own to carry the hook.
  const observeUnmatched = onResponse(observer('unmatched'));
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observeUnmatched(request, reply, done);
    else done();
  });

  // Schemas document and type the routes; they do not run per request. Queries are
  // validated by the pipeline (http/query.ts), and every body is serialised by us
  // (prepared bytes or JSON.stringify), so Fastify compiles neither validators nor
  // fast-json-stringify serialisers: less start-up time and memory per instance.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

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
      // The unit was consumed for a request we failed to answer: give it back,
      // and answer once the give-back is committed (or queued for retry).
      return services.limiter.refund(request.access.grant, request.limits).then(
        () => sendError(reply, api, request.id),
        () => sendError(reply, api, request.id),
      );
    }
    sendError(reply, api, request.id);
  });

  const sendError = (reply: FastifyReply, api: ApiError, requestId: string) => {
    if (!WITH_QUOTA.has(api.status)) for (const h of QUOTA_HEADERS) reply.removeHeader(h);
    if (api.headers) reply.headers(api.headers);
    reply.code(api.status).header('content-type', JSON_TYPE).send(errorBody(api, requestId));
  };

  app.setNotFoundHandler((request, reply) => {
    const err = routeError(request.url);
    if (err.headers) reply.headers(err.headers);
    reply.code(err.status).header('content-type', JSON_TYPE).send(errorBody(err, request.id));
  });

  await registerOpenApi(app);

  healthRoutes(app, services);
  pagesRoutes(app);
  let document: string | undefined;
  app.get('/openapi.json', async (request, reply) => {
    document ??= JSON.stringify(cleanDocument(app.swagger()));
    reply.header('content-type', JSON_TYPE);
    return encode(request, reply, document);
  });

  docsRoutes(app);
  llmsRoutes(app);

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
