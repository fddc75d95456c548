/**
 * What the reference at /docs/ sends, so that it shows something quickly
 * (src/http/routes/docs.ts):
 * - the page opens with an overview naming every operation of the served
 *   document, asks for /openapi.json early and names the favicon; it is
 *   revalidated on every visit (`no-cache`, a weak ETag, 304);
 * - the 3.5 MB bundle is named by its hash and cached a year (`immutable`),
 *   sent as brotli or gzip when asked, with `Vary: accept-encoding`; the
 *   build's copies (scripts/docs-assets.ts) when they exist;
 * - `/favicon.ico` and `/favicon.svg` answer the SVG icon.
 * The browser test (test/browser/pages.test.ts) renders the page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressedPath } from '../../src/http/docs-bundle.js';
import { type Harness, startHarness } from '../support/harness.js';

const YEAR = 31_536_000;

describe('the /docs/ assets', () => {
  let h: Harness;
  let html: string;
  let scriptUrl: string;
  let identity: Buffer;

  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite' }, { seed: false });
    const page = await h.app.inject('/docs/');
    expect(page.statusCode).toBe(200);
    html = page.body;
    scriptUrl = /script\.src = "(\/docs\/js\/scalar\.[0-9a-f]{16}\.js)";/.exec(html)?.[1] ?? '';
    expect(scriptUrl, html.slice(0, 2000)).not.toBe('');
    const plain = await h.app.inject(scriptUrl);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    identity = plain.rawPayload;
  }, 30_000);
  afterAll(() => h?.close());

  it('names the bundle by its hash and lets browsers keep it a year, compressed as asked', async () => {
    expect(identity.length).toBeGreaterThan(3_000_000);
    for (const [accept, encoding, unpack] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      const res = await h.app.inject({ url: scriptUrl, headers: { 'accept-encoding': accept } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toBe('accept-encoding');
      expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
      const cache = String(res.headers['cache-control']);
      expect(cache).toContain('immutable');
      expect(Number(/max-age=(\d+)/.exec(cache)?.[1])).toBeGreaterThanOrEqual(YEAR);
      expect(unpack(res.rawPayload).equals(identity), `${encoding} unpacks to the bundle`).toBe(true);
      expect(res.rawPayload.length).toBeLessThan(1_100_000);
      // After `npm run build`, the build's copy (brotli 11, gzip 9) is what goes out.
      const built = precompressedPath(scriptUrl.slice('/docs/js/'.length), encoding);
      if (existsSync(built)) expect(res.rawPayload.equals(readFileSync(built))).toBe(true);
    }
    const plain = await h.app.inject(scriptUrl);
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(String(plain.headers['cache-control'])).toContain('immutable');
  });

  it('answers another version or name of the bundle with the usual 404', async () => {
    for (const url of ['/docs/js/scalar.0000000000000000.js', '/docs/js/other.js', '/docs/js/']) {
      const res = await h.app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe('route_not_found');
    }
    // A page cached before the bundle was versioned still finds it.
    const old = await h.app.inject('/docs/js/scalar.js');
    expect(old.statusCode).toBe(200);
    expect(old.rawPayload.equals(identity)).toBe(true);
  });

  it('revalidates the page, which opens with every operation, asks for /openapi.json early and names the favicon', async () => {
    const page = await h.app.inject({ url: '/docs/', headers: { 'accept-encoding': 'br' } });
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers.vary).toBe('accept-encoding');
    expect(page.headers['content-encoding']).toBe('br');
    const etag = String(page.headers.etag);
    expect(etag).toMatch(/^W\/"[0-9a-f]{16}"$/);
    const again = await h.app.inject({ url: '/docs/', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    // The bundle and the document are fetched from the start; the bundle runs after the first frame.
    expect(html).toContain(`<link rel="preload" href="${scriptUrl}" as="script" />`);
    expect(html).toContain('<link rel="preload" href="/openapi.json" as="fetch" crossorigin="anonymous" />');
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
    // The overview comes before the reference's mount point, and Scalar removes it once loaded.
    expect(html.indexOf('<main id="mds-overview">')).toBeGreaterThan(0);
    expect(html.indexOf('<main id="mds-overview">')).toBeLessThan(html.indexOf('<div id="app"></div>'));
    expect(html).toContain("onLoaded: () => document.getElementById('mds-overview')?.remove()");
    const doc = (await h.app.inject('/openapi.json')).json() as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(html).toContain(`<li><code>${method.toUpperCase()} ${path}</code> ${op.summary}`);
      }
    }
  });

  it('answers /favicon.ico and /favicon.svg with the SVG icon, which the pages name', async () => {
    for (const url of ['/favicon.ico', '/favicon.svg']) {
      const res = await h.app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('image/svg+xml');
      expect(res.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(res.body).not.toMatch(/<script|on\w+=/i);
      expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    }
    const charts = await h.app.inject('/charts');
    expect(charts.body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
  });
});
