/**
 * The reporters' page, /report/ (docs/decisions.md 120), on the listeners
 * that serve /report/v1: the reporter listener and the admin listener, each
 * file with a Content-Security-Policy that lets only the page's own files run
 * and talk to its own origin; /report redirects to /report/ so the page's
 * relative URLs resolve; the public listener serves none of it. The page in a
 * browser: test/browser/report-phone.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../../src/admin-app.js';
import { buildReportApp } from '../../../src/report-app.js';
import { sqliteOnly } from '../../support/backends.js';
import { type Harness, startHarness } from '../../support/harness.js';

const FILES = [
  ['/report/', 'text/html'],
  ['/report/page.js', 'text/javascript'],
  ['/report/strings.js', 'text/javascript'],
  ['/report/queue.js', 'text/javascript'],
  ['/report/view.js', 'text/javascript'],
  ['/report/format.js', 'text/javascript'],
  ['/report/page.css', 'text/css'],
  ['/report/favicon.svg', 'image/svg+xml'],
] as const;

describe('the reporters’ page on the operator listeners', () => {
  let h: Harness;
  let report: FastifyInstance;
  let admin: FastifyInstance;
  beforeAll(async () => {
    h = await startHarness(sqliteOnly()[0]!, { seed: false });
    report = await buildReportApp(h.runtime.services, { logger: false });
    admin = await buildAdminApp(h.runtime.services, { logger: false });
  });
  afterAll(async () => {
    await report?.close();
    await admin?.close();
    await h?.close();
  });

  for (const listener of ['report', 'admin'] as const) {
    it(`serves every file of the page on the ${listener} listener, under a strict policy`, async () => {
      const app = listener === 'report' ? report : admin;
      for (const [url, type] of FILES) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type'], url).toContain(type);
        const csp = String(res.headers['content-security-policy']);
        expect(csp, url).toContain("default-src 'none'");
        expect(csp, url).toContain("script-src 'self'");
        expect(csp, url).toContain("connect-src 'self'");
        expect(csp, url).toContain("frame-ancestors 'none'");
        expect(csp, url).not.toContain('unsafe');
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
      const bare = await app.inject({ method: 'GET', url: '/report' });
      expect(bare.statusCode).toBe(308);
      expect(bare.headers.location).toBe('/report/');
    });
  }

  it('is never served on the public listener', async () => {
    for (const [url] of FILES) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
