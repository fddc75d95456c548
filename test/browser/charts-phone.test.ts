/**
 * `/charts` on a phone (390×844, a touch screen at 3 device pixels per CSS
 * pixel), in English, French and Arabic, with a free and a pro key, in Debian's
 * chromium against a real `mds serve` (docs/decisions.md 100):
 *
 * - nothing is wider than the screen: the document scrolls only vertically
 *   (a wide table scrolls inside its card), and no line of text starts or
 *   ends off-screen, in Arabic either, which opens unshifted;
 * - chart text is at least 11 px as rendered (the drawing follows the chart's
 *   width instead of shrinking a desktop drawing);
 * - the parallel rate's quality (a consensus of five organisations, docs/decisions.md
 *   146) is read in words beside it, within the screen;
 * - the converter says which way it converts in words in Arabic, not with an
 *   arrow a right-to-left line turns around;
 * - the service publishes no money-transfer rates here (MDS_PUBLISHED_FAMILIES,
 *   docs/decisions.md 99): no panel, row, request or "not shown" item of them.
 *
 * Screenshots: docs/screenshots/charts-phone-{free,pro}-{en,fr,ar}.png.
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
import { publishStreetRate, STREET_QUALITY, STREET_RATE_ENV, yesterday } from '../support/street-rate.js';

const SCREENSHOTS = resolve('docs/screenshots');
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};
const LANGUAGES = [
  ['en', 'en-US'],
  ['fr', 'fr-FR'],
  ['ar', 'ar-DZ'],
] as const;
/** The parallel rate's badge in each language: its confidence, its organisations (STREET_QUALITY). */
const BADGE = {
  en: ['High confidence', '5 organisations'],
  fr: ['Confiance élevée', '5 organisations'],
  ar: ['ثقة عالية', '5 مؤسسات'],
};

const chromiumPath = findChromium();

/** The few browser globals used here (this project's TypeScript has no DOM types). */
interface Rect {
  left: number;
  right: number;
  width: number;
  height: number;
}
interface Node {
  tagName: string;
  textContent: string | null;
  closest(selector: string): Node | null;
  getBoundingClientRect(): Rect;
  checkVisibility(): boolean;
  getScreenCTM(): { a: number; b: number } | null;
}
interface Browserside {
  document: {
    documentElement: { scrollWidth: number; clientWidth: number };
    body: { scrollWidth: number };
    querySelectorAll(selector: string): ArrayLike<Node>;
  };
  scrollX: number;
  innerWidth: number;
  getComputedStyle(node: Node): { fontSize: string };
  axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> };
}

interface Layout {
  scrollWidth: number;
  bodyScrollWidth: number;
  scrollX: number;
  /** Visible text boxes outside a table's scrolling card that cross the screen's edges. */
  offScreen: string[];
  /** The smallest chart text as rendered: its font size times the drawing's scale, in CSS px. */
  smallestChartText: number;
  chartTexts: number;
}

/** What the phone shows, measured in the page. */
function measure(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const w = globalThis as unknown as Browserside;
    const doc = w.document;
    const offScreen: string[] = [];
    // Every element but a drawing's parts and what a table's scrolling card holds.
    for (const node of Array.from(doc.querySelectorAll('body *'))) {
      if (node.closest('svg') !== node && node.closest('svg')) continue;
      if (!node.checkVisibility() || node.closest('.table-scroll')) continue;
      const r = node.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < -0.5 || r.right > w.innerWidth + 0.5)
        offScreen.push(
          `${node.tagName} ${Math.round(r.left)}–${Math.round(r.right)}: ${(node.textContent ?? '').trim().slice(0, 40)}`,
        );
    }
    let smallest = Number.POSITIVE_INFINITY;
    let count = 0;
    for (const text of Array.from(doc.querySelectorAll('svg text'))) {
      if (!text.checkVisibility()) continue;
      // The drawing's scale, whatever the text's rotation (the vertical axis title).
      const m = text.getScreenCTM();
      const scale = m ? Math.hypot(m.a, m.b) : 1;
      smallest = Math.min(smallest, Number.parseFloat(w.getComputedStyle(text).fontSize) * scale);
      count++;
    }
    return {
      scrollWidth: doc.documentElement.scrollWidth,
      bodyScrollWidth: doc.body.scrollWidth,
      scrollX: w.scrollX,
      offScreen,
      smallestChartText: smallest,
      chartTexts: count,
    };
  });
}

describe.skipIf(chromiumPath === null)('the charts page on a phone', () => {
  let dir: string;
  let db: string;
  let account: string;
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-charts-phone-'));
    db = join(dir, 'mds.sqlite');
    // Ending yesterday, so that the consensus published now is the latest parallel rate.
    const seeded = await mds(['seed', 'sample', '--days', '30', '--end-date', yesterday(), '--json'], { db });
    expect(seeded.status, seeded.stderr).toBe(0);
    account = (await mds(['accounts', 'create', '--name', 'Phone', '--json'], { db })).json().id;
    [server, browser] = await Promise.all([
      // The stored transfer rates are the operator's own: it does not publish them.
      spawnServer({ db, env: { MDS_PUBLISHED_FAMILIES: 'parallel,official,gold', ...STREET_RATE_ENV } }),
      launchChromium(chromiumPath!),
    ]);
    origin = new URL(server.url).origin;
    // Read with a key of its own, so that each test's key keeps its minute.
    expect((await publishStreetRate(server, db, await keyOf('pro'))).quality).toEqual(STREET_QUALITY);
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A key of its own grant of `plan` (config/plans.json): the free plan's minute holds one page load. */
  async function keyOf(plan: 'free' | 'pro'): Promise<string> {
    const grant = await mds(['grants', 'create', '--account', account, '--plan', plan, '--json'], { db });
    expect(grant.status, grant.stderr).toBe(0);
    const key = await mds(['keys', 'create', '--grant', grant.json().id, '--json'], { db });
    expect(key.status, key.stderr).toBe(0);
    return key.json().key;
  }

  for (const plan of ['free', 'pro'] as const) {
    for (const [lang, locale] of LANGUAGES) {
      it(`${plan} key, ${lang}: as wide as the phone, chart text of 11 px or more`, async () => {
        const key = await keyOf(plan);
        const context = await browser.newContext({ ...PHONE, locale });
        const seen = recordRequests(context);
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(error.message));
        try {
          await page.goto(`${origin}/charts`);
          await page.waitForSelector(`html[lang="${lang}"]`, { state: 'attached' });
          // Before a key: the form alone, already within the screen, and unshifted in Arabic.
          let layout = await measure(page);
          expect(layout.scrollX).toBe(0);
          expect(layout.scrollWidth).toBeLessThanOrEqual(390);

          await page.fill('#api-key', key);
          await page.click('#connect');
          await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 20_000 });
          if (plan === 'pro') {
            await page.waitForSelector('#rates-chart path.series', { state: 'attached' });
            await page.waitForSelector('#gold-chart path.series', { state: 'attached' });
          }
          layout = await measure(page);
          expect(layout.scrollWidth, 'document').toBeLessThanOrEqual(390);
          expect(layout.bodyScrollWidth, 'body').toBeLessThanOrEqual(390);
          expect(layout.scrollX).toBe(0);
          expect(layout.offScreen).toEqual([]);
          if (plan === 'pro') {
            expect(layout.chartTexts).toBeGreaterThan(10);
            expect(layout.smallestChartText).toBeGreaterThanOrEqual(11);
          }

          // Transfer rates are not published: nothing of them, asked or shown.
          expect(await page.locator('#latest-rows tr[data-source="transfer"]').count()).toBe(0);
          expect(seen.filter((r) => /source=transfer/.test(r.url))).toEqual([]);
          expect(await page.textContent('#lacks')).not.toMatch(/transfer/);
          if (plan === 'pro') expect(await page.getAttribute('#rates-chart', 'data-series')).toBe('2');
          // Messages are sentences, never an API code.
          const messages = await page
            .locator('p.message')
            .evaluateAll((ps: Node[]) => ps.filter((p) => p.checkVisibility()).map((p) => p.textContent));
          expect(messages).toEqual([]);

          // The narrowest and the widest phones too: the charts are drawn again at each width.
          for (const width of [360, 430]) {
            await page.setViewportSize({ width, height: 844 });
            await expect
              .poll(async () => {
                const at = await measure(page);
                return {
                  // The document's width when wider than the screen, else the screen's.
                  scrollWidth: Math.max(at.scrollWidth, width),
                  offScreen: at.offScreen,
                  text: plan === 'free' || at.smallestChartText >= 11,
                };
              })
              .toEqual({ scrollWidth: width, offScreen: [], text: true });
          }
          await page.setViewportSize(PHONE.viewport);

          // The parallel rate's quality, in words, within the phone's width.
          const badge = page.locator('#latest-rows tr[data-source="parallel"] [data-testid="quality"]');
          expect(
            await badge
              .locator('[data-testid="confidence"], [data-testid="organisations"]')
              .allTextContents(),
          ).toEqual(BADGE[lang]);
          const box = (await badge.boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(390);
          expect(await page.isVisible('#quality-note')).toBe(true);

          if (plan === 'pro' && lang === 'en') {
            // USD's parallel rate is the sample's, an import: no badge, no note, nothing describing the table
            // (the pro plan's minute holds the switch; the free one's is spent by the first currency).
            await page.selectOption('#currency', 'USD');
            await page.waitForSelector('#latest-caption:has-text("USD")', { state: 'attached' });
            await page.waitForSelector('#latest-rows tr[data-source="parallel"]', { state: 'attached' });
            expect(await page.locator('#latest-rows tr[data-source="parallel"] th').textContent()).toBe(
              'Parallel market',
            );
            expect(await page.isHidden('#quality-note')).toBe(true);
            expect(await page.getAttribute('#latest-table', 'aria-describedby')).toBeNull();
            await page.selectOption('#currency', 'EUR');
            await page.waitForSelector('#latest-rows tr[data-source="parallel"] [data-testid="quality"]', {
              state: 'attached',
            });
          }

          if (lang === 'ar') {
            expect(await page.locator('#convert-direction option').allTextContents()).toEqual([
              'من EUR إلى الدينار (DZD)',
              'من الدينار (DZD) إلى EUR',
            ]);
          }

          await page.evaluate(axe.source);
          const violations = await page.evaluate(async () => {
            const found = await (globalThis as unknown as Browserside).axe.run();
            return found.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
          });
          expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
          // At 390 CSS px, as a phone shows it (not at its 3 device pixels each).
          await page.screenshot({
            path: join(SCREENSHOTS, `charts-phone-${plan}-${lang}.png`),
            fullPage: true,
            scale: 'css',
          });
          expect(offOrigin(seen, origin)).toEqual([]);
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
