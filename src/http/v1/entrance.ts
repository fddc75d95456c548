/**
 * The raw entrance: a shortcut past Fastify's router to the same decide and
 * the same writer (write.ts), for a GET to a /v1 operation whose answer is
 * already prepared (latest rates, premium, gold latest, the asset directory, a
 * history page this data version has served, as JSON or as the CSV its Accept
 * asks for), from a key verified since the last access change.
 *
 * Why it exists (docs/performance-notes.md): profiles of /v1/rates/latest put
 * about half of the request's time in Fastify's request and reply objects,
 * hook runners, header map and onSend, for a body that is already bytes. It
 * decides nothing and writes nothing itself: the answer is the pipeline's
 * (decide.ts, asked for a prepared answer only), written by writeAnswer, and
 * everything else goes to Fastify untouched, before anything is consumed.
 *
 * It is on only while the app's request hooks are the known set, whose work it
 * does itself (X-Request-Id, HSTS, the transport rules it steps aside for):
 * plugins/v1.ts checks at start-up, so a hook added later (CORS, tracing, a
 * header) turns it off rather than being skipped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessContext } from '../../access/authenticator.js';
import type { Limiter } from '../../limits/limiter.js';
import type { Decide } from './decide.js';
import type { Operation } from './operation.js';
import { failure, type Writing, writeAnswer } from './write.js';

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
 * The client's address is needed only to throttle a key that fails, and the raw
 * writer serves verified keys only: one function for every request, not one each.
 */
const NO_ADDRESS = (): string => '';

interface RawRoute {
  op: Operation;
  observe: Observe;
}

export class RawEntrance {
  private readonly routes = new Map<string, RawRoute>();
  /** Off when the app's hooks are not the known set (plugins/v1.ts). */
  enabled = true;

  constructor(private readonly o: RawEntranceOptions) {}

  /** Called for each /v1 operation that can have a prepared answer. */
  add(path: string, op: Operation, observe: Observe): void {
    if (op.ready) this.routes.set(path, { op, observe });
  }

  /** Answers the request and returns true, or returns false having done nothing. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.enabled) return false;
    const url = req.url ?? '';
    if (req.method !== 'GET' || url.length > this.o.maxUrlLength) return false;
    const q = url.indexOf('?');
    const route = this.routes.get(q === -1 ? url : url.slice(0, q));
    if (route === undefined) return false;
    const h = req.headers;
    // The router ends the path at '#' too; such URLs, Host-less requests and
    // conditional requests are rare enough to leave to Fastify's route.
    if (h['if-none-match'] !== undefined || h.host === undefined || this.o.draining()) return false;
    if (url.includes('#')) return false;
    const started = performance.now();
    const requestId = this.o.nextId();
    const query = route.op.validate(q === -1 ? null : this.o.parseQuery(url.slice(q + 1)));
    const request = { headers: h, rawHeaders: req.rawHeaders, query, url, requestId, ip: NO_ADDRESS };
    const pending = this.o.decide(route.op, request, true);
    if (pending === undefined) return false;
    const writing: Writing = {
      requestId,
      hsts: this.o.hsts,
      draining: false,
      acceptEncoding: h['accept-encoding'],
      limiter: this.o.limiter,
      logError: this.o.logError,
    };
    // One reaction per request: writeAnswer() catches its own failures.
    pending.then(
      (decided) => {
        const answer = writeAnswer(res, decided, writing);
        route.observe(answer.status, performance.now() - started, requestId, 'GET', url, answer.access, req);
      },
      (err: unknown) => {
        // The pipeline answers its failures itself; this would be a bug of ours.
        this.o.logError(err, requestId);
        const answer = failure(res, writing);
        route.observe(answer.status, performance.now() - started, requestId, 'GET', url, null, req);
      },
    );
    return true;
  }
}
