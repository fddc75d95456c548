/**
 * Mounts the admin routes under /admin/v1 (docs/decisions.md 58), each behind
 * the same steps: authenticate the admin token (401, 429), check the route's
 * scope (403), validate (400), then for a POST or PATCH claim its
 * Idempotency-Key or answer for it (a replay, 409), then the operation; the
 * answer of a claimed key is stored as it is sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AdminAuthenticator,
  type AdminIdentity,
  presentedToken,
  requireScope,
} from '../http/admin/auth.js';
import { type IdempotencyRecords, idempotencyGate, idempotencyRecorder } from '../http/admin/idempotency.js';
import type { ReceivedFile } from '../http/admin/received-file.js';
import type { AdminRoute } from '../http/admin/route.js';
import type { Services } from '../runtime/services.js';
import { IdempotencyKeyHeader } from '../schemas/admin.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified admin token of an /admin/v1 request. */
    adminToken?: AdminIdentity;
  }
}

export interface AdminRoutesOptions {
  services: Services;
  routes: AdminRoute[];
  authenticator: AdminAuthenticator;
  idempotency: IdempotencyRecords;
  /** MDS_PLANS_FILE: the plan catalogue of new grants. */
  plansFile?: string;
}

/** Fastify's `/:name` from OpenAPI's `/{name}`, so route files may write either. */
const fastifyPath = (url: string) => url.replace(/\{([^}]+)\}/g, ':$1');

export function adminRoutes(app: FastifyInstance, options: AdminRoutesOptions, done: () => void): void {
  const { services, routes, authenticator, idempotency } = options;
  const gate = idempotencyGate(idempotency, services.now);
  const record = idempotencyRecorder(idempotency);

  const mount = (context: FastifyInstance, route: AdminRoute) => {
    const writes = route.method !== 'GET';
    const authenticate = async (request: FastifyRequest) => {
      const verdict = await authenticator.authenticate(
        request.headers.authorization,
        request.ip,
        services.now(),
      );
      if (!('publicId' in verdict)) throw verdict;
      const refused = requireScope(verdict, route.scope);
      if (refused) throw refused;
      request.adminToken = verdict;
    };
    context.route({
      method: route.method,
      url: fastifyPath(route.url),
      bodyLimit: route.bodyLimit,
      schema: {
        ...route.schema,
        ...(writes ? { headers: IdempotencyKeyHeader } : {}),
        // The scope as an extension: Spectral allows scopes in a security requirement for OAuth2 only.
        'x-scope': route.scope,
        description: `${route.schema.description}\n\nRequires the scope \`${route.scope}\`.`,
      } as never,
      onRequest: authenticate,
      preHandler: writes
        ? async (request: FastifyRequest, reply: FastifyReply) => {
            const credential = presentedToken(request.headers.authorization)!;
            if (await gate(request, reply, request.adminToken!.publicId, credential)) return reply;
          }
        : undefined,
      onSend: writes ? record : undefined,
      handler: (request, reply) => {
        const token = request.adminToken!;
        return route.handler(request, reply, {
          services,
          token,
          plansFile: options.plansFile,
          actor: { id: token.publicId, label: token.label, requestId: request.id, scopes: token.scopes },
        });
      },
    });
  };

  for (const route of routes) {
    const stream = route.streamBody;
    if (!stream) {
      mount(app, route);
      continue;
    }
    // Its own context: these media types reach the handler as a received body, in no other route.
    app.register((context, _opts, registered) => {
      context.removeAllContentTypeParsers();
      context.addContentTypeParser([...stream.types], (request, payload, parsed) => {
        stream.receive(request, payload, services).then(
          (body) => parsed(null, body),
          (err: Error) => parsed(err, undefined),
        );
      });
      // Released after the answer unless the handler holds it (a refusal before it, a replay).
      const abandon = async (request: FastifyRequest) => {
        (request.body as ReceivedFile | undefined)?.abandon?.();
      };
      context.addHook('onResponse', abandon);
      context.addHook('onRequestAbort', abandon);
      mount(context, route);
      registered();
    });
  }
  done();
}
