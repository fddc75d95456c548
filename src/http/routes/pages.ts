/**
 * Static pages served beside the API on the same origin: the charts page
 * (public/charts.html and its script), the favicon and the street rates'
 * methodology (docs/methodology.md). A fixed list, read once
 * at start; no path from the URL ever reaches the file system.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../../paths.js';

/** The page holds no secret; the key stays in the browser's memory and sessionStorage. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";
/** An SVG opened as a document runs nothing. */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";
/** The favicon's URL names no version: browsers keep it a day, then ask again. */
const ICON = {
  file: 'public/favicon.svg',
  type: 'image/svg+xml',
  cache: 'public, max-age=86400',
  csp: IMAGE_CSP,
};

const CHARTS_MODULES = [
  'charts',
  'state',
  'i18n',
  'format',
  'api',
  'account',
  'latest',
  'converter',
  'panels',
  'svg',
  'quality',
];

const PAGES: Record<string, { file: string; type: string; cache?: string; csp?: string }> = {
  '/charts': { file: 'public/charts.html', type: 'text/html; charset=utf-8' },
  // The page's modules: charts.js imports the others; i18n.js holds its strings in en, fr and ar.
  ...Object.fromEntries(
    CHARTS_MODULES.map((name) => [
      `/charts/${name}.js`,
      { file: `public/${name}.js`, type: 'text/javascript; charset=utf-8' },
    ]),
  ),
  '/charts/charts.css': { file: 'public/charts.css', type: 'text/css; charset=utf-8' },
  // How the street rates are computed, for anyone who wants to check them (linked from /docs/ and /llms.txt).
  '/methodology.md': { file: 'docs/methodology.md', type: 'text/markdown; charset=utf-8' },
  // Browsers ask for /favicon.ico unless a page names its icon; ours name /favicon.svg. Both answer the SVG.
  '/favicon.ico': ICON,
  '/favicon.svg': ICON,
};

export function pagesRoutes(app: FastifyInstance): void {
  for (const [url, page] of Object.entries(PAGES)) {
    let body: Buffer;
    try {
      body = readFileSync(join(PROJECT_ROOT, page.file));
    } catch {
      continue;
    }
    app.get(url, async (_request, reply) => {
      reply.header('content-type', page.type);
      reply.header('cache-control', page.cache ?? 'no-cache');
      reply.header('content-security-policy', page.csp ?? PAGE_CSP);
      return body;
    });
  }
}
