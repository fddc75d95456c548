/**
 * The transport: the server Fastify listens on (HTTP or TLS, timeouts, header
 * limits), with the /v1 entrance in front of Fastify's router
 * (http/pipeline/entrance.ts), what Node's parser rejects before either sees it
 * (431, 408, 400, CONNECT), request ids, HSTS, and the rules every request
 * outside /v1 meets before a route does (414, Host, GET only, answers while
 * stopping; the entrance applies the same to /v1). Raw answers carry our
 * envelope and a request id like every other.
 */
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { parse as parseQueryString } from 'fast-querystring';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { defaultOf } from '../config/environment.js';
import { ApiError, errorBody } from '../http/errors.js';
import type { V1Entrance } from '../http/pipeline/entrance.js';
import { requestIds } from '../http/request-ids.js';
import { requestRefusal } from '../http/request-rules.js';
import { JSON_TYPE } from '../http/respond.js';
import { cutStalledReaders } from '../http/stalled-readers.js';
import type { Services } from '../runtime/services.js';
import type { RouteTable } from './errors.js';

export interface TransportOptions {
  /** PEM certificate and key: serve HTTPS (TLS 1.2+) with HSTS (decisions §10). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** URLs longer than this get 414 (decisions §10). */
  maxUrlLength?: number;
  /** Time to receive a request's headers (default 10 s) and the whole request (default 15 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** How long a rejected connection's further input is read and discarded before it is closed. */
const LINGER_MS = 1_000;
/** How much of a rejected connection's further input is read and dropped before reading stops. */
const LINGER_BYTES = 256 * 1024;
const rejected = new WeakSet<Socket>();

/** The router's query-string parser, and the /v1 entrance's: one parse for both. */
export const parseQuery = (query: string): Record<string, unknown> =>
  query.length === 0 ? {} : (parseQueryString(query) as Record<string, unknown>);

/**
 * Writes one complete error response on a raw socket and half-closes it. What
 * the client is still sending (a header flood, say) is read and discarded for a
 * moment: closing with unread input would reset the connection, and the client
 * would lose the response.
 */
function rejectSocket(
  socket: Socket,
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
 * timeouts, malformed HTTP) still get our envelope and a request id; the
 * admin listener's too (src/admin-app.ts).
 */
export function clientErrorHandler(nextId: () => string, rawHeaders: string) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large' as const]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout' as const]
          : [400, 'bad_request' as const];
    rejectSocket(socket, nextId, status, code, rawHeaders);
  };
}

/**
 * The transport's settings, made before the app: Fastify takes the server
 * factory, id generator and raw-error handlers at construction.
 */
export function transport(services: Services, options: TransportOptions, routes: RouteTable) {
  const maxUrlLength = options.maxUrlLength ?? 4096;
  const headersTimeout = options.headersTimeoutMs ?? Number(defaultOf('MDS_HEADERS_TIMEOUT_MS'));
  const requestTimeout = options.requestTimeoutMs ?? Number(defaultOf('MDS_REQUEST_TIMEOUT_MS'));
  const nextId = requestIds();
  const hsts = options.tls ? 'max-age=31536000; includeSubDomains' : null;
  // Answers written on the raw socket, outside Fastify's hooks, need HSTS spelled out.
  const rawHeaders = hsts ? `Strict-Transport-Security: ${hsts}\r\n` : '';
  /** Set by plugins/pipeline.ts: it answers every /v1 request before the router. */
  const front: { entrance: V1Entrance | null } = { entrance: null };
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

  const fastifyOptions: FastifyServerOptions = {
    // The server Fastify would create, with the /v1 entrance (http/pipeline/entrance.ts) in front of its router.
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const dispatch = (req: IncomingMessage, res: ServerResponse) => {
        if (front.entrance === null || !front.entrance.take(req, res)) handler(req, res);
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
      // No socket inactivity timeout (`server.setTimeout`): it costs every request a
      // timer refresh. A client gets as long to read its answer as to send its request.
      cutStalledReaders(server, requestTimeout, options.tls !== undefined);
      return server;
    },
    routerOptions: { querystringParser: parseQuery },
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
    exposeHeadRoutes: true,
    // Fastify's own 503 while closing has neither our envelope nor a request id:
    // requests on connections still open are answered by us (onRequest below).
    return503OnClosing: false,
    bodyLimit: 1024,
    // Slow or idle clients are cut off (decisions §10).
    requestTimeout,
    keepAliveTimeout: 5_000,
    ...(options.tls ? { https: true } : {}),
  } as FastifyServerOptions;

  /** The transport's hooks, on the app itself: they apply to every route outside /v1. */
  const install = (app: FastifyInstance): void => {
    // CONNECT never reaches Fastify: without a listener Node drops the connection unanswered.
    app.server.on('connect', (_request: unknown, socket: Socket) =>
      rejectSocket(socket, nextId, 405, 'method_not_allowed', `${rawHeaders}Allow: GET, HEAD\r\n`),
    );
    const { lifecycle } = services;
    // Closing is draining too, also when app.close() is called without server.ts's
    // drain: answers close their connections, /readyz fails.
    app.addHook('preClose', (done) => {
      lifecycle.draining = true;
      done();
    });
    // The rules of http/request-rules.ts, as the /v1 entrance applies them.
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: (err?: Error) => void) => {
      reply.header('x-request-id', request.id);
      if (hsts) reply.header('strict-transport-security', hsts);
      // Served as usual while stopping, closing the connection (docs/decisions.md 20).
      if (lifecycle.draining) reply.header('connection', 'close');
      next(requestRefusal(request.raw, reply.raw, maxUrlLength, lifecycle.draining, routes.refusal));
    });
  };

  return { fastifyOptions, install, nextId, hsts, maxUrlLength, front };
}
