/**
 * Whether a request hook of someone else's is on the app: the raw entrance
 * (http/v1/entrance.ts) answers /v1 requests before Fastify's router and so
 * before any hook, which is right only while the hooks are the app's own,
 * whose work the one writer does (X-Request-Id, HSTS, the access line).
 *
 * It watches through Fastify's public API only: `addHook` of the app, which
 * every plugin context inherits, is wrapped once the app's own hooks are in
 * place (app.ts), and `onRoute` tells each /v1 route's own hooks
 * (plugins/v1.ts). A hook added after that, by a plugin or by the caller
 * before the app is ready, turns the raw entrance off, and every /v1 request
 * then goes through Fastify and meets it (test/http/app-hooks.test.ts).
 */
import type { FastifyInstance } from 'fastify';

/** The hooks that run per request; onRoute, onReady and the like do not. */
export const REQUEST_HOOKS: ReadonlySet<string> = new Set([
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
  'onError',
  'onTimeout',
  'onRequestAbort',
]);

export interface HookWatch {
  /** The request hooks added since the watch began, as `name function-name`. */
  readonly foreign: string[];
}

/** From now on, records every request hook added to `app` or to a context derived from it. */
export function watchRequestHooks(app: FastifyInstance): HookWatch {
  const foreign: string[] = [];
  const addHook = app.addHook;
  const watched = function (this: FastifyInstance, name: string, hook: unknown) {
    if (REQUEST_HOOKS.has(name)) foreign.push(`${name} ${(hook as { name?: string }).name || '(anonymous)'}`);
    return (addHook as (this: FastifyInstance, ...args: unknown[]) => FastifyInstance).call(this, name, hook);
  };
  app.addHook = watched as typeof app.addHook;
  return { foreign };
}

/** The request hooks a route was declared with, as `url name`. */
export function routeHooks(route: { url: string } & Record<string, unknown>): string[] {
  return [...REQUEST_HOOKS].filter((name) => route[name] !== undefined).map((name) => `${route.url} ${name}`);
}
