/**
 * What the two clients share: `MdsClient` (index.ts, the /v1 API) and
 * `MdsAdminClient` (admin.ts, the admin API) differ in their credential, their
 * operations and which answers they may retry; the rest is one transport. It
 * covers the options both take, the typed error read from a non-2xx answer,
 * the bodies they accept (the JSON envelope, CSV text) and the retry loop
 * that waits as the server asks.
 *
 * Internal: the package's entry points are `@mds/client` and
 * `@mds/client/admin`, which re-export what a caller needs of this module.
 */

/** The options both clients take, besides their credential. */
export interface TransportOptions {
  /** Where the API is served (a path prefix is kept). */
  baseUrl: string;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Retries of an answer the client may retry, before the error is thrown. @default 3 */
  maxRetries?: number;
  /**
   * The longest the client waits before a retry. A `Retry-After` longer than
   * this is not waited out: the error is thrown at once (with `retryAfter`),
   * so the caller decides. @default 30000
   */
  maxRetryDelayMs?: number;
}

/** The options as a client keeps them, checked, with its credential trimmed. */
export interface Transport {
  baseUrl: string;
  credential: string;
  fetch: typeof fetch;
  maxRetries: number;
  maxRetryDelayMs: number;
}

/**
 * Checks a client's options: `client` names it in the messages, `credential`
 * is its key or token (`name` as the option is called, `hint` added to the
 * message when it is missing).
 */
export function transportOf(
  client: string,
  options: TransportOptions,
  credential: { name: string; value: unknown; hint?: string },
): Transport {
  if (typeof options.baseUrl !== 'string' || options.baseUrl === '') {
    throw new TypeError(`${client}: baseUrl is required`);
  }
  if (typeof credential.value !== 'string' || credential.value.trim() === '') {
    throw new TypeError(
      `${client}: ${credential.name} is required${credential.hint ? ` (${credential.hint})` : ''}`,
    );
  }
  const maxRetries = options.maxRetries ?? 3;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new TypeError(`${client}: maxRetries must be a whole number ≥ 0`);
  }
  if (!(maxRetryDelayMs >= 0)) throw new TypeError(`${client}: maxRetryDelayMs must be ≥ 0`);
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    credential: credential.value.trim(),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRetries,
    maxRetryDelayMs,
  };
}

/** What an error is made from: the answer's status and its `error` and `meta` members. */
export interface ErrorInit<D> {
  status: number;
  code: string;
  message: string;
  details?: D[] | undefined;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
}

/**
 * Every non-2xx answer of either API, and any answer that is not its JSON
 * (a proxy's page, say), as a typed error: `MdsApiError` from `MdsClient`,
 * `MdsAdminError` from `MdsAdminClient`, both instances of this class.
 */
export class MdsError<D = unknown> extends Error {
  override readonly name: string = 'MdsError';
  /** The HTTP status. */
  readonly status: number;
  /**
   * The machine-readable `error.code`, e.g. `invalid_api_key`, `rate_limited`, `conflict`; the
   * client sets `unexpected_response` when the answer is not the API's JSON envelope.
   */
  readonly code: string;
  /** `error.details`: the parameters or fields at fault, or the missing entitlement. */
  readonly details: D[] | undefined;
  /** `meta.requestId` (equal to the `X-Request-Id` header): quote it to support. */
  readonly requestId: string | undefined;
  /** Seconds from `Retry-After` (429 and 503), when the server sent it. */
  readonly retryAfter: number | undefined;

  constructor(init: ErrorInit<D>) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/** A client's error class, and the API's name as its messages say it ("API", "admin API"). */
export interface ErrorKind<E extends MdsError> {
  Error: new (init: ErrorInit<never>) => E;
  api: string;
}

/** The error for an answer that is not what the API sends (no envelope, or not the CSV asked for). */
function unexpected<E extends MdsError>(
  kind: ErrorKind<E>,
  res: Response,
  expected: 'JSON envelope' | 'CSV' = 'JSON envelope',
): E {
  return new kind.Error({
    status: res.status,
    code: 'unexpected_response',
    message: `Unexpected ${res.status} answer: not the ${kind.api}'s ${expected}.`,
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  });
}

/** The typed error of a non-2xx answer, read from its body (its body is consumed). */
async function errorOf<E extends MdsError>(kind: ErrorKind<E>, res: Response): Promise<E> {
  const body = (await readJson(res)) as
    | { error?: { code?: unknown; message: string; details?: never[] }; meta?: { requestId?: string } }
    | undefined;
  const error = body?.error;
  if (!error || typeof error.code !== 'string') return unexpected(kind, res);
  return new kind.Error({
    status: res.status,
    code: error.code,
    message: error.message,
    details: error.details,
    requestId: body?.meta?.requestId ?? res.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  });
}

/** A 2xx answer's JSON envelope (`{ data, meta }`), or the kind's `unexpected_response` error. */
export async function envelopeOf<T, E extends MdsError>(kind: ErrorKind<E>, res: Response): Promise<T> {
  const body = await readJson(res);
  if (body && typeof body === 'object' && 'data' in body && 'meta' in body) return body as T;
  throw unexpected(kind, res);
}

/** A 2xx answer's CSV text; a JSON page (a server without CSV), or a proxy's HTML page, is not it. */
export async function csvOf<E extends MdsError>(kind: ErrorKind<E>, res: Response): Promise<string> {
  if (!/^text\/csv\s*(;|$)/i.test(res.headers.get('content-type') ?? '')) {
    await res.body?.cancel();
    throw unexpected(kind, res, 'CSV');
  }
  return res.text();
}

/** Backoff when a retried answer carries no Retry-After: 0.5 s, 1 s, 2 s… (capped). */
const BASE_BACKOFF_MS = 500;

/**
 * Sends with `attempt` until an answer is 2xx (returned, its body unread) or
 * its error is thrown: at once when `retryable` says no, after `maxRetries`
 * retries, or when the wait the server asks is longer than `maxRetryDelayMs`
 * (retrying sooner than asked would only fail again). `signal` aborts a wait.
 */
export async function sendWithRetries<E extends MdsError>(
  transport: Pick<Transport, 'maxRetries' | 'maxRetryDelayMs'>,
  attempt: () => Promise<Response>,
  kind: ErrorKind<E>,
  retryable: (error: E) => boolean,
  signal: AbortSignal | undefined,
): Promise<Response> {
  for (let n = 0; ; n++) {
    const res = await attempt();
    if (res.ok) return res;
    const error = await errorOf(kind, res);
    if (!retryable(error) || n >= transport.maxRetries) throw error;
    const wait =
      error.retryAfter === undefined
        ? Math.min(BASE_BACKOFF_MS * 2 ** n, transport.maxRetryDelayMs)
        : error.retryAfter * 1000;
    if (wait > transport.maxRetryDelayMs) throw error;
    await sleep(wait, signal);
  }
}

/** `?name=value&…` of the members that are set; empty when none is. */
export function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.append(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Seconds from a Retry-After header: delta-seconds, or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
