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
import {
  csvOf,
  type ErrorKind,
  envelopeOf,
  MdsError,
  queryString,
  sendWithRetries,
  type TransportOptions,
  transportOf,
} from './transport.js';

export * from './admin-generated.js';
export { MdsError } from './transport.js';

/** Every `error.code` the admin API documents (the client adds `unexpected_response`). */
export type AdminErrorCode = AdminErrorResponse['error']['code'];

/** One entry of `error.details`. */
export type AdminErrorDetail = NonNullable<AdminErrorResponse['error']['details']>[number];

export interface MdsAdminClientOptions extends TransportOptions {
  /** The admin listener, e.g. `http://127.0.0.1:9091` (a path prefix is kept). */
  baseUrl: string;
  /** The admin token (`mds admin-tokens create`), sent as `Authorization: Bearer`. Never exposed. */
  token: string;
  /**
   * Retries of a GET, or of a POST, PATCH or DELETE with an `idempotencyKey`, after a 429, a 503 or a
   * 409 `idempotency_key_in_progress`, before the error is thrown. @default 3
   */
  maxRetries?: number;
}

/**
 * Every non-2xx answer of the admin API (and any answer that is not its JSON),
 * as a typed error: `status`, `code` (e.g. `conflict`, `idempotency_key_reused`,
 * `insufficient_admin_scope`), `details`, `requestId` and `retryAfter`
 * (transport.ts, `MdsError`).
 */
export class MdsAdminError extends MdsError<AdminErrorDetail> {
  override readonly name = 'MdsAdminError';
}

const ADMIN_API: ErrorKind<MdsAdminError> = { Error: MdsAdminError, api: 'admin API' };

/** Answers worth asking again: the server was busy, or the same key's first attempt is still running. */
const transient = (error: MdsAdminError) =>
  error.status === 429 ||
  error.status === 503 ||
  (error.status === 409 && error.code === 'idempotency_key_in_progress');

const OPERATIONS = new Map<string, (typeof ADMIN_OPERATIONS)[number]>(
  ADMIN_OPERATIONS.map((op) => [op.operationId, op]),
);

export class MdsAdminClient extends AdminOperationMethods {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxRetryDelayMs: number;
  // Private fields: the token never shows in console.log, JSON.stringify or errors.
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: MdsAdminClientOptions) {
    super();
    const t = transportOf('MdsAdminClient', options, {
      name: 'token',
      value: options.token,
      hint: 'an admin token, mdsadm_…',
    });
    this.baseUrl = t.baseUrl;
    this.#token = t.credential;
    this.#fetch = t.fetch;
    this.maxRetries = t.maxRetries;
    this.maxRetryDelayMs = t.maxRetryDelayMs;
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
    return envelopeOf(ADMIN_API, res);
  }

  protected async requestCsv(
    operationId: keyof AdminOperations,
    params: Record<string, string>,
    query: object | undefined,
    body: unknown,
    options: AdminRequestOptions | undefined,
  ): Promise<string> {
    return csvOf(ADMIN_API, await this.send(operationId, params, query, body, options, 'text/csv'));
  }

  /** The 2xx answer, its body unread, or an MdsAdminError; retried only when that is safe. */
  private send(
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
    const url = this.baseUrl + path + queryString(query);
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
    const init = { method: op.method, headers, body: payload, signal: options.signal };
    return sendWithRetries(
      this,
      () => this.#fetch(url, init),
      ADMIN_API,
      (error) => retryable && transient(error),
      options.signal,
    );
  }
}
