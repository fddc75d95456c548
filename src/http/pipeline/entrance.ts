/**
 * The /v1 entrance: every request whose path is under /v1 is answered here,
 * before Fastify's router, which serves only the paths outside /v1 (health,
 * documents, pages). It routes, applies the transport's rules in the order
 * Fastify applies them to its own routes (a target it cannot decode, 503 to a
 * request pipelined behind a closing answer, 414, a missing Host, 405/404 for
 * another method, 404 for an unknown path), and hands the rest to the
 * pipeline (decide.ts); every answer is written by writeAnswer (write.ts).
 *
 * Why not Fastify's route (docs/performance-notes.md): profiles of
 * /v1/rates/latest put about half of the request's time in Fastify's request
 * and reply objects, hook runners, header map and onSend, for a body that is
 * already bytes. A hook added to the Fastify app therefore never runs on a
 * /v1 answer.
 *
 * The path is read as find-my-way, Fastify's router, reads it (so that a
 * target names the same route either side of /v1): an absolute-form target
 * (`http://host/v1/…`) by its path, the path ends at the first `?` or `#`,
 * and percent-escapes are decoded except those of reserved characters.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
// The global `performance` is a getter: about 10 ns more a call (docs/performance-notes.md).
import { performance } from 'node:perf_hooks';
import type { AccessContext } from '../../access/authenticator.js';
import type { Limiter } from '../../limits/limiter.js';
import { ApiError } from '../errors.js';
import { requestRefusal } from '../request-rules.js';
import { type Answer, errorAnswer, type V1Request } from './answer.js';
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

export interface V1EntranceOptions {
  decide: Decide;
  /** The client's address (trusted proxies applied), for the failed-attempt throttle. */
  addressOf: (req: IncomingMessage) => string;
  limiter: Limiter;
  nextId: () => string;
  parseQuery: (query: string) => Record<string, unknown>;
  /** URLs longer than this get 414 (decisions §10). */
  maxUrlLength: number;
  /** The Strict-Transport-Security value when serving TLS. */
  hsts: string | null;
  /** While stopping, every answer closes its connection (docs/decisions.md 20). */
  draining: () => boolean;
  /** Unexpected failures are logged, as the Fastify error handler logs them. */
  logError: (err: unknown, requestId: string) => void;
  /** The observer of a route template (plugins/observability.ts); `unmatched` for the rest. */
  observer: (route: string) => Observe;
}

/** A request the pipeline does not see has no query of its own. */
const NO_QUERY: QueryResult<unknown> = Object.freeze({ value: Object.freeze({}) });

/**
 * A request as the pipeline reads it, what the writer needs to answer it, and
 * where its answer goes (one object per request, not three). The client's
 * address is a method, not a closure made per request: it is needed only when
 * a key is checked against the store (the failed-attempt throttle).
 */
class V1Call implements V1Request, Writing, Decided {
  readonly headers: IncomingMessage['headers'];
  readonly rawHeaders: readonly string[];
  readonly hsts: string | null;
  readonly head: boolean;
  readonly acceptEncoding: string | undefined;
  readonly limiter: Limiter;
  readonly logError: (err: unknown, requestId: string) => void;
  query = NO_QUERY;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly observe: Observe,
    readonly url: string,
    readonly requestId: string,
    readonly draining: boolean,
    private readonly started: number,
    private readonly o: V1EntranceOptions,
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

  /** The answer (told once), written by the one writer, which answers its own failures, then observed. */
  decided(answer: Answer): void {
    const written = writeAnswer(this.res, answer, this);
    const { req } = this;
    this.observe(
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

interface V1Route {
  op: Operation;
  observe: Observe;
}

/** A /v1 target: its decoded path and its query string (null without `?` or `#`), or undecodable. */
type Target = { path: string; query: string | null } | 'undecodable';

export class V1Entrance {
  private readonly routes = new Map<string, V1Route>();
  private readonly unmatched: Observe;
  private lastPath: string | undefined;
  private lastRoute: V1Route | undefined;

  constructor(private readonly o: V1EntranceOptions) {
    this.unmatched = o.observer('unmatched');
  }

  /** Called for each /v1 operation. */
  add(op: Operation): void {
    const path = `/v1${op.url}`;
    this.routes.set(path, { op, observe: this.o.observer(path) });
    this.lastPath = undefined;
    this.lastRoute = undefined;
  }

  /** Answers the request and returns true when its path is under /v1; else returns false having done nothing. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    const target = v1Target(url);
    if (target === undefined) return false;
    const started = performance.now();
    const requestId = this.o.nextId();
    let route: V1Route | undefined;
    if (target !== 'undecodable') {
      // A client asks the same path again: compared, not hashed for the map (as the authenticator's last key).
      route = this.lastRoute;
      if (route === undefined || target.path !== this.lastPath) {
        route = this.routes.get(target.path);
        if (route !== undefined) {
          this.lastPath = target.path;
          this.lastRoute = route;
        }
      }
    }
    const draining = this.o.draining();
    const call = new V1Call(
      req,
      res,
      route?.observe ?? this.unmatched,
      url,
      requestId,
      draining,
      started,
      this.o,
    );
    const refusal = this.refusal(req, res, target, route, draining);
    if (refusal !== undefined) {
      call.decided(errorAnswer(refusal, requestId));
      return true;
    }
    const { op } = route!;
    const { query } = target as { query: string | null };
    call.query = op.validate(query === null ? null : this.o.parseQuery(query));
    this.o.decide(op, call, call);
    return true;
  }

  /** The transport's refusals and the router's, in the order Fastify gives them on its own routes. */
  private refusal(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    route: V1Route | undefined,
    draining: boolean,
  ): ApiError | undefined {
    if (target === 'undecodable') return new ApiError(400, 'bad_request');
    const refused = requestRefusal(req, res, this.o.maxUrlLength, draining, this.otherMethod);
    if (refused !== undefined) return refused;
    if (route === undefined) return new ApiError(404, 'route_not_found');
    return undefined;
  }

  /** Another method than GET and HEAD on an operation's path, as written before any `?`: 405. */
  private readonly otherMethod = (url: string): ApiError => {
    const q = url.indexOf('?');
    return this.routes.has(q === -1 ? url : url.slice(0, q))
      ? new ApiError(405, 'method_not_allowed', undefined, { allow: 'GET, HEAD' })
      : new ApiError(404, 'route_not_found');
  };
}

/** The target of a request under /v1, read as find-my-way reads it; undefined for any other path. */
function v1Target(url: string): Target | undefined {
  let target = url;
  // 47: '/'. An absolute-form target (RFC 9112 §3.2.2) routes by its path.
  if (target.charCodeAt(0) !== 47) {
    const path = absolutePath(url);
    if (path === undefined) return undefined;
    target = path;
  }
  if (!target.startsWith('/v1/')) {
    // A percent-escape may spell /v1 itself (`/%761/…`).
    if (!target.includes('%')) return undefined;
  }
  let end = target.indexOf('?');
  const hash = target.indexOf('#');
  if (hash !== -1 && (end === -1 || hash < end)) end = hash;
  let path = end === -1 ? target : target.slice(0, end);
  if (path.includes('%')) {
    try {
      // decodeURI keeps the escapes of reserved characters (`%2F` stays); `%25` stays too.
      path = decodeURI(path.replaceAll('%25', '%2525'));
    } catch {
      return path.startsWith('/v1/') ? 'undecodable' : undefined;
    }
  }
  if (!path.startsWith('/v1/')) return undefined;
  return { path, query: end === -1 ? null : target.slice(end + 1) };
}

/**
 * The path of an absolute-form target (`http://host/path?query`), undefined
 * when the router would not route it (another scheme, no host, a fragment, a
 * URL that does not parse) or it is not under /v1.
 */
function absolutePath(url: string): string | undefined {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd === -1 || !url.includes('/v1/')) return undefined;
  const scheme = url.slice(0, schemeEnd).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const start = schemeEnd + 3;
  const pathStart = url.indexOf('/', start);
  const queryStart = url.indexOf('?', start);
  if (pathStart === -1 || (queryStart !== -1 && queryStart < pathStart)) return undefined;
  if (pathStart === start || url.includes('#', start)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== `${scheme}:` || parsed.host.length === 0) return undefined;
  return url.slice(pathStart);
}
