/**
 * The reporters' page, `/report/` (docs/decisions.md 120): static HTML, CSS
 * and browser modules from public/report/, served beside /report/v1 on the
 * listeners that serve it (the admin listener and the reporter listener),
 * never on the public one. A fixed list, read once at start; no path from the
 * URL reaches the file system. The page calls /report/v1 by relative URLs,
 * so it works behind a proxy that mounts /report elsewhere.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../../paths.js';

/**
 * The page holds the reporter's token in localStorage: nothing but its own
 * files may run or be loaded, it talks to its own origin only, and no other
 * site may frame it.
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const JS = 'text/javascript; charset=utf-8';
const FILES: Record<string, { file: string; type: string }> = {
  '/report/': { file: 'public/report/index.html', type: 'text/html; charset=utf-8' },
  '/report/page.js': { file: 'public/report/page.js', type: JS },
  '/report/strings.js': { file: 'public/report/strings.js', type: JS },
  '/report/queue.js': { file: 'public/report/queue.js', type: JS },
  '/report/view.js': { file: 'public/report/view.js', type: JS },
  // The charts page's language choice and t(), shared (docs/decisions.md 147); it imports nothing.
  '/report/format.js': { file: 'public/format.js', type: JS },
  '/report/page.css': { file: 'public/report/page.css', type: 'text/css; charset=utf-8' },
  '/report/favicon.svg': { file: 'public/favicon.svg', type: 'image/svg+xml' },
};

export function reportPage(app: FastifyInstance): void {
  for (const [url, { file, type }] of Object.entries(FILES)) {
    const body = readFileSync(join(PROJECT_ROOT, file));
    app.get(url, async (_request, reply) => {
      reply.header('content-type', type);
      // Revalidated on each load: a new release's page never runs an old module.
      reply.header('cache-control', 'no-cache');
      reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      return body;
    });
  }
  // Relative URLs resolve from /report/, not from /report.
  app.get('/report', async (_request, reply) => reply.redirect('/report/', 308));
}
