/**
 * The framework's limit: a bare Fastify route per benchmarked path that
 * serializes the service's body (as a parsed object) on every request through
 * the route's response schema (fast-json-stringify), with default settings.
 */
import Fastify from 'fastify';
import { holdTickShape } from '../src/runtime/heap.js';
import { readConfig } from './reference-config.js';

const config = readConfig(process.argv[2]);
// Holds a tick object as `mds serve` does (src/runtime/heap.ts), so this reference and the service differ only in how they answer.
holdTickShape();
const app = Fastify({ logger: false });

const byPath = new Map<
  string,
  { schema: object; bodies: Map<string, { contentType: string; value: unknown }> }
>();
for (const r of config.routes) {
  const pathname = new URL(r.url, 'http://x').pathname;
  const entry = byPath.get(pathname) ?? { schema: r.schema, bodies: new Map() };
  entry.bodies.set(r.url, {
    contentType: r.contentType,
    value: JSON.parse(Buffer.from(r.body, 'base64').toString('utf8')),
  });
  byPath.set(pathname, entry);
}

for (const [pathname, { schema, bodies }] of byPath) {
  app.get(pathname, { schema: { response: { 200: schema } } }, async (request, reply) => {
    const answer = bodies.get(request.url);
    if (answer === undefined) return reply.callNotFound();
    reply.type(answer.contentType);
    return answer.value;
  });
}

await app.listen({ host: config.host, port: config.port });
