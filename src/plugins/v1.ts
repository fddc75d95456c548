/**
 * Mounts the /v1 operations (http/routes/v1/): each is a GET route whose
 * validator is compiled from its schema and whose handler asks the pipeline
 * (http/v1/decide.ts) for the answer and writes it on Fastify's reply; the
 * operations that can have a prepared answer are also handed to the raw entrance.
 *
 * The raw entrance stays on only while the request hooks on /v1 routes are the
 * known set (plugins/known-hooks.ts), checked when the app is ready: an
 * app-level hook added by anyone else (CORS, tracing, a header) turns it off,
 * and every request then goes through Fastify and meets that hook.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessContext } from '../access/authenticator.js';
import { decider } from '../http/v1/decide.js';
import { type Observe, RawEntrance } from '../http/v1/entrance.js';
import type { Operation } from '../http/v1/operation.js';
import { failure, WRITER_HEADERS, type Writing, writeAnswer } from '../http/v1/write.js';
import type { Services } from '../runtime/services.js';
import { isKnown } from './known-hooks.js';
import { parseQuery, type transport } from './transport.js';

/** Hooks that run per request; onRoute, onReady and the like do not. */
const REQUEST_HOOKS = [
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
] as const;

export interface V1Options {
  services: Services;
  operations: Operation[];
  transport: ReturnType<typeof transport>;
  observer: (route: string) => Observe;
}

/**
 * The request hooks an instance runs on its routes, or undefined if Fastify
 * keeps them where we cannot see (its `fastify.hooks` symbol, v5): the raw
 * writer is then off, never on blind.
 */
function requestHooks(instance: FastifyInstance): Record<string, unknown[]> | undefined {
  for (let o: object | null = instance; o !== null; o = Object.getPrototypeOf(o)) {
    const symbol = Object.getOwnPropertySymbols(o).find((s) => s.description === 'fastify.hooks');
    if (symbol) return (instance as unknown as Record<symbol, Record<string, unknown[]>>)[symbol];
  }
  return undefined;
}

/** The hooks the raw entrance cannot stand in for, by name; empty when it may run. */
export function unknownHooks(instance: FastifyInstance): string[] {
  const hooks = requestHooks(instance);
  if (hooks === undefined) return ['(hooks not readable)'];
  return REQUEST_HOOKS.flatMap((name) =>
    (hooks[name] ?? [])
      .filter((hook) => !isKnown(hook))
      .map((hook) => `${name} ${(hook as { name?: string }).name || '(anonymous)'}`),
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The key and grant of a /v1 request, once known (the access line names them). */
    access: AccessContext | null;
  }
}

/** Headers a hook set on the reply before the handler, other than those the writer sets itself. */
function hookedHeaders(reply: FastifyReply): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || WRITER_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) out.push(name, v);
    else out.push(name, String(value));
  }
  return out;
}

export const v1Plugin = fp(
  (app: FastifyInstance, { services, operations, transport, observer }: V1Options, done) => {
    app.decorateRequest('access', null);
    const logError = (err: unknown, requestId: string) =>
      app.log.error({ err, requestId }, 'unhandled error');
    const decide = decider(services, logError);
    const raw = new RawEntrance({
      decide,
      limiter: services.limiter,
      nextId: transport.nextId,
      parseQuery,
      maxUrlLength: transport.maxUrlLength,
      hsts: transport.hsts,
      draining: () => services.lifecycle.draining,
      logError,
    });
    const unknownRouteHooks: string[] = [];

    app.register(
      (v1, _opts, registered) => {
        // Route-level hooks of ours are known too (the observer); any other is not.
        v1.addHook('onRoute', (route) => {
          // The raw entrance answers GET only; Fastify gives each HEAD route its own onSend.
          if (route.method === 'HEAD') return;
          for (const name of REQUEST_HOOKS) {
            const own = route[name];
            for (const hook of own === undefined ? [] : Array.isArray(own) ? own : [own]) {
              if (!isKnown(hook)) unknownRouteHooks.push(`${route.url} ${name}`);
            }
          }
        });
        const typed = v1.withTypeProvider<TypeBoxTypeProvider>();
        for (const op of operations) {
          typed.route({
            method: 'GET',
            url: op.url,
            schema: op.schema,
            // The operation's validator, compiled from its schema (http/v1/query.ts);
            // a refusal is reported by the pipeline at its step (401 before 400).
            validatorCompiler: () => op.validate,
            attachValidation: true,
            handler: (request, reply) => {
              const query = request.validationError
                ? { error: request.validationError as never }
                : { value: request.query };
              const input = {
                headers: request.headers,
                rawHeaders: request.raw.rawHeaders,
                query,
                url: request.url,
                requestId: request.id,
                ip: () => request.ip,
              };
              // The answer is written by the one writer (http/v1/write.ts), not by Fastify's reply.
              reply.hijack();
              const writing: Writing = {
                requestId: request.id,
                hsts: transport.hsts,
                draining: services.lifecycle.draining,
                head: request.method === 'HEAD',
                acceptEncoding: request.headers['accept-encoding'],
                hooked: hookedHeaders(reply),
                limiter: services.limiter,
                logError,
              };
              decide(op, input)!.then(
                (answer) => {
                  // The access line names the key (plugins/observability.ts).
                  request.access = answer.access;
                  writeAnswer(reply.raw, answer, writing);
                },
                (err: unknown) => {
                  logError(err, request.id);
                  failure(reply.raw, writing);
                },
              );
            },
          });
          raw.add(`/v1${op.url}`, op, observer(`/v1${op.url}`));
        }
        v1.addHook('onReady', (ready) => {
          const unknown = [...unknownHooks(v1), ...unknownRouteHooks];
          raw.enabled = unknown.length === 0;
          if (!raw.enabled) {
            app.log.info(
              { hooks: unknown },
              'hooks the raw entrance cannot stand in for: every /v1 request goes through Fastify',
            );
          }
          transport.front.writer = raw;
          ready();
        });
        registered();
      },
      { prefix: '/v1' },
    );
    done();
  },
  { name: 'v1', dependencies: ['transport', 'observability', 'errors'] },
);
