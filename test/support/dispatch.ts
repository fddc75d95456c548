/**
 * Routes `app.inject` through the request listener of the app's own HTTP
 * server, so that in-process tests take the same path as a real connection:
 * the /v1 entrance (src/http/pipeline/entrance.ts) first, then Fastify's router. Fastify's
 * own inject calls the router directly and would never reach the /v1 entrance.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { inject } from 'light-my-request';

export function injectThroughServer(app: FastifyInstance): void {
  const [listener] = app.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  if (!listener) throw new Error('the app has no request listener');
  (app as { inject: unknown }).inject = (opts: Parameters<typeof inject>[1]) => inject(listener, opts);
}
