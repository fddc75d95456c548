/**
 * A typed client for the admin API (`/admin/v1` on the admin listener): for
 * a billing system provisioning accounts, grants and keys, reading usage for
 * invoices, the audit log and data imports. Its methods and types are
 * generated from `/admin/openapi.json` (admin-generated.ts); this file is the
 * transport: the admin token, `Idempotency-Key`, retries and typed errors.
 *
 * `import { MdsAdminClient } from '@mds/client/admin'`. No runtime
 * dependency: the global `fetch` of Node.js ≥ 20, or the one passed in.
 */
import {
  ADMIN_OPERATIONS,
  type AdminErrorResponse,
  AdminOperationMethods,
  type AdminOperations,
  type AdminRequestOptions,
  type AdminTextBodyOptions,
} from './admin-generated.js';

export * from './admin-generated.js';

/** Every `error.code` the admin API documents (the client adds `unexpected_response`). */
export type AdminErrorCode = AdminErrorResponse['error']['code'];

/** One entry of `error.details`. */
export type AdminErrorDetail = NonNullable<AdminErrorResponse['error']['details']>[number];

export interface MdsAdminClientOptions {
  /** The admin listener, e.g. `http://127.0.0.1:9091` (a path prefix is kept). */
  baseUrl: string;
  /** The admin token (`mds admin-tokens create`), sent as `Authorization: Bearer`. Never exposed. */
  token: string;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Retries of a GET, or of a POST, PATCH or DELETE with an `idempotencyKey`, after a 429, a 503 or a
   * 409 `idempotency_key_in_progress`, before the error is thrown. @default 3
   */
  maxRetries?: number;
  /** The longest wait before a retry; a longer `Retry-After` throws at once. @default 30000 */
  maxRetryDelayMs?: number;
}

/** Every non-2xx answer of the admin API (and any answer that is not its JSON), as a typed error. */
export class MdsAdminError extends Error {
  override readonly name = 'MdsAdminError';
  /** The HTTP status. */
  readonly status: number;
  /** `error.code`, e.g. `conflict`, `idempotency_key_reused`, `insufficient_admin_scope`. */
  readonly code: string;
  /** `error.details`: the fields or parameters at fault. */
  readonly details: AdminErrorDetail[] | undefined;
  /** `meta.requestId` (equal to `X-Request-Id`). */
  readonly requestId: string | undefined;
  /** Seconds from `Retry-After`, when sent. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: AdminErrorDetail[] | undefined;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

const OPERATIONS = new Map<string, (typeof ADMIN_OPERATIONS)[number]>(
  ADMIN_OPERATIONS.map((op) => [op.operationId, op]),
);
const BASE_BACKOFF_MS = 500;

export class MdsAdminClient extends AdminOperationMethods {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxRetryDelayMs: number;
  // Private fields: the token never shows in console.log, JSON.stringify or errors.
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: MdsAdminClientOptions) {
    super();
    if (typeof options.baseUrl !== 'string' || options.baseUrl === '') {
      throw new TypeError('MdsAdminClient: baseUrl is required');
    }
    if (typeof options.token !== 'string' || options.token.trim() === '') {
      throw new TypeError('MdsAdminClient: token is required (an admin token, mdsadm_…)');
    }
    const maxRetries = options.maxRetries ?? 3;
    const maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new TypeError('MdsAdminClient: maxRetries must be a whole number ≥ 0');
    }
    if (!(maxRetryDelayMs >= 0)) throw new TypeError('MdsAdminClient: maxRetryDelayMs must be ≥ 0');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token.trim();
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxRetries = maxRetries;
    this.maxRetryDelayMs = maxRetryDelayMs;
  }

  protected async request<K extends keyof AdminOperations>(
    operationId: K,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminTextBodyOptions | undefined,
  ): Promise<AdminOperations[K]['response']> {
    const res = await this.send(operationId, params, query, body, options, 'application/json');
    // A deletion answers 204: its method resolves to nothing.
    if (res.status === 204) {
      await res.body?.cancel();
      return undefined as AdminOperations[K]['response'];
    }
    const parsed = await readJson(res);
    if (parsed && typeof parsed === 'object' && 'data' in parsed && 'meta' in parsed) {
      return parsed as AdminOperations[K]['response'];
    }
    throw unexpected(res);
  }

  protected async requestCsv(
    operationId: keyof AdminOperations,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminRequestOptions | undefined,
  ): Promise<string> {
    const res = await this.send(operationId, params, query, body, options, 'text/csv');
    if (!/^text\/csv\s*(;|$)/i.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel();
      throw unexpected(res, 'CSV');
    }
    return res.text();
  }

  /** The 2xx answer, its body unread, or an MdsAdminError; retried only when that is safe. */
  private async send(
    operationId: string,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminTextBodyOptions = {},
    accept: 'application/json' | 'text/csv',
  ): Promise<Response> {
    const op = OPERATIONS.get(operationId);
    if (!op) throw new TypeError(`MdsAdminClient: no operation ${operationId}`);
    let path: string = op.path;
    for (const name of op.pathParams) {
      const value = params[name];
      if (typeof value !== 'string' || value === '') {
        throw new TypeError(`MdsAdminClient.${operationId}: ${name} is required`);
      }
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    const url = this.baseUrl + path + queryString(query as Record<string, unknown> | undefined);
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept };
    let payload: string | undefined;
    if (op.body === 'json') {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body ?? {});
    } else if (op.body === 'text') {
      headers['content-type'] = options.contentType ?? 'application/x-ndjson';
      payload = String(body);
    }
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    // A write without an Idempotency-Key may have been applied before a failure: never repeated.
    const retryable = op.method === 'GET' || options.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await this.#fetch(url, {
        method: op.method,
        headers,
        body: payload,
        signal: options.signal,
      });
      if (res.ok) return res;
      const error = await toError(res);
      const transient =
        error.status === 429 ||
        error.status === 503 ||
        (error.status === 409 && error.code === 'idempotency_key_in_progress');
      if (!retryable || !transient || attempt >= this.maxRetries) throw error;
      const wait =
        error.retryAfter === undefined
          ? Math.min(BASE_BACKOFF_MS * 2 ** attempt, this.maxRetryDelayMs)
          : error.retryAfter * 1000;
      if (wait > this.maxRetryDelayMs) throw error;
      await sleep(wait, options.signal);
    }
  }
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.append(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

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

function unexpected(res: Response, expected: 'JSON envelope' | 'CSV' = 'JSON envelope'): MdsAdminError {
  return new MdsAdminError({
    status: res.status,
    code: 'unexpected_response',
    message: `Unexpected ${res.status} answer: not the admin API's ${expected}.`,
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  });
}

async function toError(res: Response): Promise<MdsAdminError> {
  const body = (await readJson(res)) as Partial<AdminErrorResponse> | undefined;
  const error = body?.error;
  if (!error || typeof error.code !== 'string') return unexpected(res);
  return new MdsAdminError({
    status: res.status,
    code: error.code,
    message: error.message,
    details: error.details,
    requestId: body?.meta?.requestId ?? res.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  });
}
