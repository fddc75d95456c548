/**
 * Contract checks against the service's own OpenAPI 3.1 document: every
 * response a test receives must be one the document describes, for that path,
 * method and status, with the documented body schema and headers.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Backend } from './backends.js';
import { type Harness, startHarness } from './harness.js';

// CommonJS modules: at runtime the default import is the class / function
// itself; under NodeNext typing it is the module object.
type AjvClass = typeof Ajv2020Module.default;
type Ajv = InstanceType<AjvClass>;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ??
  Ajv2020Module) as unknown as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Ajv for JSON Schema 2020-12 (OpenAPI 3.1) with formats, lenient about extra keywords. */
export function newAjv(): Ajv {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

export interface HeaderObject {
  schema?: Record<string, unknown>;
  description?: string;
  /** `false`: sent on some answers only (Link); every other documented header is always sent. */
  required?: boolean;
  /** Sent exactly on the answers whose `error.code` is one of these (the quota headers of a 429). */
  'x-sent-with-error-codes'?: string[];
}

export interface ResponseObject {
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
  /** The `error.code`s an error answer of this status can carry (docs/decisions.md 64). */
  'x-error-codes'?: string[];
}

export interface OperationObject {
  deprecated?: boolean;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown; example?: unknown }>;
  responses: Record<string, ResponseObject>;
  [k: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [k: string]: unknown };
  paths: Record<string, Record<string, OperationObject>>;
  components?: {
    securitySchemes?: Record<string, Record<string, unknown>>;
    schemas?: Record<string, unknown>;
  };
  security?: Array<Record<string, string[]>>;
  [k: string]: unknown;
}

const DOC_ID = 'openapi.json';
const documents = new WeakMap<FastifyInstance, Promise<OpenApiDocument>>();
const validators = new WeakMap<OpenApiDocument, { ajv: Ajv; compiled: Map<string, ValidateFn> }>();
type ValidateFn = ReturnType<Ajv['compile']>;

/**
 * GET /openapi.json from the app, once per app; `documentUrl` names another
 * document (the admin listener's `/admin/openapi.json`).
 */
export function loadOpenApi(app: FastifyInstance, documentUrl = '/openapi.json'): Promise<OpenApiDocument> {
  let doc = documents.get(app);
  if (!doc) {
    doc = app.inject({ method: 'GET', url: documentUrl }).then((res) => {
      if (res.statusCode !== 200) throw new Error(`GET ${documentUrl} answered ${res.statusCode}`);
      return res.json() as OpenApiDocument;
    });
    documents.set(app, doc);
  }
  return doc;
}

const pointer = (...parts: string[]) =>
  parts.map((p) => `/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

function validatorFor(doc: OpenApiDocument, ptr: string): ValidateFn {
  let entry = validators.get(doc);
  if (!entry) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc as object, DOC_ID);
    entry = { ajv, compiled: new Map() };
    validators.set(doc, entry);
  }
  let fn = entry.compiled.get(ptr);
  if (!fn) {
    fn = entry.ajv.compile({ $ref: `${DOC_ID}#${ptr}` });
    entry.compiled.set(ptr, fn);
  }
  return fn;
}

/** Header names the specification reserves for the quota (decisions §1, §5). */
const QUOTA_HEADER = /^(ratelimit-|x-monthly-quota-)/i;

function headerValue(schema: Record<string, unknown> | undefined, raw: string): unknown {
  if (schema && (schema.type === 'integer' || schema.type === 'number')) {
    // Headers carry text; an integer header must be a plain decimal integer.
    return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  return raw;
}

/**
 * What the checks read of a response, whichever client received it: an
 * `app.inject` answer has this shape, and `observedFetch` turns a fetch
 * Response into it.
 */
export interface Observed {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** The bytes as sent, when `body` may be compressed (inject answers). */
  rawPayload?: Buffer;
}

/** A fetch Response (its body already read as text) as the checks read it. */
export function observedFetch(res: Response, body: string): Observed {
  const headers: Observed['headers'] = Object.fromEntries(res.headers.entries());
  // fetch has already decoded the body it hands over.
  delete headers['content-encoding'];
  return { statusCode: res.status, headers, body };
}

/** The key of `operation.responses` describing `status`: the code itself, its range (`5XX`) or `default`. */
export function responseKey(operation: OperationObject, status: number): string | undefined {
  const keys = [String(status), `${String(status)[0]}XX`, 'default'];
  return keys.find((k) => operation.responses[k] !== undefined);
}

/**
 * The body as text, decoded when the answer carries a Content-Encoding: an
 * inject answer keeps the compressed bytes in `rawPayload` (its `body` is
 * those bytes read as UTF-8, which no check can use).
 */
export function bodyText(res: Observed): string {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  if (!encoding || encoding === 'identity' || !res.rawPayload || res.rawPayload.length === 0) return res.body;
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString('utf8');
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(res.rawPayload).toString('utf8');
  if (encoding === 'deflate') return inflateSync(res.rawPayload).toString('utf8');
  expect.fail(`unknown Content-Encoding ${encoding}`);
}

/**
 * Fails unless `res` is a response the document describes for `method path`:
 * the status is listed for the operation; every documented header is present
 * (unless documented `required: false`) and matches its schema; a header
 * documented with `x-sent-with-error-codes` is present exactly when the body's
 * `error.code` is one of those; no quota header is sent when the status
 * documents none; the body is JSON matching the documented schema (empty for
 * HEAD and for responses without content).
 */
export function expectConforms(doc: OpenApiDocument, method: string, path: string, res: Observed): void {
  const text = bodyText(res);
  const m = method.toLowerCase();
  const where = `${method.toUpperCase()} ${path} → ${res.statusCode}`;
  const opMethod = m === 'head' ? 'get' : m;
  const operation = doc.paths[path]?.[opMethod];
  if (!operation) expect.fail(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  const status = responseKey(operation, res.statusCode);
  const response = status === undefined ? undefined : operation.responses[status];
  if (status === undefined || !response) {
    expect.fail(
      `${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')}); body: ${res.body.slice(0, 300)}`,
    );
  }

  const documented = response.headers ?? {};
  const documentedLower = new Set(Object.keys(documented).map((n) => n.toLowerCase()));
  for (const [name, header] of Object.entries(documented)) {
    const raw = res.headers[name.toLowerCase()];
    const codes = header['x-sent-with-error-codes'];
    if (codes) {
      const code = errorCode(res);
      if (code !== undefined && !codes.includes(String(code))) {
        expect(raw, `${where}: header ${name} is documented for ${codes.join(', ')} only, not ${code}`).toBe(
          undefined,
        );
        continue;
      }
      // A HEAD answer has no body to name its code: the header may be sent or not.
      if (code === undefined && raw === undefined) continue;
    } else if (raw === undefined && header.required === false) continue;
    expect(raw, `${where}: documented header ${name} is missing`).toBeDefined();
    const text = Array.isArray(raw) ? raw.join(', ') : String(raw);
    if (header.schema) {
      const ok = validatorFor(
        doc,
        pointer('paths', path, opMethod, 'responses', status, 'headers', name, 'schema'),
      );
      const valid = ok(headerValue(header.schema, text));
      expect(valid, `${where}: header ${name}: ${text} ${JSON.stringify(ok.errors)}`).toBe(true);
    }
  }
  for (const name of Object.keys(res.headers)) {
    if (QUOTA_HEADER.test(name)) {
      expect(documentedLower.has(name), `${where}: header ${name} is sent but not documented`).toBe(true);
    }
  }

  const content = response.content;
  if (!content || m === 'head') {
    expect(text, `${where}: no body expected`).toBe('');
    return;
  }
  const media = Object.keys(content);
  const type = String(res.headers['content-type'] ?? '');
  const matched = media.find((mt) => type.split(';')[0]!.trim() === mt);
  expect(matched, `${where}: content type ${type} is not one of ${media.join(', ')}`).toBeDefined();
  // A text representation (CSV) is checked as the string it is.
  let body: unknown = text;
  if (matched!.endsWith('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      expect.fail(`${where}: body is not JSON: ${text.slice(0, 300)}`);
    }
  }
  if (content[matched!]!.schema !== undefined) {
    const validate = validatorFor(
      doc,
      pointer('paths', path, opMethod, 'responses', status, 'content', matched!, 'schema'),
    );
    const valid = validate(body);
    expect(
      valid,
      `${where}: body does not match the documented schema: ${JSON.stringify(validate.errors)}\n${text.slice(0, 500)}`,
    ).toBe(true);
  }
  const codes = response['x-error-codes'];
  if (codes) {
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    expect(codes, `${where}: error.code ${String(code)} is not one of the status's x-error-codes`).toContain(
      code,
    );
  }
}

/**
 * `schema` standing alone: each `#/components/schemas/…` reference replaced by
 * a copy of its component (the document's schemas are not recursive).
 */
export function inlineRefs(schema: unknown, doc: OpenApiDocument): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, doc));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const target = doc.components?.schemas?.[ref.slice('#/components/schemas/'.length)];
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return inlineRefs(target, doc);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, doc)]));
}

/** The path part of a request URL. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The document's path template that `path` falls under, if any (`{name}` matches one segment). */
export function documentedPath(doc: OpenApiDocument, path: string): string | undefined {
  if (doc.paths[path]) return path;
  const segments = path.split('/');
  return Object.keys(doc.paths).find((template) => {
    const parts = template.split('/');
    return (
      parts.length === segments.length &&
      parts.every((part, i) => part === segments[i] || (/^\{[^}]+\}$/.test(part) && segments[i] !== ''))
    );
  });
}

const envelopes = new WeakMap<OpenApiDocument, ValidateFn>();

/**
 * The error envelope as the document states it, for answers no operation
 * describes (an unknown route, a method the path does not have): the schema of
 * the document's first JSON error response, with its list of codes lifted.
 */
function envelopeValidator(doc: OpenApiDocument): ValidateFn {
  let fn = envelopes.get(doc);
  if (fn) return fn;
  let schema: Record<string, unknown> | undefined;
  search: for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const s = inlineRefs(response.content?.['application/json']?.schema, doc) as
          | { properties?: { error?: { properties?: { code?: Record<string, unknown> } } } }
          | undefined;
        if (Number(status) >= 400 && s?.properties?.error?.properties?.code) {
          schema = s as Record<string, unknown>;
          break search;
        }
      }
    }
  }
  if (!schema) throw new Error('the OpenAPI document describes no JSON error response');
  const code = (schema as { properties: { error: { properties: { code: Record<string, unknown> } } } })
    .properties.error.properties.code;
  delete code.enum;
  fn = newAjv().compile(schema);
  envelopes.set(doc, fn);
  return fn;
}

function errorCode(res: Observed): unknown {
  try {
    return (JSON.parse(bodyText(res)) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return undefined;
  }
}

/** Fails unless `res` is the document's error envelope, its `error.status` the HTTP status. */
export function expectErrorEnvelope(doc: OpenApiDocument, where: string, res: Observed): void {
  const type = String(res.headers['content-type'] ?? '');
  const text = bodyText(res);
  expect(type.split(';')[0]!.trim(), `${where}: an error answer is JSON; body: ${text.slice(0, 300)}`).toBe(
    'application/json',
  );
  let body: { error?: { status?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`${where}: body is not JSON: ${text.slice(0, 300)}`);
  }
  const validate = envelopeValidator(doc);
  expect(
    validate(body),
    `${where}: not the documented error envelope: ${JSON.stringify(validate.errors)}\n${text.slice(0, 500)}`,
  ).toBe(true);
  expect(body.error?.status, `${where}: error.status`).toBe(res.statusCode);
}

/**
 * Checks any answer the service gave against its document, as the harness does
 * for every request: a documented operation (HEAD read as GET) must answer as
 * documented (`expectConforms`); an unknown route or method (404, 405), and any
 * JSON error elsewhere, must be the documented error envelope. Other answers
 * outside the document (pages, /metrics, /openapi.json itself) are not
 * described by it and are left to the tests that request them.
 */
export function expectServedConforms(doc: OpenApiDocument, method: string, url: string, res: Observed): void {
  const path = pathOf(url);
  const m = method.toLowerCase();
  const template = documentedPath(doc, path);
  const operation = template ? doc.paths[template]?.[m === 'head' ? 'get' : m] : undefined;
  if (template && operation) {
    expectConforms(doc, method, template, res);
    return;
  }
  const where = `${method.toUpperCase()} ${path} → ${res.statusCode} (not a documented operation)`;
  const type = String(res.headers['content-type'] ?? '');
  const jsonError = res.statusCode >= 400 && type.startsWith('application/json');
  if (res.statusCode === 404 || res.statusCode === 405 || jsonError) {
    if (m === 'head') expect(res.body, `${where}: no body expected`).toBe('');
    else expectErrorEnvelope(doc, where, res);
  }
}

type InjectOptions = string | { method?: string; url?: string | { pathname?: string }; path?: string };

/**
 * Makes every `app.inject` answer of this app checked against the app's own
 * OpenAPI document (`expectServedConforms`), so that a test fails on an
 * undocumented status, header or body whatever else it asserts. Promise style
 * only: the tests await `app.inject(options)`.
 */
export async function validateResponses(
  app: FastifyInstance,
  documentUrl = '/openapi.json',
): Promise<OpenApiDocument> {
  const doc = await loadOpenApi(app, documentUrl);
  const inject = app.inject.bind(app) as unknown as (
    opts: InjectOptions,
  ) => PromiseLike<LightMyRequestResponse>;
  const checked = async (opts: InjectOptions) => {
    const res = await inject(opts);
    const method = typeof opts === 'string' ? 'GET' : (opts.method ?? 'GET');
    const target = typeof opts === 'string' ? opts : (opts.url ?? opts.path ?? '/');
    const url = typeof target === 'string' ? target : (target.pathname ?? '/');
    expectServedConforms(doc, method, url, res);
    return res;
  };
  (app as { inject: unknown }).inject = checked;
  return doc;
}

const fetchedDocuments = new Map<string, Promise<OpenApiDocument>>();

/** GET <origin>/openapi.json (or `documentPath`) from a running server, once per origin. */
export function fetchOpenApi(origin: string, documentPath = '/openapi.json'): Promise<OpenApiDocument> {
  let doc = fetchedDocuments.get(origin + documentPath);
  if (!doc) {
    doc = fetch(`${origin}${documentPath}`).then(async (res) => {
      if (res.status !== 200) throw new Error(`GET ${origin}${documentPath} answered ${res.status}`);
      return (await res.json()) as OpenApiDocument;
    });
    fetchedDocuments.set(origin + documentPath, doc);
  }
  return doc;
}

/**
 * `fetch` against a running server, with the answer checked against that
 * server's OpenAPI document like every harness answer. Resolves with the
 * Response and its body text (the body can be read only once).
 */
export async function conformingFetch(
  url: string,
  init: RequestInit = {},
  documentPath = '/openapi.json',
): Promise<{ res: Response; text: string }> {
  const target = new URL(url);
  const doc = await fetchOpenApi(target.origin, documentPath);
  const res = await fetch(url, init);
  const text = await res.text();
  expectServedConforms(doc, init.method ?? 'GET', target.pathname, observedFetch(res, text));
  return { res, text };
}

export type Call = (
  url: string,
  key?: string,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

/** `h.get`, then `expectConforms` on the answer. */
export async function conformingGet(h: Harness): Promise<Call> {
  const doc = await loadOpenApi(h.app);
  return async (url, key, headers) => {
    const res = await h.get(url, key, headers);
    expectConforms(doc, 'get', pathOf(url), res);
    return res;
  };
}

/**
 * What most /v1 test files start with: the app on `backend` with the sample
 * data, a key of a grant with every scope, and `call` (conformingGet).
 */
export async function keyedHarness(backend: Backend): Promise<{ h: Harness; key: string; call: Call }> {
  const h = await startHarness(backend);
  try {
    return { h, key: (await h.newKey()).key, call: await conformingGet(h) };
  } catch (err) {
    await h.close();
    throw err;
  }
}

/** A HEAD request, checked against the GET operation of the document (no body). */
export async function conformingHead(h: Harness): Promise<Call> {
  const doc = await loadOpenApi(h.app);
  return async (url, key, headers = {}) => {
    const res = await h.app.inject({
      method: 'HEAD',
      url,
      headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers,
    });
    expectConforms(doc, 'head', pathOf(url), res);
    return res;
  };
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The exact error envelope of decisions §2: `data` null, `error` with status,
 * code, message (and `details` only where given), `meta.requestId` equal to
 * the X-Request-Id header, and the JSON content type.
 */
export function expectErrorBody(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  /** Expected `error.details` (asymmetric matchers allowed); omit when there must be none. */
  details?: unknown,
): {
  data: null;
  error: { status: number; code: string; message: string; details?: unknown[] };
  meta: { requestId: string };
} {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toBe(JSON_CONTENT_TYPE);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['data', 'error', 'meta']);
  expect(body.data).toBeNull();
  expect(Object.keys(body.meta)).toEqual(['requestId']);
  expect(typeof body.meta.requestId).toBe('string');
  expect(body.meta.requestId.length).toBeGreaterThan(0);
  expect(res.headers['x-request-id']).toBe(body.meta.requestId);
  expect(body.error.status).toBe(status);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  // A refused data import adds its report (docs/decisions.md 93); no other error does.
  if ('report' in body.error) expect(code).toBe('invalid_request');
  const keys = Object.keys(body.error)
    .filter((k) => k !== 'report')
    .sort();
  if (details === undefined) {
    expect(keys).toEqual(['code', 'message', 'status']);
  } else {
    expect(keys).toEqual(['code', 'details', 'message', 'status']);
    expect(body.error.details).toEqual(details);
  }
  return body;
}

/** The `parameter` names of a 400's details, sorted. */
export function problemParameters(res: LightMyRequestResponse): string[] {
  const details = (res.json().error?.details ?? []) as Array<{ parameter?: string }>;
  return details.map((d) => d.parameter ?? '').sort();
}

export const QUOTA_HEADER_NAMES = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
] as const;

export function expectQuotaHeaders(res: LightMyRequestResponse, present: boolean): void {
  for (const name of QUOTA_HEADER_NAMES) {
    if (present) expect(res.headers[name], `${name} on ${res.statusCode}`).toBeDefined();
    else expect(res.headers[name], `${name} on ${res.statusCode}`).toBeUndefined();
  }
}

/** One request to a secured operation, as the security suite sends it. */
export interface SecuredRequest {
  method: string;
  /** The documented path template. */
  path: string;
  operationId: string;
  /** A URL that answers 200 with a fully entitled key: required parameters set from their examples. */
  url: string;
  /** The entitlement the request needs, when the operation names one. */
  entitlement?: string;
}

/** The entitlement an operation names: `x-entitlement`, else its description's "Requires `…`". */
function entitlementOf(operation: OperationObject): string | undefined {
  if (typeof operation['x-entitlement'] === 'string') return operation['x-entitlement'];
  const description = typeof operation.description === 'string' ? operation.description : '';
  return /Requires `([^`]+)`/.exec(description)?.[1];
}

/**
 * Every `/v1` operation the document secures (its own `security`, else the
 * document's, non-empty), as requests for the security suite: so a route added
 * to the API is under the suite without anyone editing a list. An entitlement
 * written with a `<name>` placeholder (`rates:<source>:latest:read`) gives one
 * request per value of the enumerated query parameter of that name, the
 * default one without the parameter. Required parameters take their example.
 */
export function securedRequests(doc: OpenApiDocument): SecuredRequest[] {
  const requests: SecuredRequest[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const security = (operation.security as unknown[] | undefined) ?? doc.security ?? [];
      if (security.length === 0) continue;
      const operationId = String(operation.operationId ?? `${method} ${path}`);
      const query = new URLSearchParams();
      for (const p of operation.parameters ?? []) {
        if (p.in === 'path' || (p.in === 'query' && p.required)) {
          const example = p.example;
          if (example === undefined)
            throw new Error(`${operationId}: required parameter ${p.name} has no example in the document`);
          if (p.in === 'query') query.set(p.name, String(example));
        }
      }
      const concrete = (operation.parameters ?? [])
        .filter((p) => p.in === 'path')
        .reduce((url, p) => url.replace(`{${p.name}}`, encodeURIComponent(String(p.example))), path);
      const urlWith = (extra?: [string, string]) => {
        const q = new URLSearchParams(query);
        if (extra) q.set(extra[0], extra[1]);
        const text = q.toString().replaceAll('%2C', ',');
        return text ? `${concrete}?${text}` : concrete;
      };
      const entitlement = entitlementOf(operation);
      const placeholder = entitlement ? /<([a-z]+)>/.exec(entitlement)?.[1] : undefined;
      if (!entitlement || !placeholder) {
        requests.push({
          method: method.toUpperCase(),
          path,
          operationId,
          url: urlWith(),
          entitlement,
        });
        continue;
      }
      const parameter = (operation.parameters ?? []).find((p) => p.in === 'query' && p.name === placeholder);
      const schema = (parameter?.schema ?? {}) as { default?: unknown; enum?: unknown[]; anyOf?: unknown[] };
      const values = (
        schema.enum ??
        schema.anyOf?.flatMap((s) => (s as { enum?: unknown[] }).enum ?? []) ??
        []
      ).map(String);
      if (values.length === 0)
        throw new Error(
          `${operationId}: entitlement ${entitlement} names <${placeholder}>, not an enumerated parameter`,
        );
      for (const value of values) {
        requests.push({
          method: method.toUpperCase(),
          path,
          operationId,
          url: value === schema.default ? urlWith() : urlWith([placeholder, value]),
          entitlement: entitlement.replace(`<${placeholder}>`, value),
        });
      }
    }
  }
  return requests;
}

/** One request to an admin operation, as the security suite sends it. */
export interface AdminRequest {
  method: string;
  /** The documented path template. */
  path: string;
  operationId: string;
  /** The path with each path parameter set from its example. */
  url: string;
  /** The admin token scope the operation requires (`x-scope`). */
  scope: string;
}

/**
 * Every operation of the admin document (`/admin/v1/…`), with the scope it
 * requires: so that an admin route added to the API is under the security
 * suite without anyone editing a list.
 */
export function adminRequests(doc: OpenApiDocument): AdminRequest[] {
  const requests: AdminRequest[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/v1/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const operationId = String(operation.operationId ?? `${method} ${path}`);
      const scope = operation['x-scope'];
      if (typeof scope !== 'string') throw new Error(`${operationId}: no x-scope in the admin document`);
      const url = (operation.parameters ?? [])
        .filter((p) => p.in === 'path')
        .reduce((u, p) => {
          const example = p.example ?? (p.schema as { examples?: unknown[] } | undefined)?.examples?.[0];
          if (example === undefined)
            throw new Error(`${operationId}: path parameter ${p.name} has no example`);
          return u.replace(`{${p.name}}`, encodeURIComponent(String(example)));
        }, path);
      requests.push({ method: method.toUpperCase(), path, operationId, url, scope });
    }
  }
  return requests;
}
