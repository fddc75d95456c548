/**
 * The interactive reference at /docs/, rendered in the browser by Scalar from
 * the served /openapi.json, entirely offline. The page is written here; the
 * browser bundle (3.5 MB) is the one @scalar/fastify-api-reference serves, read
 * from its package (http/docs-bundle.ts) on the first /docs request and kept.
 * The plugin itself is not loaded: registering it loads the OpenAPI parser it
 * depends on, about 39 MB and a quarter of a second, for a page it would only
 * template.
 *
 * The package is pinned to 1.46.4, the last release whose whole dependency tree
 * declares Node 20 support (1.47 and later ask for Node 22): see
 * docs/decisions.md and test/install/clean-install.test.ts.
 *
 * The page was blank for seconds while the bundle downloaded, compiled and
 * rendered. Now (test/http/docs-assets.test.ts, test/browser/pages.test.ts):
 * - it opens with an overview of the document (every operation, its method,
 *   path and summary), written into the HTML and painted before the bundle
 *   runs: the bundle is started after the first frame, and Scalar's
 *   `onLoaded` removes the overview once the reference has the document;
 * - the bundle and /openapi.json are fetched from the start (`preload`);
 * - the bundle's URL carries its hash (`/docs/js/scalar.<hash>.js`) and may be
 *   kept a year (`immutable`); it is sent as the build compressed it at the
 *   highest settings when it can (scripts/docs-assets.ts), else compressed
 *   once here; the page itself is revalidated (`no-cache`, a weak ETag), so a
 *   new bundle is seen at once.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESS_THRESHOLD, compress, type Encoding, negotiate } from '../compression.js';
import { BUNDLE_SOURCE, bundleName, precompressedPath } from '../docs-bundle.js';
import { cleanDocument } from '../openapi.js';

interface Asset {
  type: string;
  body: Buffer;
  /** Its compressed copies, read from the build's files or made once. */
  packed: Map<Encoding, Buffer>;
}

interface Docs {
  page: Asset & { etag: string };
  script: Asset & { name: string };
}

/** The bundle's name never stands for other bytes: browsers keep it a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the bundle: asked again on every visit (a 304 when unchanged). */
const REVALIDATE = 'no-cache';
/** The unversioned bundle, for a page cached before it was versioned: as it was. */
const UNVERSIONED = 'public, max-age=3600';

const PAGE_TITLE = 'Market Data Service (DZD) – API reference';

/**
 * Scalar's options (the types of @scalar/types, as of 1.46.4). What needs a
 * hosted service is switched off: it cannot work offline, and it would send
 * the document (or questions about it) to a third party. 1.46.4 has no
 * "Generate MCP" yet; test/browser/pages.test.ts fails if an upgrade shows it.
 */
const SCALAR_CONFIGURATION = {
  url: '/openapi.json',
  title: PAGE_TITLE,
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

interface DocumentOutline {
  info: { title: string; description?: string };
  paths: Record<string, Record<string, { summary?: string; deprecated?: boolean }>>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON inside a <script>: nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The overview shown until Scalar has the document: every operation, from the HTML alone. */
export function overview(doc: DocumentOutline): string {
  const [summary = ''] = (doc.info.description ?? '').split(/\n{2,}/);
  const items = Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => {
      const deprecated = op.deprecated ? ' (deprecated)' : '';
      return `<li><code>${method.toUpperCase()} ${escapeHtml(path)}</code> ${escapeHtml(op.summary ?? '')}${deprecated}</li>`;
    }),
  );
  return [
    '<main id="mds-overview">',
    `<h1>${escapeHtml(doc.info.title)}</h1>`,
    `<p>${escapeHtml(summary.replace(/\s*\n\s*/g, ' '))}</p>`,
    '<p>The interactive reference is loading. The operations, described in full in',
    '<a href="/openapi.json">/openapi.json</a> (for language models: <a href="/llms.txt">/llms.txt</a>;',
    'how the street rates are computed: <a href="/methodology.md">the methodology</a>):</p>',
    `<ul>${items.join('')}</ul>`,
    '</main>',
  ].join('\n');
}

/** The page: the overview, then the reference once the bundle has run. */
export function docsPage(doc: DocumentOutline, scriptUrl: string): string {
  const { customCss } = SCALAR_CONFIGURATION;
  // Scalar's page template (@scalar/core's getHtmlDocument) passes the same options, and `_integration`.
  const configuration = scriptJson({ _integration: 'fastify', ...SCALAR_CONFIGURATION });
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(PAGE_TITLE)}</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <link rel="preload" href="${scriptUrl}" as="script" />
    <link rel="preload" href="/openapi.json" as="fetch" crossorigin="anonymous" />
    <style>
      ${customCss}
      #mds-overview { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem; }
      #mds-overview li { margin: 0.2rem 0; }
    </style>
  </head>
  <body>
    ${overview(doc)}
    <div id="app"></div>
    <script>
      // The bundle takes a second or more to compile: it runs after the overview is painted.
      requestAnimationFrame(() => setTimeout(() => {
        const script = document.createElement('script');
        script.src = ${scriptJson(scriptUrl)};
        script.onload = () => Scalar.createApiReference('#app', Object.assign(${configuration}, {
          // Once the reference has the document, the overview gives way.
          onLoaded: () => document.getElementById('mds-overview')?.remove(),
        }));
        document.body.append(script);
      }));
    </script>
  </body>
</html>
`;
}

function render(doc: DocumentOutline): Docs {
  const script = readFileSync(BUNDLE_SOURCE);
  const name = bundleName(script);
  const page = Buffer.from(docsPage(doc, `/docs/js/${name}`));
  return {
    page: {
      type: 'text/html; charset=utf-8',
      body: page,
      packed: new Map(),
      etag: `W/"${bundleName(page).slice(7, 23)}"`,
    },
    script: { type: 'text/javascript; charset=utf-8', body: script, packed: new Map(), name },
  };
}

/**
 * The bundle compressed with `encoding`: the build's copy when it holds these
 * very bytes, else compressed now (brotli at quality 4, compression.ts).
 */
function precompressed(script: Docs['script'], encoding: Encoding): Buffer {
  try {
    const file = readFileSync(precompressedPath(script.name, encoding));
    // A damaged file would break /docs/ for everyone: checked once, in about 15 ms.
    const unpacked = encoding === 'br' ? brotliDecompressSync(file) : gunzipSync(file);
    if (unpacked.equals(script.body)) return file;
  } catch {
    // Not built (tests run from src/), or unreadable: compress here.
  }
  return compress(script.body, encoding);
}

/** The asset as this client accepts it, made once per encoding. */
function send(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: Asset,
  pack: (encoding: Encoding) => Buffer,
): Buffer {
  reply.header('content-type', asset.type);
  reply.header('vary', 'accept-encoding');
  const encoding =
    asset.body.length < COMPRESS_THRESHOLD ? null : negotiate(request.headers['accept-encoding']);
  if (!encoding) return asset.body;
  reply.header('content-encoding', encoding);
  let packed = asset.packed.get(encoding);
  if (!packed) {
    packed = pack(encoding);
    asset.packed.set(encoding, packed);
  }
  return packed;
}

const BUNDLE = /^scalar(\.[0-9a-f]{16})?\.js$/;

export function docsRoutes(app: FastifyInstance): void {
  // Made on the first request, when every route is registered; they do not change afterwards.
  let docs: Promise<Docs> | undefined;
  const rendered = () => {
    docs ??= Promise.resolve()
      .then(() => render(cleanDocument(app.swagger()) as unknown as DocumentOutline))
      .catch((err: unknown) => {
        docs = undefined;
        throw err;
      });
    return docs;
  };
  app.get('/docs', async (_request, reply) => reply.redirect('/docs/', 301));
  app.get('/docs/', async (request, reply) => {
    const { page } = await rendered();
    reply.header('cache-control', REVALIDATE);
    reply.header('etag', page.etag);
    if (request.headers['if-none-match']?.split(',').some((t) => t.trim() === page.etag)) {
      reply.header('vary', 'accept-encoding');
      return reply.code(304).send();
    }
    return send(request, reply, page, (encoding) => compress(page.body, encoding));
  });
  app.get<{ Params: { file: string } }>('/docs/js/:file', async (request, reply) => {
    const { file } = request.params;
    const script = BUNDLE.test(file) ? (await rendered()).script : undefined;
    // `scalar.js`: the unversioned name, for a page cached before the bundle was versioned.
    if (script === undefined || (file !== script.name && file !== 'scalar.js')) {
      reply.callNotFound();
      return reply;
    }
    reply.header('cache-control', file === script.name ? IMMUTABLE : UNVERSIONED);
    return send(request, reply, script, (encoding) => precompressed(script, encoding));
  });
}
