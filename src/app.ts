/**
 * Builds the Fastify application from running services: plugins, then routes.
 * It knows HTTP only: the process (listening, signals, TLS files) is
 * server.ts's business, and the services are assembled in runtime/assemble.ts.
 *
 * Every /v1 request is answered by the /v1 entrance, in front of Fastify's
 * router (plugins/pipeline.ts): a hook added to this app applies to the other
 * routes only (health, documents, pages).
 */
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Contact } from './config.js';
import { clientAddress, type TrustProxy, trustFunction } from './http/client-address.js';
import { registerOpenApi } from './http/openapi.js';
import { operations } from './http/operations/index.js';
import type { Operation } from './http/pipeline/operation.js';
import { openRoutes } from './http/routes/index.js';
import { errorsPlugin, routeTable } from './plugins/errors.js';
import { observe, observers } from './plugins/observability.js';
import { pipelinePlugin } from './plugins/pipeline.js';
import { type TransportOptions, transport } from './plugins/transport.js';
import type { Services } from './runtime/services.js';

export interface AppOptions extends TransportOptions {
  logger?: Logger | false;
  /**
   * Which peers may tell the client's address in X-Forwarded-For (MDS_TRUST_PROXY,
   * Fastify's `trustProxy` forms; see http/client-address.ts). Nothing by default:
   * the header is ignored and the client is the connection's peer.
   */
  trustProxy?: TrustProxy;
  /** info.contact of the OpenAPI document (MDS_CONTACT_*); a name only when undefined. */
  contact?: Contact;
  /**
   * The /v1 operations (http/operations/index.ts unless given): a test adds one
   * here to show that a route module is all a new endpoint needs
   * (test/http/new-endpoint.test.ts).
   */
  operations?: (services: Services) => Operation[];
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  // One trust function for Fastify's request.ip (the throttle's address) and for the
  // access line, so both name the same client.
  const trust = trustFunction(options.trustProxy);
  const routes = routeTable();
  const wire = transport(services, options, routes);
  const app = Fastify({
    ...(wire.fastifyOptions as object),
    loggerInstance: options.logger || undefined,
    logger: options.logger === false ? false : undefined,
    trustProxy: trust ?? false,
    // One access line per response (plugins/observability.ts) instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
  const observer = observers(services.metrics, options.logger || undefined, clientAddress(trust));

  wire.install(app);
  observe(app, observer);
  app.register(errorsPlugin, { routes });
  await registerOpenApi(app, options.contact);
  app.register(openRoutes, { services });
  app.register(pipelinePlugin, {
    services,
    operations: (options.operations ?? operations)(services),
    transport: wire,
    observer,
    addressOf: clientAddress(trust),
  });
  return app;
}
