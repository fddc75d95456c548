import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { envelopeOf } from '../respond.js';

/** Outside /v1: no key, no quota. `/readyz` is what a load balancer should watch. */
export function healthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async (request, reply) => envelopeOf(request, reply, { status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const [store, limiter] = await Promise.all([
      services.store.ping().then(
        () => true,
        () => false,
      ),
      services.limiter.ping().then(
        () => true,
        () => false,
      ),
    ]);
    // A draining instance still answers, but a load balancer should stop sending.
    const draining = services.lifecycle.draining;
    const ready = store && limiter && !draining;
    reply.code(ready ? 200 : 503);
    if (!ready) reply.header('retry-after', 5);
    const status = draining ? 'draining' : ready ? 'ready' : 'not_ready';
    return envelopeOf(request, reply, { status, store, limiter });
  });
}
