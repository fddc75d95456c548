/**
 * What an admin route is: its method and path under /admin/v1, the scope it
 * requires, its schema (which validates, serializes and documents it) and a
 * handler over one operation of src/use-cases/. Route files (one per
 * resource) list theirs with `adminRoute`; plugins/admin.ts mounts them, with
 * authentication, the scope check and Idempotency-Key in front of each.
 *
 * Adding a route: a spec in the resource's file (or a new file listed in
 * http/admin/index.ts), its schemas in schemas/admin.ts. The security suite
 * and the conformance checks read it from /admin/openapi.json.
 */
import type { Readable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../runtime/services.js';
import type { AdminScope } from '../../schemas/admin.js';
import type { Actor, OperationError, Page, Result } from '../../use-cases/contract.js';
import type { AdminIdentity } from './auth.js';
import { operationError } from './errors.js';
import type { ReceivedFile } from './received-file.js';

export interface AdminContext {
  services: Services;
  /** The actor of every change this request makes (the audit log's). */
  actor: Actor;
  token: AdminIdentity;
  /** The plan catalogue for new grants (MDS_PLANS_FILE); undefined: config/plans.json. */
  plansFile?: string;
}

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path under /admin/v1, Fastify style (`/accounts/:id`). */
  url: string;
  scope: AdminScope;
  schema: {
    tags: string[];
    operationId: string;
    summary: string;
    description: string;
    params?: TSchema;
    querystring?: TSchema;
    body?: TSchema;
    response: Record<number, TSchema>;
  };
  /** Fastify's body limit for this route (the data imports take more than the default). */
  bodyLimit?: number;
  /**
   * The body of these media types streamed to `receive` rather than parsed
   * (the data imports receive it to a file: http/admin/received-file.ts); JSON
   * parsed otherwise. What `receive` returns is the request's body; its
   * `abandon` runs after the answer.
   */
  streamBody?: {
    types: readonly string[];
    receive(request: FastifyRequest, payload: Readable, services: Services): Promise<ReceivedFile>;
  };
  handler: (request: FastifyRequest, reply: FastifyReply, context: AdminContext) => Promise<unknown>;
}

export const adminRoute = (route: AdminRoute): AdminRoute => route;

/** The value of a result, or the refusal it carries as an answer (400, 404, 409). */
export function unwrap<T>(result: Result<T>, part: 'body' | 'query' = 'body'): T {
  if (result.ok) return result.value;
  throw operationError(result.error as OperationError, part);
}

/** `{ data, meta }` with this request's id, and `status` (201 for a creation). */
export function answer(request: FastifyRequest, reply: FastifyReply, data: unknown, status = 200) {
  reply.code(status);
  return { data, meta: { requestId: request.id } };
}

/** A page of a list in the envelope, `meta.nextCursor` the next page's cursor. */
export function pageAnswer<T>(request: FastifyRequest, result: Result<Page<T>>) {
  const page = unwrap(result, 'query');
  return { data: page.items, meta: { requestId: request.id, nextCursor: page.nextCursor } };
}
