/**
 * How the admin listener answers what its routes refuse, in the envelope of
 * /v1 (http/errors.ts): ApiErrors as they are, a store that fails as 503,
 * Fastify's own refusals (a body too large, an unsupported Content-Type,
 * malformed JSON) with our codes, an unknown path 404 and a known path with
 * another method 405 with Allow.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { StoreFullError } from '../../storage/errors.js';
import type { OperationError } from '../../use-cases/contract.js';
import { ApiError, errorBody, invalidParameters, unavailable } from '../errors.js';
import { JSON_TYPE } from '../respond.js';

/**
 * An operation's refusal as an answer: invalid → 400, forbidden → 403
 * (`insufficient_admin_scope`, naming the scope), not_found → 404, conflict → 409. A field of a query is a parameter, as on /v1
 * (`invalid_parameter`, or `invalid_cursor` for the cursor alone).
 */
export function operationError(error: OperationError, part: 'body' | 'query' = 'body'): ApiError {
  switch (error.kind) {
    case 'invalid': {
      const details = [{ parameter: error.field, message: error.message }];
      if (part === 'body') return new ApiError(400, 'invalid_request', details);
      return invalidParameters(details);
    }
    case 'not_found':
      return new ApiError(404, 'not_found', undefined, undefined, error.message);
    case 'conflict':
      return new ApiError(409, 'conflict', undefined, undefined, error.message);
    case 'forbidden':
      return new ApiError(
        403,
        'insufficient_admin_scope',
        [{ parameter: 'scopes', message: `${error.scope} is not a scope of this admin token` }],
        undefined,
        error.message,
      );
  }
}

function send(reply: FastifyReply, api: ApiError, requestId: string): void {
  if (api.headers) reply.headers(api.headers);
  reply.code(api.status).header('content-type', JSON_TYPE).send(errorBody(api, requestId));
}

/** What Fastify refuses before a handler runs, by its status. */
function frameworkError(err: FastifyError): ApiError | null {
  const status = err.statusCode;
  if (status === 413) return new ApiError(413, 'payload_too_large');
  if (status === 415) return new ApiError(415, 'unsupported_media_type');
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new ApiError(400, 'invalid_request', [{ parameter: 'body', message: 'is not valid JSON' }]);
  return null;
}

/** The paths of the admin routes with their methods, for 405 and its Allow header. */
export function adminErrors(app: FastifyInstance): void {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}$`);
    let entry = routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) {
      entry = { pattern, methods: new Set() };
      routes.push(entry);
    }
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m);
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    if (err instanceof StoreFullError) {
      // The cause by its code in the answer; the driver's own words in the log.
      request.log.warn({ err }, `${err.reason}: an admin write was refused`);
      const message = `${err.reason}: the store refused the write and nothing was changed. Free space on its disk, then retry; no restart is needed.`;
      send(reply, new ApiError(507, 'insufficient_storage', undefined, undefined, message), request.id);
      return;
    }
    let api = unavailable(err) ?? frameworkError(err as FastifyError);
    if (!api) {
      request.log.error({ err }, 'unhandled error');
      api = new ApiError(500, 'internal_error');
    }
    send(reply, api, request.id);
  });

  app.setNotFoundHandler((request, reply) => {
    const q = request.url.indexOf('?');
    const path = q === -1 ? request.url : request.url.slice(0, q);
    const known = routes.find((r) => r.pattern.test(path));
    const api = known
      ? new ApiError(
          405,
          'method_not_allowed',
          undefined,
          { allow: [...known.methods].join(', ') },
          'This method is not supported on this path.',
        )
      : new ApiError(404, 'route_not_found');
    send(reply, api, request.id);
  });
}
