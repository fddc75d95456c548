/**
 * The fast path: a GET to a /v1 route whose answer is already prepared (latest
 * rates, premium, gold latest, the asset directory, a history page this data
 * version has served, as JSON or as the CSV its Accept asks for), from a key
 * verified since the last access change.
 *
 * Why it exists (issue #5): profiles of /v1/rates/latest put about half of the
 * request's time in Fastify's per-request machinery (request and reply objects,
 * hook runners, the header map, onSend), for a body that is already bytes. A
 * request taken here runs the same pipeline steps as the Fastify preHandler,
 * through the same functions (the authenticator's checks, the route's query
 * validator, entitlement and prepared answer, `unitConsumer` for the limits),
 * and gets the same status, headers and bytes.
 *
 * Everything else goes to Fastify untouched: a key not yet verified, any
 * request that will be refused before the limits (401, 403, 400), HEAD, a
 * conditional request, a page not yet prepared, a stopping server. That
 * choice is made before anything is consumed, so no request is half-handled
 * by both. After the unit is consumed only the limiter's own refusals (429,
 * 503) can follow, and they are written here with Fastify's envelope and headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessContext } from '../access/authenticator.js';
import type { LimitDecision } from '../limits/limiter.js';
import type { Services } from '../runtime/services.js';
import { prefersCsv } from './accept.js';
import { compress, encodingFor } from './compression.js';
import { ApiError, errorBody } from './errors.js';
import { QUOTA_HEADERS, unavailable, unitConsumer, type V1RouteConfig, WITH_QUOTA } from './pipeline.js';
import {
  bodyFor,
  CSV_TYPE,
  cacheControl,
  JSON_TYPE,
  linkFor,
  type PreparedAnswer,
  VARY_PAGE,
} from './respond.js';

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

interface FastRoute {
  validate: V1RouteConfig['validate'];
  entitlement: (query: unknown) => ReturnType<V1RouteConfig['entitlement']>;
  prepared: (query: unknown, csv: boolean) => PreparedAnswer | undefined;
  /** Negotiates CSV on Accept (decisions §12), and so varies on it. */
  csv: boolean;
  vary: string;
  observe: Observe;
}

export interface FastPathOptions {
  services: Services;
  nextId: () => string;
  parseQuery: (query: string) => Record<string, unknown>;
  /** URLs longer than this are Fastify's to refuse (414). */
  maxUrlLength: number;
  /** The Strict-Transport-Security value when serving TLS. */
  hsts: string | null;
  /** Unexpected failures are logged, as the Fastify error handler logs them. */
  logError: (err: unknown, requestId: string) => void;
}

export class FastPath {
  private readonly routes = new Map<string, FastRoute>();
  private readonly consume: ReturnType<typeof unitConsumer>;

  constructor(private readonly o: FastPathOptions) {
    this.consume = unitConsumer(o.services);
  }

  /** Called for each route registered with a `prepared` answer and no hooks of its own. */
  add(path: string, config: V1RouteConfig, observe: Observe): void {
    const { validate, entitlement, prepared, csv = false } = config;
    if (!prepared) return;
    this.routes.set(path, {
      validate,
      entitlement: entitlement as FastRoute['entitlement'],
      prepared: prepared as FastRoute['prepared'],
      csv,
      vary: csv ? VARY_PAGE : 'accept-encoding',
      observe,
    });
  }

  /** Answers the request and returns true, or returns false having done nothing. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    if (req.method !== 'GET' || url.length > this.o.maxUrlLength) return false;
    const q = url.indexOf('?');
    const route = this.routes.get(q === -1 ? url : url.slice(0, q));
    if (route === undefined) return false;
    const { services } = this.o;
    const h = req.headers;
    // The router ends the path at '#' too; such URLs, Host-less requests and
    // conditional requests are rare enough to leave to the general path.
    if (h['if-none-match'] !== undefined || h.host === undefined || services.lifecycle.draining) return false;
    if (url.includes('#')) return false;
    const started = performance.now();
    const now = services.now();
    const access = services.authenticator.cached(h.authorization, h['x-api-key'] as string | undefined, now);
    if (access === undefined) return false;
    const checked = route.validate(this.o.parseQuery(q === -1 ? '' : url.slice(q + 1)));
    if ('error' in checked) return false;
    const needed = route.entitlement(checked.value);
    if (!access.keyScopes.has(needed) || !access.grantScopes.has(needed)) return false;
    // A CSV request gets the CSV page or steps aside: never the JSON one.
    const answer = route.prepared(checked.value, route.csv && prefersCsv(h.accept));
    if (answer === undefined) return false;

    const requestId = this.o.nextId();
    const headers: string[] = ['x-request-id', requestId];
    if (this.o.hsts) headers.push('strict-transport-security', this.o.hsts);
    const setHeader = (name: string, value: string) => {
      headers.push(name, value);
    };
    const done = (status: number) =>
      route.observe(status, performance.now() - started, requestId, 'GET', url, access, req);
    let consumed: LimitDecision | undefined;
    this.consume(access, now, setHeader)
      .then((decision) => {
        consumed = decision;
        const prepared = answer.body;
        headers.push('etag', prepared.etag, 'cache-control', cacheControl(answer.maxAge));
        if (prepared.next) headers.push('link', linkFor(prepared, prepared.next, url));
        headers.push('content-type', prepared.csv ? CSV_TYPE : JSON_TYPE, 'vary', route.vary);
        const length = prepared.csv
          ? prepared.head.length
          : prepared.head.length + requestId.length + prepared.tail.length;
        const encoding =
          h['accept-encoding'] === undefined ? null : encodingFor(h['accept-encoding'], length);
        if (encoding === null) {
          // The prepared halves go out as they are, around the id: no body is built
          // per request (a 6 KB copy, and external memory the GC must account for).
          headers.push('content-length', String(length));
          res.writeHead(200, headers);
          if (prepared.csv) {
            res.end(prepared.head);
            done(200);
            return;
          }
          res.cork();
          res.write(prepared.head);
          res.write(requestId, 'latin1');
          res.end(prepared.tail);
          res.uncork();
        } else {
          const body = compress(bodyFor(prepared, requestId), encoding);
          headers.push('content-encoding', encoding, 'content-length', String(body.length));
          res.writeHead(200, headers);
          res.end(body);
        }
        done(200);
      })
      .catch((err: unknown) => {
        // The limiter's refusal (429) or outage (503): nothing was consumed. Anything
        // else is a failure of ours, answered as Fastify's error handler answers it
        // (app.ts): 500, the unit given back, no quota headers.
        let api = unavailable(err);
        if (!api) {
          this.o.logError(err, requestId);
          api = new ApiError(500, 'internal_error');
        }
        // Nothing here can fail once the status line is written but the socket itself,
        // so the give-back is not awaited: the answer is already on its way or lost.
        if (consumed && api.status >= 500)
          void services.limiter.refund(access.grant, consumed).catch(() => {});
        if (res.headersSent) {
          // Failed part-way through the body: the client must not take it as whole.
          res.destroy();
          done(api.status);
          return;
        }
        const sent = WITH_QUOTA.has(api.status) ? headers : withoutQuotaHeaders(headers);
        if (api.headers)
          for (const [name, value] of Object.entries(api.headers)) sent.push(name, String(value));
        const body = errorBody(api, requestId);
        sent.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)));
        res.writeHead(api.status, sent);
        res.end(body);
        done(api.status);
      });
    return true;
  }
}

const QUOTA_HEADER_NAMES: ReadonlySet<string> = new Set(QUOTA_HEADERS);

/** A flat [name, value, …] header list without the quota headers. */
function withoutQuotaHeaders(headers: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    if (!QUOTA_HEADER_NAMES.has(headers[i]!)) out.push(headers[i]!, headers[i + 1]!);
  }
  return out;
}
