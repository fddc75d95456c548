/**
 * Static pages served beside the API on the same origin: the charts page
 * (public/charts.html and its script). A fixed list, read once at start; no
 * path from the URL ever reaches the file system.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../../paths.js';

const PAGES: Record<string, { file: string; type: string }> = {
  '/charts': { file: 'public/charts.html', type: 'text/html; charset=utf-8' },
  '/charts/charts.js': { file: 'public/charts.js', type: 'text/javascript; charset=utf-8' },
  '/charts/charts.css': { file: 'public/charts.css', type: 'text/css; charset=utf-8' },
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
      // The page holds no secret; the key stays in the browser's memory and sessionStorage.
      reply.header('cache-control', 'no-cache');
      reply.header(
        'content-security-policy',
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
      );
      return body;
    });
  }
}
