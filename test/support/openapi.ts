/**
 * Contract checks against the service's own OpenAPI 3.1 document: every
 * response a test receives must be one the document describes, for that path,
 * method and status, with the documented body schema and headers.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Harness } from './harness.js';

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
}

export interface ResponseObject {
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}

export interface OperationObject {
  deprecated?: boolean;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
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

/** GET /openapi.json from the app, once per app. */
export function loadOpenApi(app: FastifyInstance): Promise<OpenApiDocument> {
  let doc = documents.get(app);
  if (!doc) {
    doc = app.inject({ method: 'GET', url: '/openapi.json' }).then((res) => {
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
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
 * Fails unless `res` is a response the document describes for `method path`:
 * the status is listed for the operation; every documented header is present
 * (unless documented `required: false`) and matches its schema; no quota header is sent when the status documents
 * none; the body is JSON matching the documented schema (empty for HEAD and
 * for responses without content).
 */
export function expectConforms(
  doc: OpenApiDocument,
  method: string,
  path: string,
  res: LightMyRequestResponse,
): void {
  const m = method.toLowerCase();
  const where = `${method.toUpperCase()} ${path} → ${res.statusCode}`;
  const opMethod = m === 'head' ? 'get' : m;
  const operation = doc.paths[path]?.[opMethod];
  if (!operation) expect.fail(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  const status = String(res.statusCode);
  const response = operation.responses[status];
  if (!response) {
    expect.fail(
      `${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')}); body: ${res.body.slice(0, 300)}`,
    );
  }

  const documented = response.headers ?? {};
  const documentedLower = new Set(Object.keys(documented).map((n) => n.toLowerCase()));
  for (const [name, header] of Object.entries(documented)) {
    const raw = res.headers[name.toLowerCase()];
    if (raw === undefined && header.required === false) continue;
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
    expect(res.body, `${where}: no body expected`).toBe('');
    return;
  }
  const media = Object.keys(content);
  const type = String(res.headers['content-type'] ?? '');
  const matched = media.find((mt) => type.split(';')[0]!.trim() === mt);
  expect(matched, `${where}: content type ${type} is not one of ${media.join(', ')}`).toBeDefined();
  // A text representation (CSV) is checked as the string it is.
  let body: unknown = res.body;
  if (matched!.endsWith('json')) {
    try {
      body = JSON.parse(res.body);
    } catch {
      expect.fail(`${where}: body is not JSON: ${res.body.slice(0, 300)}`);
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
      `${where}: body does not match the documented schema: ${JSON.stringify(validate.errors)}\n${res.body.slice(0, 500)}`,
    ).toBe(true);
  }
}

/** The path part of a request URL. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
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
  const keys = Object.keys(body.error).sort();
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
