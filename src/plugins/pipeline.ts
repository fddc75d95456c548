/**
 * Puts the /v1 entrance (http/pipeline/entrance.ts) in front of Fastify's router,
 * with the pipeline (http/pipeline/decide.ts) and the operations (http/operations/).
 *
 * Each operation is also declared to Fastify as a GET route with its schema,
 * for the OpenAPI document only (@fastify/swagger reads the declared routes):
 * the entrance takes every /v1 request before the router, so the route's
 * handler never runs.
 */
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { decider } from '../http/pipeline/decide.js';
import { type Observe, V1Entrance } from '../http/pipeline/entrance.js';
import type { Operation } from '../http/pipeline/operation.js';
import type { Services } from '../runtime/services.js';
import { parseQuery, type transport } from './transport.js';

export interface PipelineOptions {
  services: Services;
  operations: Operation[];
  transport: ReturnType<typeof transport>;
  observer: (route: string) => Observe;
  /** The client's address, trusted proxies applied (http/client-address.ts). */
  addressOf: (req: IncomingMessage) => string;
}

const documentOnly = (): never => {
  throw new Error('a /v1 request is answered by the /v1 entrance, before the router');
};

export const pipelinePlugin = fp(
  (app: FastifyInstance, { services, operations, transport, observer, addressOf }: PipelineOptions, done) => {
    const logError = (err: unknown, requestId: string) =>
      app.log.error({ err, requestId }, 'unhandled error');
    const entrance = new V1Entrance({
      decide: decider(services, logError),
      addressOf,
      limiter: services.limiter,
      nextId: transport.nextId,
      parseQuery,
      maxUrlLength: transport.maxUrlLength,
      hsts: transport.hsts,
      draining: () => services.lifecycle.draining,
      logError,
      observer,
    });
    for (const op of operations) entrance.add(op);
    transport.front.entrance = entrance;

    app.register(
      (v1, _opts, registered) => {
        const typed = v1.withTypeProvider<TypeBoxTypeProvider>();
        for (const op of operations) {
          // Nothing compiled for a route that never runs: no validator, no serializers.
          typed.route({
            method: 'GET',
            url: op.url,
            schema: op.schema,
            validatorCompiler: () => op.validate,
            serializerCompiler: () => JSON.stringify,
            handler: documentOnly,
          });
        }
        registered();
      },
      { prefix: '/v1' },
    );
    done();
  },
  { name: 'v1', dependencies: ['errors'] },
);
