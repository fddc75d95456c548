import type { FastifyInstance } from 'fastify';
import type { Services } from '../../runtime/services.js';
import { HealthResponses, ReadinessResponses } from '../../schemas/health.js';
import { envelopeOf } from '../respond.js';

// No key: the document's default security (a key) does not apply here.
const open = { tags: ['Health'], security: [] };

/** Outside /v1: no key, no quota. `/readyz` is what a load balancer should watch. */
export function healthRoutes(app: FastifyInstance, services: Services): void {
  app.get(
    '/healthz',
    {
      schema: {
        ...open,
        operationId: 'getHealth',
        summary: 'Liveness',
        description: 'Answers while the process runs, whatever the state of the store. Consumes nothing.',
        response: HealthResponses,
      },
    },
    async (request, reply) => envelopeOf(request, reply, { status: 'ok' }),
  );

  const readiness = {
    ...open,
    operationId: 'getReadiness',
    summary: 'Readiness',
    description:
      'Whether this instance should receive traffic: the store and the limiter answer, the store has space ' +
      'for its writes, and it is not draining. What a load balancer should watch. Consumes nothing.',
    response: ReadinessResponses,
  };
  app.get('/readyz', { schema: readiness }, async (request, reply) => {
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
    // A write refused for lack of space, and no probe through since (storage/space.ts).
    const full = services.store.space.full;
    const ready = store && limiter && !draining && full === null;
    reply.code(ready ? 200 : 503);
    if (!ready) reply.header('retry-after', 5);
    const status = draining ? 'draining' : ready ? 'ready' : 'not_ready';
    const reason =
      full === null ? {} : { reason: `${full.reason}: the store refuses writes until space is freed` };
    return envelopeOf(request, reply, { status, store, limiter, ...reason });
  });
}
