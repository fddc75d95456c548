/**
 * The interactive reference at /docs/, rendered in the browser by Scalar from
 * the served /openapi.json, entirely offline. Loading Scalar's Fastify plugin
 * reads its 3.6 MB browser bundle from its package and loads the OpenAPI
 * parser it depends on: about 39 MB of memory and a quarter of a second, for a
 * page most instances never serve. So the plugin is loaded on the first /docs
 * request, in a private Fastify instance, and its two answers are kept.
 *
 * The plugin is pinned to 1.46.4, the last release whose whole dependency tree
 * declares Node 20 support (1.47 and later ask for Node 22): see
 * docs/decisions.md and test/install/clean-install.test.ts.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { compress, type Encoding, negotiate } from '../compression.js';

interface Page {
  type: string;
  body: Buffer;
  packed: Map<Encoding, Buffer>;
}

/**
 * Scalar's options (the types of @scalar/types, as of 1.46.4). What needs a
 * hosted service is switched off: it cannot work offline, and it would send
 * the document (or questions about it) to a third party. 1.46.4 has no
 * "Generate MCP" yet; test/browser/pages.test.ts fails if an upgrade shows it.
 */
const SCALAR_CONFIGURATION = {
  url: '/openapi.json',
  pageTitle: 'Market Data Service (DZD) – API reference',
  title: 'Market Data Service (DZD) – API reference',
  // Fonts would come from Scalar's font host; the page uses the system's.
  withDefaultFonts: false,
  // "Ask AI" (Scalar's hosted agent): on by default on localhost, and it
  // fetches Scalar's registry from their proxy as soon as the page loads.
  agent: { disabled: true },
  // The toolbar's "Developer Tools", "Configure", "Share" (a temporary link
  // hosted by Scalar) and "Deploy" (Scalar's registry).
  showDeveloperTools: 'never',
  telemetry: false,
  // "Powered by Scalar" is a link to scalar.com; no option hides it.
  customCss: 'a[href^="https://www.scalar.com"], a[href^="https://scalar.com"] { display: none !important; }',
  // "Open API Client" opens Scalar's hosted client (client.scalar.com). The
  // in-page client ("Test Request") stays: it sends requests to this origin.
  hideClientButton: true,
  // The names generated clients (ours included) give the methods.
  showOperationId: true,
} as const;

let pages: Promise<Map<string, Page>> | undefined;

async function render(): Promise<Map<string, Page>> {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  const inner = Fastify({ logger: false });
  await inner.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'silent',
    configuration: SCALAR_CONFIGURATION,
  });
  const out = new Map<string, Page>();
  for (const url of ['/docs/', '/docs/js/scalar.js']) {
    const res = await inner.inject(url);
    if (res.statusCode !== 200) throw new Error(`docs renderer answered ${res.statusCode} for ${url}`);
    out.set(url, { type: String(res.headers['content-type']), body: res.rawPayload, packed: new Map() });
  }
  await inner.close();
  return out;
}

export function docsRoutes(app: FastifyInstance): void {
  app.get('/docs', async (_request, reply) => reply.redirect('/docs/', 301));
  for (const url of ['/docs/', '/docs/js/scalar.js']) {
    app.get(url, async (request, reply) => {
      pages ??= render().catch((err: unknown) => {
        pages = undefined;
        throw err;
      });
      const page = (await pages).get(url)!;
      reply.header('content-type', page.type);
      reply.header('cache-control', 'public, max-age=3600');
      reply.header('vary', 'accept-encoding');
      // The 4 MB bundle is compressed once per encoding, not per request.
      const encoding = negotiate(request.headers['accept-encoding']);
      if (!encoding) return page.body;
      reply.header('content-encoding', encoding);
      let packed = page.packed.get(encoding);
      if (!packed) {
        packed = compress(page.body, encoding);
        page.packed.set(encoding, packed);
      }
      return packed;
    });
  }
}
