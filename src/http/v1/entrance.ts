/**
 * The raw entrance: a shortcut past Fastify's router to the same decide and
 * the same writer (write.ts), for every GET and HEAD to a /v1 operation,
 * whatever its headers: a key seen for the first time, a conditional request,
 * a refusal. It routes and nothing else; the answer is the pipeline's
 * (decide.ts), written by writeAnswer, exactly as Fastify's route
 * (plugins/v1.ts) would have it written.
 *
 * Why it exists (docs/performance-notes.md): profiles of /v1/rates/latest put
 * about half of the request's time in Fastify's request and reply objects,
 * hook runners, header map and onSend, for a body that is already bytes.
 *
 * What it leaves to Fastify: what the transport refuses before any route (a
 * URL past the length limit, an HTTP/1.1 request without Host, a fragment in
 * the target), every request while the server drains (the transport's rule for
 * a request pipelined behind a closing answer), and everything while a request
 * hook of someone else's is on the app (plugins/hook-watch.ts): that hook then
 * runs on every /v1 answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
// The global `performance` is a getter: about 10 ns more a call (docs/performance-notes.md).
import { performance } from 'node:perf_hooks';
import type { AccessContext } from '../../access/authenticator.js';
import type { Limiter } from '../../limits/limiter.js';
import type { Answer, V1Request } from './answer.js';
import type { Decide, Decided } from './decide.js';
import type { Operation } from './operation.js';
import type { QueryResult } from './query.js';
import { type Writing, writeAnswer } from './write.js';

/**
 * What the app records of every answered request: metrics, and the access line
 * when enabled. `raw` is the request as Node received it, for the client
 * address (client-address.ts), computed only when the line is written.
 */
export type Observe = (
  status: number,
  elapsedMs: number,
  requestId: string,
  method: string,
  url: string,
  access: AccessContext | null,
  raw: IncomingMessage,
) => void;

export interface RawEntranceOptions {
  decide: Decide;
  /** The client's address (trusted proxies applied), for the failed-attempt throttle. */
  addressOf: (req: IncomingMessage) => string;
  limiter: Limiter;
  nextId: () => string;
  parseQuery: (query: string) => Record<string, unknown>;
  /** URLs longer than this are Fastify's to refuse (414). */
  maxUrlLength: number;
  /** The Strict-Transport-Security value when serving TLS. */
  hsts: string | null;
  /** While stopping, every answer closes its connection: Fastify's hook does that. */
  draining: () => boolean;
  /** Unexpected failures are logged, as the Fastify error handler logs them. */
  logError: (err: unknown, requestId: string) => void;
}

/**
 * A request as the pipeline reads it, what the writer needs to answer it, and
 * where its answer goes (one object per request, not three). The client's
 * address is a method, not a closure made per request: it is needed only when
 * a key is checked against the store (the failed-attempt throttle).
 */
class RawRequest implements V1Request, Writing, Decided {
  readonly headers: IncomingMessage['headers'];
  readonly rawHeaders: readonly string[];
  readonly hsts: string | null;
  readonly draining = false;
  readonly head: boolean;
  readonly acceptEncoding: string | undefined;
  readonly limiter: Limiter;
  readonly logError: (err: unknown, requestId: string) => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly route: RawRoute,
    readonly query: QueryResult<unknown>,
    readonly url: string,
    readonly requestId: string,
    private readonly started: number,
    private readonly o: RawEntranceOptions,
  ) {
    this.headers = req.headers;
    this.rawHeaders = req.rawHeaders;
    this.hsts = o.hsts;
    this.head = req.method === 'HEAD';
    this.acceptEncoding = req.headers['accept-encoding'];
    this.limiter = o.limiter;
    this.logError = o.logError;
  }

  ip(): string {
    return this.o.addressOf(this.req);
  }

  /** The pipeline's answer (told once), written by the one writer, which answers its own failures, then observed. */
  decided(answer: Answer): void {
    const written = writeAnswer(this.res, answer, this);
    const { req } = this;
    this.route.observe(
      written.status,
      performance.now() - this.started,
      this.requestId,
      req.method!,
      this.url,
      written.access,
      req,
    );
  }
}

interface RawRoute {
  op: Operation;
  observe: Observe;
}

export class RawEntrance {
  private readonly routes = new Map<string, RawRoute>();
  private lastPath: string | undefined;
  private lastRoute: RawRoute | undefined;
  /** Off while a request hook of someone else's is on the app (plugins/hook-watch.ts). */
  enabled = true;

  constructor(private readonly o: RawEntranceOptions) {}

  /** Called for each /v1 operation. */
  add(path: string, op: Operation, observe: Observe): void {
    this.routes.set(path, { op, observe });
    this.lastPath = undefined;
    this.lastRoute = undefined;
  }

  /** Answers the request and returns true, or returns false having done nothing. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.enabled) return false;
    const url = req.url ?? '';
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || url.length > this.o.maxUrlLength) return false;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    // A client asks the same path again: compared, not hashed for the map (as the authenticator's last key).
    let route = this.lastRoute;
    if (route === undefined || path !== this.lastPath) {
      route = this.routes.get(path);
      if (route === undefined) return false;
      this.lastPath = path;
      this.lastRoute = route;
    }
    const h = req.headers;
    // The transport's own refusals and its rule while draining are Fastify's (plugins/transport.ts).
    if ((h.host === undefined && req.httpVersion === '1.1') || this.o.draining()) return false;
    if (url.includes('#')) return false;
    const started = performance.now();
    const requestId = this.o.nextId();
    const query = route.op.validate(q === -1 ? null : this.o.parseQuery(url.slice(q + 1)));
    const request = new RawRequest(req, res, route, query, url, requestId, started, this.o);
    this.o.decide(route.op, request, request);
    return true;
  }
}
