/** The routes outside /v1 (no key, no quota): health, data freshness, the documents and the pages. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { encode } from '../compression.js';
import { cleanDocument } from '../openapi.js';
import { JSON_TYPE } from '../respond.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { llmsRoutes } from './llms.js';
import { pagesRoutes } from './pages.js';
import { statusRoutes } from './status.js';

export function openRoutes(
  app: FastifyInstance,
  { services }: { services: Services },
  done: () => void,
): void {
  healthRoutes(app, services);
  statusRoutes(app, services);
  pagesRoutes(app);
  let document: string | undefined;
  app.get('/openapi.json', async (request, reply) => {
    document ??= JSON.stringify(cleanDocument(app.swagger()));
    reply.header('content-type', JSON_TYPE);
    return encode(request, reply, document);
  });
  docsRoutes(app);
  llmsRoutes(app);
  done();
}
