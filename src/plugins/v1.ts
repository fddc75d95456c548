/**
 * Mounts the /v1 operations (http/routes/v1/): each is a GET route whose
 * validator is compiled from its schema and whose handler asks the pipeline
 * (http/v1/decide.ts) for the answer and has the one writer write it on the
 * hijacked reply. The same operations are handed to the raw entrance, which
 * takes the same requests before the router while no request hook of anyone
 * else's is on the app (plugins/hook-watch.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessContext } from '../access/authenticator.js';
import type { Answer } from '../http/v1/answer.js';
import { decider } from '../http/v1/decide.js';
import { type Observe, RawEntrance } from '../http/v1/entrance.js';
import type { Operation } from '../http/v1/operation.js';
import { WRITER_HEADERS, type Writing, writeAnswer } from '../http/v1/write.js';
import type { Services } from '../runtime/services.js';
import { type HookWatch, routeHooks } from './hook-watch.js';
import { parseQuery, type transport } from './transport.js';

export interface V1Options {
  services: Services;
  operations: Operation[];
  transport: ReturnType<typeof transport>;
  observer: (route: string) => Observe;
  /** The client's address, trusted proxies applied (http/client-address.ts). */
  addressOf: (req: IncomingMessage) => string;
  hooks: HookWatch;
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
  (
    app: FastifyInstance,
    { services, operations, transport, observer, addressOf, hooks }: V1Options,
    done,
  ) => {
    app.decorateRequest('access', null);
    const logError = (err: unknown, requestId: string) =>
      app.log.error({ err, requestId }, 'unhandled error');
    const decide = decider(services, logError);
    const raw = new RawEntrance({
      decide,
      addressOf,
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
        // A /v1 route declared with hooks of its own (by anyone's onRoute) is met
        // through Fastify too. Fastify gives each HEAD route its own onSend.
        v1.addHook('onRoute', (route) => {
          if (route.method !== 'HEAD') unknownRouteHooks.push(...routeHooks(route as never));
        });
        const typed = v1.withTypeProvider<TypeBoxTypeProvider>();
        for (const op of operations) {
          const observe = observer(`/v1${op.url}`);
          typed.route({
            method: 'GET',
            url: op.url,
            schema: op.schema,
            // The operation's validator, compiled from its schema (http/v1/query.ts);
            // a refusal is reported by the pipeline at its step (401 before 400).
            validatorCompiler: () => op.validate,
            attachValidation: true,
            // Observed here, as the raw entrance observes: the reply is hijacked.
            config: { observed: true },
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
              const written = (answer: Answer) =>
                observe(
                  answer.status,
                  reply.elapsedTime,
                  request.id,
                  request.method,
                  request.url,
                  answer.access,
                  request.raw,
                );
              decide(op, input, {
                decided: (answer) => {
                  request.access = answer.access;
                  written(writeAnswer(reply.raw, answer, writing));
                },
              });
            },
          });
          raw.add(`/v1${op.url}`, op, observe);
        }
        v1.addHook('onReady', (ready) => {
          const foreign = [...hooks.foreign, ...unknownRouteHooks];
          raw.enabled = foreign.length === 0;
          if (!raw.enabled) {
            app.log.info(
              { hooks: foreign },
              'request hooks on the app: every /v1 request goes through Fastify',
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
  { name: 'v1', dependencies: ['errors'] },
);
