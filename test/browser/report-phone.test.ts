/**
 * The reporters' page, /report/ (docs/decisions.md 120), on a phone (390×844,
 * touch, 3 device pixels per CSS pixel) in English, French and Arabic, in
 * Debian's chromium against a real `mds serve` with its reporter listener
 * (MDS_REPORT_PORT):
 *
 * - nothing is wider than the screen, before and after the token;
 * - the token entered once is kept (a reload needs none); a quote sent shows
 *   in the last quotes and is stored once (GET /report/v1/quotes);
 * - offline (context.setOffline), a quote waits in the page; when the
 *   network returns it is stored once, and a reload sends nothing again;
 * - a quote whose answer is lost stays in the page, and is stored once when
 *   the next load sends it again under its Idempotency-Key;
 * - a quote the API refuses (50 % from the published rate) is a sentence in
 *   the page's language; the amount field opens a decimal keyboard;
 * - axe-core finds no serious or critical violation; the language switch
 *   turns the page at once and is kept for the next visit.
 *
 * Screenshots: docs/screenshots/report-phone-{en,fr,ar}.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium, offOrigin, recordRequests } from '../support/browser.js';
import { mds } from '../support/cli.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

const SCREENSHOTS = resolve('docs/screenshots');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const LANGUAGES = [
  ['en', 'en-US'],
  ['fr', 'fr-FR'],
  ['ar', 'ar-DZ'],
] as const;

const chromiumPath = findChromium();

/** The few browser globals used here (this project's TypeScript has no DOM types). */
interface Browserside {
  document: { documentElement: { scrollWidth: number }; body: { scrollWidth: number } };
  scrollX: number;
  axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> };
}

const widths = (page: Page) =>
  page.evaluate(() => {
    const w = globalThis as unknown as Browserside;
    return {
      document: w.document.documentElement.scrollWidth,
      body: w.document.body.scrollWidth,
      scrollX: w.scrollX,
    };
  });

describe.skipIf(chromiumPath === null)('the reporters’ page on a phone', () => {
  let dir: string;
  let db: string;
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;
  let organisation: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-report-phone-'));
    db = join(dir, 'mds.sqlite');
    // Published rates, so a quote far from them is refused as a typo.
    const seeded = await mds(['seed', 'sample', '--days', '3', '--json'], { db });
    expect(seeded.status, seeded.stderr).toBe(0);
    const created = await mds(['organisations', 'create', '--name', 'Square Port Said', '--json'], { db });
    expect(created.status, created.stderr).toBe(0);
    organisation = created.json().organisation.id;
    [server, browser] = await Promise.all([
      spawnServer({ db, env: { MDS_REPORT_PORT: '0' } }),
      launchChromium(chromiumPath!),
    ]);
    // The banner names the page on the reporter listener.
    const banner = await waitFor(() => /Reporters' page: (\S+)\/report\//.exec(server.stdout())?.[1], {
      what: 'the reporters’ page in the banner',
    });
    origin = new URL(banner).origin;
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A reporter of its own for each language, so each counts only its own quotes. */
  async function reporterToken(): Promise<string> {
    const args = [
      'reporters',
      'create',
      '--organisation',
      organisation,
      '--label',
      'Phone',
      '--markets',
      'EUR,USD',
    ];
    const created = await mds([...args, '--json'], { db });
    expect(created.status, created.stderr).toBe(0);
    return created.json().token;
  }

  /** The reporter's stored quotes, read through the API. */
  async function stored(token: string): Promise<{ buy: number; sell: number }[]> {
    const res = await fetch(`${origin}/report/v1/quotes?limit=200`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { buy: number; sell: number }[] }).data;
  }

  for (const [lang, locale] of LANGUAGES) {
    it(`${lang}: sends a quote, keeps one typed offline and sends it once, within 390 px`, async () => {
      const token = await reporterToken();
      const context = await browser.newContext({ ...PHONE, locale });
      const seen = recordRequests(context);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        await page.goto(`${origin}/report`);
        await page.waitForSelector(`html[lang="${lang}"]`, { state: 'attached' });
        // The page's own sentences (public/report/strings.js), as the browser loads them.
        const strings = (await page.evaluate(
          `import('/report/strings.js').then((m) => m.STRINGS[${JSON.stringify(lang)}])`,
        )) as Record<string, string>;
        expect(await page.getAttribute('html', 'dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        expect(await page.textContent('h1')).toBe(strings.heading);
        let layout = await widths(page);
        expect(layout.document).toBeLessThanOrEqual(390);
        expect(layout.scrollX).toBe(0);

        // The token, once: a reload finds it in localStorage.
        await page.fill('#token', token);
        await page.click('#token-form button');
        await page.waitForSelector('main[data-state="ready"]', { state: 'attached' });
        await page.reload();
        await page.waitForSelector('main[data-state="ready"]', { state: 'attached' });
        expect(await page.locator('#token-form').isHidden()).toBe(true);
        expect(await page.locator('#market option').allTextContents()).toEqual(['EUR', 'USD']);
        expect(await page.getAttribute('#buy', 'inputmode')).toBe('decimal');
        expect(await page.getAttribute('#sell', 'inputmode')).toBe('decimal');

        // A quote sent and shown; a decimal comma as a French or Arabic keyboard types it.
        await page.selectOption('#market', 'EUR');
        await page.fill('#buy', '259,5');
        await page.fill('#sell', '261');
        await page.click('#send');
        await page.waitForSelector('#quotes-rows tr', { state: 'attached' });
        expect(await stored(token)).toMatchObject([{ buy: 259.5, sell: 261 }]);
        await page.waitForSelector('#consensus li[data-market="EUR"]', { state: 'attached' });

        // Offline: kept in the page, nothing reaches the service.
        await context.setOffline(true);
        await page.fill('#buy', '260.25');
        await page.fill('#sell', '262.75');
        await page.click('#send');
        await page.waitForSelector('#pending-box[data-count="1"]', { state: 'visible' });
        // Queued first, then tried: the message says so once the try has failed.
        await expect.poll(() => page.textContent('#quote-message'), { timeout: 10_000 }).toBe(strings.queued);
        expect(await stored(token)).toHaveLength(1);
        // The network returns: the quote goes, once.
        await context.setOffline(false);
        await page.waitForSelector('#pending-box[data-count="0"]', { state: 'hidden' });
        await expect.poll(async () => (await stored(token)).length).toBe(2);
        await page.reload();
        await page.waitForSelector('main[data-state="ready"]', { state: 'attached' });
        await page.waitForSelector('#quotes-rows tr:nth-child(2)', { state: 'attached' });
        const quotes = await stored(token);
        expect(quotes).toHaveLength(2);
        expect(quotes.filter((q) => q.buy === 260.25 && q.sell === 262.75)).toHaveLength(1);

        // The answer lost on the way back: stored, yet still waiting in the page; the next load sends it
        // again under its key, the service replays its answer, and it is stored once.
        await page.route(
          '**/report/v1/quotes',
          async (route) => {
            await route.fetch();
            await route.abort('connectionreset');
          },
          { times: 1 },
        );
        await page.fill('#buy', '258');
        await page.fill('#sell', '260');
        await page.click('#send');
        await page.waitForSelector('#pending-box[data-count="1"]', { state: 'visible' });
        // The page queues the quote before it sends it: the store has it once the intercepted answer is back.
        await expect.poll(async () => (await stored(token)).length, { timeout: 10_000 }).toBe(3);
        await page.reload();
        await page.waitForSelector('#pending-box[data-count="0"]', { state: 'hidden' });
        await page.waitForSelector('#quotes-rows tr:nth-child(3)', { state: 'attached' });
        expect((await stored(token)).filter((q) => q.buy === 258 && q.sell === 260)).toHaveLength(1);
        const posts = seen.filter((r) => r.url.endsWith('/report/v1/quotes') && r.status !== undefined);
        expect(posts.map((r) => r.status)).toEqual([201, 201, 201]);

        // A refusal of the API, as a sentence in the page's language.
        await page.fill('#buy', '1');
        await page.fill('#sell', '1.5');
        await page.click('#send');
        await expect.poll(() => page.textContent('#quote-message')).toContain(strings['reason.typo']);
        expect(await page.getAttribute('#pending-box', 'data-count')).toBe('0');
        // Typed sell below buy: said before anything is sent.
        await page.fill('#buy', '262');
        await page.fill('#sell', '261');
        await page.click('#send');
        await expect
          .poll(() => page.textContent('#quote-message'))
          .toMatch(new RegExp(strings.sellBelowBuy!.split('{')[0]!));
        expect(await stored(token)).toHaveLength(3);
        await page.fill('#buy', '');
        await page.fill('#sell', '');

        layout = await widths(page);
        expect(layout.document, 'document').toBeLessThanOrEqual(390);
        expect(layout.body, 'body').toBeLessThanOrEqual(390);
        expect(layout.scrollX).toBe(0);

        await page.evaluate(axe.source);
        const violations = await page.evaluate(async () => {
          const found = await (globalThis as unknown as Browserside).axe.run();
          return found.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
        });
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
        await page.screenshot({
          path: join(SCREENSHOTS, `report-phone-${lang}.png`),
          fullPage: true,
          scale: 'css',
        });
        // The switch: another language at once, kept for the next visit.
        const other = lang === 'ar' ? 'en' : 'ar';
        await page.selectOption('#language', other);
        await page.waitForSelector(`html[lang="${other}"][dir="${other === 'ar' ? 'rtl' : 'ltr'}"]`, {
          state: 'attached',
        });
        await page.reload();
        await page.waitForSelector(`html[lang="${other}"]`, { state: 'attached' });
        expect(await page.textContent('h1')).not.toBe(strings.heading);
        expect(offOrigin(seen, origin)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
