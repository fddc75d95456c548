/**
 * How Fastify answers what its routes (every path outside /v1) do not: 404
 * and 405 from the router, framework errors (a malformed request Fastify
 * refuses), and failures while a reply is sent. The /v1 entrance answers
 * every /v1 request itself (http/pipeline/entrance.ts), in the same envelope.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, errorBody, unavailable } from '../http/errors.js';
import { QUOTA_HEADERS, WITH_QUOTA } from '../http/pipeline/quota.js';
import { JSON_TYPE } from '../http/respond.js';

/** The GET routes' paths, so that another method on one gets 405, not 404. */
export interface RouteTable {
  add(path: string): void;
  refusal(url: string): ApiError;
}

export function routeTable(): RouteTable {
  const getPaths = new Set<string>();
  return {
    add: (path) => void getPaths.add(path),
    refusal: (url) => {
      const q = url.indexOf('?');
      return getPaths.has(q === -1 ? url : url.slice(0, q))
        ? new ApiError(405, 'method_not_allowed', undefined, { allow: 'GET, HEAD' })
        : new ApiError(404, 'route_not_found');
    },
  };
}

export const errorsPlugin = fp(
  (app: FastifyInstance, { routes }: { routes: RouteTable }, done) => {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (methods.includes('GET')) routes.add(route.url);
    });

    const send = (reply: FastifyReply, api: ApiError, requestId: string) => {
      if (!WITH_QUOTA.has(api.status)) for (const h of QUOTA_HEADERS) reply.removeHeader(h);
      if (api.headers) reply.headers(api.headers);
      reply.code(api.status).header('content-type', JSON_TYPE).send(errorBody(api, requestId));
    };

    app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
      let api = unavailable(err);
      if (!api) {
        const status = (err as FastifyError).statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) {
          api = new ApiError(400, 'invalid_parameter', undefined, undefined, 'The request is malformed.');
        } else {
          request.log.error({ err }, 'unhandled error');
          api = new ApiError(500, 'internal_error');
        }
      }
      send(reply, api, request.id);
    });

    app.setNotFoundHandler((request, reply) => {
      const err = routes.refusal(request.url);
      if (err.headers) reply.headers(err.headers);
      reply.code(err.status).header('content-type', JSON_TYPE).send(errorBody(err, request.id));
    });
    done();
  },
  { name: 'errors' },
);
