/**
 * The pages a person looks at, driven in a real headless browser (Debian's
 * chromium through playwright-core) against a real `mds serve` process:
 *
 * - `/docs/`: an overview names every operation before the reference has
 *   loaded (the times are printed); the interactive reference lists every
 *   operation of the served OpenAPI document, offline: no request leaves the server's origin, no
 *   control that needs a hosted service is shown (Ask AI, Generate MCP,
 *   Developer Tools, Configure, Share, Deploy, Open API Client, Powered by
 *   Scalar), no visible link leads off the origin, and the in-page API client
 *   sends a request with a key to this origin and shows its answer.
 * - `/charts`: with a key holding every entitlement, the latest rates of the
 *   three source families show the API's change since the previous day
 *   (its `change` member), the rates chart draws the three series; the premium
 *   chart draws /v1/market/premium/history, and its summary, the latest
 *   premium and the gold references equal the API's, percentages to 2
 *   decimals; a narrower key's panels it may not read fold into one line and
 *   are never asked for (a key without `usage:read` asks and folds the
 *   refusals); with a tiny per-minute limit it shows Retry-After; a refused
 *   key is one message. The key is sent only to this origin's /v1 API.
 *   The free plan and the languages: test/browser/charts-i18n.test.ts.
 *
 * Both save a screenshot under docs/screenshots/ for the README. Without
 * chromium the suite skips, saying why, or fails where the run requires it
 * (test/support/browser.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { findChromium, launchChromium } from '../support/browser.js';
import { mds } from '../support/cli.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

/** The sections of /charts that load with the currency and the window. */
const SECTIONS = ['latest', 'converter', 'rates', 'premium-history', 'premium', 'gold'];
const SOURCES = ['parallel', 'official', 'transfer'] as const;
const SCREENSHOTS = resolve('docs/screenshots');

const chromiumPath = findChromium();

/** Every request the page makes, to check that none leaves the server's origin. */
function recordRequests(context: BrowserContext) {
  const seen: { url: string; authorization: string | undefined }[] = [];
  context.on('request', (request) => {
    seen.push({ url: request.url(), authorization: request.headers()['authorization'] });
  });
  return seen;
}

const offOrigin = (seen: { url: string }[], origin: string) =>
  seen.map((r) => r.url).filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);

/** Labels of Scalar's controls that need Scalar's hosted services, hidden by src/http/routes/docs.ts. */
const HOSTED_CONTROL =
  /^(ask ai|generate mcp|mcp|developer tools|configure|share|deploy|open api client|powered by scalar)\b/i;

/** The few browser globals the page functions use (this project's TypeScript has no DOM types). */
interface Browserside {
  scrollBy(x: number, y: number): void;
  scrollTo(x: number, y: number): void;
  location: { origin: string };
  document: {
    body: { innerText: string };
    querySelectorAll(selector: string): Iterable<BrowserElement>;
  };
  sessionStorage: { length: number };
}
interface BrowserElement {
  innerText: string;
  href?: string;
  getAttribute(name: string): string | null;
  checkVisibility(): boolean;
}
interface ListItem {
  textContent: string | null;
  dataset: Record<string, string | undefined>;
}

/** The page's formats in English (public/format.js): rates with 2 to 4 decimals, percentages with 2, UTC days. */
const shown = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const pct = (p: number) =>
  (p / 100).toLocaleString('en-US', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const day = (isoDay: string) =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${isoDay}T00:00:00Z`),
  );

const utcDay = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(chromiumPath === null)('pages in a headless browser', () => {
  let dir: string;
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;
  const keys = { full: '', limited: '', blind: '', burst: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-browser-'));
    const db = join(dir, 'mds.sqlite');
    const seeded = await mds(['seed', 'sample', '--days', '400', '--json'], { db });
    expect(seeded.status, seeded.stderr).toBe(0);

    const account = (await mds(['accounts', 'create', '--name', 'Browser', '--json'], { db })).json().id;
    const grant = async (rpm: number) =>
      (
        await mds(
          [
            'grants',
            'create',
            '--account',
            account,
            '--plan',
            'pro',
            '--scopes',
            ENTITLEMENTS.join(','),
          ].concat(['--monthly-limit', '100000', '--rpm', String(rpm), '--json']),
          { db },
        )
      ).json().id as string;
    const [roomy, tight] = await Promise.all([grant(1000), grant(3)]);
    const key = async (grantId: string, scopes?: string[]) => {
      const out = await mds(
        ['keys', 'create', '--grant', grantId, '--json', ...(scopes ? ['--scopes', scopes.join(',')] : [])],
        { db },
      );
      expect(out.status, out.stderr).toBe(0);
      return out.json().key as string;
    };
    const narrow = ENTITLEMENTS.filter(
      (e) => !['market:premium:read', 'market:premium:history:read', 'gold:latest:read'].includes(e),
    );
    // Without usage:read the page cannot ask /v1/me what the key may read.
    const blind = ENTITLEMENTS.filter((e) => !['usage:read', 'market:premium:read'].includes(e));
    [keys.full, keys.limited, keys.blind, keys.burst] = await Promise.all([
      key(roomy),
      key(roomy, narrow),
      key(roomy, blind),
      key(tight),
    ]);

    [server, browser] = await Promise.all([spawnServer({ db }), launchChromium(chromiumPath!)]);
    origin = new URL(server.url).origin;
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function newPage(): Promise<{
    context: BrowserContext;
    page: Page;
    seen: ReturnType<typeof recordRequests>;
  }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const seen = recordRequests(context);
    const page = await context.newPage();
    return { context, page, seen };
  }

  it('lists every operation of the OpenAPI document on /docs/, offline, without hosted-service controls', async () => {
    const doc = (await (await fetch(`${origin}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    // The paths come from the served document (a new endpoint needs no edit here): one GET each.
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/v1/rates/latest']));
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toHaveLength(Object.keys(doc.paths).length);

    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/docs/`);
      // The overview names every operation too: the reference is checked once it has given way.
      await page.locator('#mds-overview').waitFor({ state: 'detached', timeout: 25_000 });
      // Scalar renders sections lazily as they scroll into view: scroll until every operation is on the page.
      // A path must not match only as the prefix of a longer one (/v1/rates/history in …/historical).
      await page.waitForFunction(
        (wanted) => {
          const browser = globalThis as unknown as Browserside;
          browser.scrollBy(0, 1500);
          // biome-ignore lint/performance/useDomNodeTextContent: what is rendered, not what hides in the DOM.
          const text = browser.document.body.innerText.replace(/\s+/g, ' ');
          return wanted.every((op) => new RegExp(`${op.replace(/\//g, '\\/')}(?![\\w/])`).test(text));
        },
        operations,
        { polling: 200, timeout: 25_000 },
      );
      // The bundle under its versioned name, and the document, each fetched once (the preloads are used).
      const scalar = seen.filter((r) =>
        /^\/docs\/js\/scalar\.[0-9a-f]{16}\.js$/.test(new URL(r.url).pathname),
      );
      expect(scalar).toHaveLength(1);
      expect(seen.filter((r) => r.url === `${origin}/openapi.json`)).toHaveLength(1);

      // What the page shows a person: no control of a hosted service, no link off this origin.
      const visible = await page.evaluate(() => {
        const browser = globalThis as unknown as Browserside;
        const shown = (selector: string) =>
          [...browser.document.querySelectorAll(selector)].filter((e) => e.checkVisibility());
        return {
          controls: shown('button, a, [role="button"], [role="menuitem"]').map((e) =>
            // biome-ignore lint/performance/useDomNodeTextContent: the label a person reads.
            (e.innerText || e.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' '),
          ),
          offOrigin: shown('a[href]')
            .map((a) => a.href ?? '')
            .filter((href) => new URL(href).origin !== browser.location.origin),
        };
      });
      expect(visible.controls.length).toBeGreaterThan(20);
      expect(visible.controls.filter((label) => HOSTED_CONTROL.test(label))).toEqual([]);
      expect(visible.offOrigin).toEqual([]);

      await page.evaluate(() => (globalThis as unknown as Browserside).scrollTo(0, 0));
      await page.screenshot({ path: join(SCREENSHOTS, 'docs.png') });

      // The in-page client works offline: it sends the key to this origin and shows the answer.
      await page
        .getByRole('button', { name: /Test Request/ })
        .first()
        .click();
      await page.getByPlaceholder('Token').last().fill(keys.full);
      await page
        .getByRole('button', { name: /Send get request/ })
        .first()
        .click();
      await page.getByText('200 OK').first().waitFor({ timeout: 10_000 });
      const sent = seen.filter((r) => r.authorization !== undefined);
      expect(sent.map((r) => new URL(r.url).pathname)).toEqual(['/v1/assets']);
      expect(sent[0]!.authorization).toBe(`Bearer ${keys.full}`);
      expect(offOrigin(seen, origin)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows every operation on /docs/ at once, before the reference has loaded, and the favicon', async () => {
    const { context, page, seen } = await newPage();
    // Times taken by the page itself (from navigation start), so a main thread busy compiling the bundle
    // cannot delay the reading: the first frame showing an operation path, and the first with it in the reference.
    await context.addInitScript(() => {
      const browser = globalThis as unknown as Browserside & {
        marks: { content?: number; reference?: number };
        performance: { now(): number };
        requestAnimationFrame(f: () => void): void;
        document: { getElementById(id: string): { innerText: string } | null };
      };
      const marks: { content?: number; reference?: number } = {};
      browser.marks = marks;
      const tick = () => {
        // biome-ignore lint/performance/useDomNodeTextContent: what is rendered, not what hides in the DOM.
        const text = browser.document.body?.innerText ?? '';
        // biome-ignore lint/performance/useDomNodeTextContent: as above.
        const app = browser.document.getElementById('app')?.innerText ?? '';
        if (marks.content === undefined && text.includes('/v1/rates/latest'))
          marks.content = browser.performance.now();
        if (marks.reference === undefined && app.includes('/v1/rates/latest'))
          marks.reference = browser.performance.now();
        if (marks.reference === undefined) browser.requestAnimationFrame(tick);
      };
      browser.requestAnimationFrame(tick);
    });
    const icons: number[] = [];
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/favicon.svg') icons.push(res.status());
    });
    try {
      await page.goto(`${origin}/docs/`, { waitUntil: 'commit' });
      // A generous deadline: a timed assertion would be flaky on a loaded machine; the figures are printed.
      await page.waitForFunction(
        () => (globalThis as unknown as { marks: { reference?: number } }).marks.reference !== undefined,
        null,
        { timeout: 15_000, polling: 100 },
      );
      const marks = await page.evaluate(() => {
        const browser = globalThis as unknown as {
          marks: { content: number; reference: number };
          performance: { getEntriesByName(name: string): { startTime: number }[] };
        };
        const paint = browser.performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
        return { ...browser.marks, paint };
      });
      console.log(
        `/docs/: first paint ${Math.round(marks.paint ?? -1)} ms, operations shown ${Math.round(marks.content)} ms, ` +
          `reference rendered ${Math.round(marks.reference)} ms after navigation start`,
      );
      // The overview was on the page before the reference.
      expect(marks.content).toBeLessThan(marks.reference);
      expect(await page.locator('#mds-overview').count()).toBe(0);
      // The page names /favicon.svg; the browser asks for it on its own schedule.
      await waitFor(() => icons.length > 0, { what: 'a request for /favicon.svg' });
      expect(icons).toEqual([200]);
      expect(offOrigin(seen, origin)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('charts EUR over 90 days with a key that may read everything', async () => {
    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', keys.full);
      await page.click('#connect');
      await page.waitForSelector('#currency:not([disabled]) option[value="EUR"]', { state: 'attached' });
      await page.selectOption('#window', '90');
      await page.selectOption('#currency', 'EUR');
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
      for (const section of SECTIONS) {
        await page.waitForSelector(`#${section}[data-state="ready"]`, { state: 'attached' });
      }
      expect(await page.locator('#lacks').isHidden()).toBe(true);

      // The latest rate of every family, and its change since the previous day: the API's `change` member
      // (docs/decisions.md, 122 and 125), which the page shows as it is, computing nothing.
      const rows = page.locator('#latest-rows tr');
      expect(await rows.evaluateAll((trs: ListItem[]) => trs.map((tr) => tr.dataset.source))).toEqual([
        ...SOURCES,
      ]);
      expect(await page.locator('#latest-note').getAttribute('data-change')).toBe('shown');
      type ChangeSide = { amount: number; percent: number };
      for (const source of SOURCES) {
        const latest = await getJson(`${origin}/v1/rates/latest?source=${source}&currency=EUR`, keys.full);
        const record = latest.body.data[0] as {
          buy: number;
          sell: number;
          updatedAt: string;
          change: { since: string; buy: ChangeSide; sell: ChangeSide } | null;
        };
        expect(record.change, source).not.toBeNull();
        const row = page.locator(`#latest-rows tr[data-source="${source}"]`);
        for (const side of ['buy', 'sell'] as const) {
          const value = row.locator(`td:not(.change)[data-side="${side}"]`);
          expect(await value.getAttribute('data-value')).toBe(String(record[side]));
          expect(await value.textContent()).toBe(shown(record[side]));
          const change = row.locator(`td.change[data-side="${side}"]`);
          expect(await change.getAttribute('data-value')).toBe(String(record.change![side].amount));
          expect(await change.getAttribute('data-percent')).toBe(String(record.change![side].percent));
          expect(await change.getAttribute('data-since')).toBe(record.change!.since);
          expect(await change.textContent()).toMatch(/^[+-]?[\d,]+\.\d{2,4} \([+-]?\d+\.\d{2}%\)$/);
        }
      }
      // The converter: 100 EUR at each family's buy rate, as /v1/convert answers it.
      expect(await page.locator('#converter-rows tr').count()).toBe(3);
      for (const source of ['parallel', 'official', 'transfer']) {
        const res = await getJson(
          `${origin}/v1/convert?from=EUR&to=DZD&amount=100&source=${source}`,
          keys.full,
        );
        expect(res.status).toBe(200);
        expect(
          await page
            .locator(`#converter-rows tr[data-source="${source}"] td`)
            .first()
            .getAttribute('data-value'),
        ).toBe(String(res.body.data.result));
      }

      // All three series, drawn from every record of the window.
      const from = utcDay(-89);
      const to = utcDay(0);
      const records = async (source: string) => {
        const res = await getJson(
          `${origin}/v1/rates/history?currency=EUR&source=${source}&from=${from}&to=${to}&limit=1000`,
          keys.full,
        );
        expect(res.status).toBe(200);
        expect(res.body.meta.nextCursor).toBeNull();
        return res.body.data as { buy: number }[];
      };
      const [parallel, official, transfer] = await Promise.all(SOURCES.map(records));
      expect(parallel!.length).toBeGreaterThan(60);
      const chart = page.locator('#rates-chart');
      await expect(chart.getAttribute('role')).resolves.toBe('img');
      expect(await chart.locator('path.series').count()).toBe(3);
      for (const [source, data] of [
        ['parallel', parallel],
        ['official', official],
        ['transfer', transfer],
      ] as const) {
        expect(await chart.locator(`path.series-${source}`).getAttribute('data-points')).toBe(
          String(data!.length),
        );
      }
      // The premium is the API's (below), not the two series paired in the browser.
      expect(await chart.locator('polygon').count()).toBe(0);
      const label = (await chart.getAttribute('aria-label'))!;
      expect(label).toContain(`EUR buy rates in DZD from ${day(from)} to ${day(to)}.`);
      expect(label).toContain(`Parallel market from ${shown(parallel!.at(-1)!.buy)} to `);
      expect(label).toContain(`to ${shown(parallel![0]!.buy)} DZD`);

      // Axes: the window's first and last days, for reading, the unit, and numeric ticks spanning the lines.
      const xTicks = chart.locator('text.x-tick');
      expect(await xTicks.first().getAttribute('data-date')).toBe(from);
      expect(await xTicks.last().getAttribute('data-date')).toBe(to);
      expect(await xTicks.first().textContent()).toBe(day(from));
      expect(await xTicks.last().textContent()).toBe(day(to));
      expect(await chart.locator('text.y-title').textContent()).toBe('DZD per 1 EUR (buy)');
      expect(await chart.locator('text.x-title').textContent()).toBe('Date (UTC)');
      const yTicks = (await chart.locator('text.y-tick').allTextContents()).map((t) =>
        Number(t.replace(/,/g, '')),
      );
      expect(yTicks.length).toBeGreaterThanOrEqual(2);
      expect(Math.min(...yTicks)).toBeLessThan(Math.min(...official!.map((r) => r.buy)) + 50);
      expect(Math.max(...yTicks)).toBeGreaterThan(Math.max(...parallel!.map((r) => r.buy)) - 50);

      // The premium over the window: requested from /v1/market/premium/history for EUR and the window,
      // drawn a point a day, its lowest, highest and mean marked, and the summary shown as the API gave it.
      const historyUrl = `/v1/market/premium/history?currency=EUR&from=${from}&to=${to}&limit=1000`;
      expect(
        seen.filter((r) => new URL(r.url).pathname === '/v1/market/premium/history').map((r) => r.url),
      ).toEqual([`${origin}${historyUrl}`]);
      const history = await getJson(`${origin}${historyUrl}`, keys.full);
      expect(history.status).toBe(200);
      expect(history.body.meta.nextCursor).toBeNull();
      type Extreme = { percent: number; date: string };
      type Side = { min: Extreme; max: Extreme; mean: number };
      const summary = history.body.meta.summary as { days: number; buy: Side; sell: Side };
      const days = history.body.data as {
        date: string;
        premium: Record<'buy' | 'sell', { percent: number }>;
      }[];
      expect(summary.days).toBe(days.length);
      expect(days.length).toBeGreaterThan(60);
      const premiumChart = page.locator('#premium-chart');
      const expectPremiumChart = async (side: 'buy' | 'sell') => {
        expect(await premiumChart.locator('path.series').count()).toBe(1);
        expect(await premiumChart.locator('path.series-premium').getAttribute('data-points')).toBe(
          String(days.length),
        );
        expect(await premiumChart.locator('text.y-title').textContent()).toBe(
          `Premium over official, % (${side})`,
        );
        for (const end of ['min', 'max'] as const) {
          const mark = premiumChart.locator(`circle.mark-${end}`);
          expect(await mark.getAttribute('data-value')).toBe(String(summary[side][end].percent));
          expect(await mark.getAttribute('data-date')).toBe(summary[side][end].date);
        }
        expect(await premiumChart.locator('line.rule-mean').getAttribute('data-value')).toBe(
          String(summary[side].mean),
        );
        const label = (await premiumChart.getAttribute('aria-label'))!;
        expect(label).toContain(`EUR ${side} premium of the parallel rate over the official rate`);
        expect(label).toContain(
          `${summary.days} days, lowest ${pct(summary[side].min.percent)} on ${day(summary[side].min.date)}, ` +
            `highest ${pct(summary[side].max.percent)} on ${day(summary[side].max.date)}, ` +
            `mean ${pct(summary[side].mean)}.`,
        );
        // The y axis spans every day's percent.
        const ticks = (await premiumChart.locator('text.y-tick').allTextContents()).map(Number);
        expect(Math.min(...ticks)).toBeLessThan(summary[side].min.percent + 5);
        expect(Math.max(...ticks)).toBeGreaterThan(summary[side].max.percent - 5);
        expect(Math.min(...days.map((d) => d.premium[side].percent))).toBe(summary[side].min.percent);
      };
      await expectPremiumChart('buy');
      expect(await page.locator('#premium-summary').isHidden()).toBe(false);
      expect(await page.locator('#premium-history-message').textContent()).toBe('');
      expect(await page.locator('#premium-summary-caption').textContent()).toBe(
        `EUR, ${day(from)} to ${day(to)}`,
      );
      expect(await page.locator('#summary-days').getAttribute('data-value')).toBe(String(summary.days));
      expect(await page.locator('#summary-days').textContent()).toBe(
        `${summary.days} days with a parallel and an official rate`,
      );
      for (const side of ['buy', 'sell'] as const) {
        for (const end of ['min', 'max'] as const) {
          const cell = page.locator(`#summary-${side}-${end}`);
          expect(await cell.getAttribute('data-value')).toBe(String(summary[side][end].percent));
          expect(await cell.getAttribute('data-date')).toBe(summary[side][end].date);
          expect(await cell.textContent()).toBe(
            `${pct(summary[side][end].percent)} on ${day(summary[side][end].date)}`,
          );
        }
        const mean = page.locator(`#summary-${side}-mean`);
        expect(await mean.getAttribute('data-value')).toBe(String(summary[side].mean));
        expect(await mean.textContent()).toBe(pct(summary[side].mean));
      }

      // The latest premium figures are the API's, its 4-decimal percentages shown to 2.
      const premium = await getJson(`${origin}/v1/market/premium?currency=EUR`, keys.full);
      const item = premium.body.data[0];
      expect(item.currency).toBe('EUR');
      for (const side of ['buy', 'sell'] as const) {
        const percent = page.locator(`#premium-${side}-percent`);
        expect(await percent.getAttribute('data-value')).toBe(String(item.premium[side].percent));
        expect(await percent.textContent()).toBe(pct(item.premium[side].percent));
        expect(await percent.textContent()).toMatch(/^\d+\.\d{2}%$/);
        expect(await page.locator(`#premium-${side}-amount`).getAttribute('data-value')).toBe(
          String(item.premium[side].amount),
        );
        expect(await page.locator(`#parallel-${side}`).getAttribute('data-value')).toBe(
          String(item.parallel[side]),
        );
        expect(await page.locator(`#official-${side}`).getAttribute('data-value')).toBe(
          String(item.official[side]),
        );
      }
      expect(await page.locator('#premium-message').textContent()).toBe('');

      // Gold references: the latest of each purity, and the history chart with three series.
      const gold = await getJson(`${origin}/v1/gold/latest`, keys.full);
      const goldRows = page.locator('#gold-rows tr');
      expect(await goldRows.count()).toBe(gold.body.data.length);
      for (const g of gold.body.data as { purity: string; buy: number; sell: number }[]) {
        const cells = page.locator(`#gold-rows tr[data-purity="${g.purity}"] td`);
        expect(await cells.nth(0).getAttribute('data-value')).toBe(String(g.buy));
        expect(await cells.nth(1).getAttribute('data-value')).toBe(String(g.sell));
      }
      expect(await page.locator('#gold-chart path.series').count()).toBe(3);

      // Plan and quota from /v1/me; every call allowed: /v1/me, the currencies, the latest gold, then for
      // each family its latest (with its change), the window's history and the converter's /v1/convert;
      // the premium twice, the gold history.
      expect(await page.locator('#me-plan').textContent()).toBe('pro');
      expect(await page.locator('#me-remaining').textContent()).toMatch(/^[\d,]+ of 100,000 requests$/);
      const statuses = await page
        .locator('#access-list li')
        .evaluateAll((lis: ListItem[]) => lis.map((li) => li.dataset.status));
      expect(statuses).toHaveLength(15);
      expect(new Set(statuses)).toEqual(new Set(['allowed']));

      // Sell redraws from memory, without another request.
      const before = seen.length;
      await page.check('#side-sell');
      await page.waitForSelector('#rates-chart text.y-title:text-is("DZD per 1 EUR (sell)")');
      await expectPremiumChart('sell');
      expect(seen.length).toBe(before);
      await page.check('#side-buy');
      await page.waitForSelector('#rates-chart text.y-title:text-is("DZD per 1 EUR (buy)")');

      await page.screenshot({ path: join(SCREENSHOTS, 'charts.png'), fullPage: true });

      // The key went only to this origin's /v1 API, and nowhere in a URL; it was not stored (not asked to).
      expect(offOrigin(seen, origin)).toEqual([]);
      const withKey = seen.filter((r) => r.authorization !== undefined);
      expect(withKey.length).toBeGreaterThanOrEqual(12);
      for (const r of withKey) {
        expect(new URL(r.url).pathname).toMatch(/^\/v1\//);
        expect(r.authorization).toBe(`Bearer ${keys.full}`);
      }
      expect(seen.some((r) => r.url.includes(keys.full.slice(-20)))).toBe(false);
      expect(await page.evaluate(() => (globalThis as unknown as Browserside).sessionStorage.length)).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('draws the rates and gold series by week: the closes of the API’s intervals (docs/decisions.md 128)', async () => {
    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', keys.full);
      await page.click('#connect');
      await page.waitForSelector('#currency:not([disabled]) option[value="EUR"]', { state: 'attached' });
      await page.selectOption('#window', '90');
      await page.selectOption('#currency', 'EUR');
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
      await page.waitForSelector('#rates[data-state="ready"]', { state: 'attached' });
      const before = seen.length;
      await page.selectOption('#interval', 'week');
      await waitFor(
        () =>
          seen.slice(before).filter((r) => new URL(r.url).searchParams.get('interval') === 'week').length ===
          4,
        { what: 'the three rate families and the gold asked by week' },
      );
      await page.waitForSelector('#rates[data-state="ready"]', { state: 'attached' });
      await page.waitForSelector('#gold[data-state="ready"]', { state: 'attached' });
      const from = utcDay(-89);
      const to = utcDay(0);
      const asked = seen.slice(before).map((r) => new URL(r.url));
      expect(asked.filter((u) => u.pathname === '/v1/rates/history').map((u) => u.search)).toEqual(
        SOURCES.map(
          (source) => `?currency=EUR&source=${source}&from=${from}&to=${to}&interval=week&limit=1000`,
        ),
      );
      expect(asked.filter((u) => u.pathname === '/v1/gold/history').map((u) => u.search)).toEqual([
        `?from=${from}&to=${to}&interval=week&limit=1000`,
      ]);
      // The premium stays a point a day: it is not asked again.
      expect(asked.some((u) => u.pathname === '/v1/market/premium/history')).toBe(false);
      const weeks = await getJson(
        `${origin}/v1/rates/history?currency=EUR&source=parallel&from=${from}&to=${to}&interval=week&limit=1000`,
        keys.full,
      );
      type Week = { start: string; buy: { close: number } };
      const data = weeks.body.data as Week[];
      // 90 days touch 13 or 14 weeks from Monday.
      expect(data.length).toBeGreaterThanOrEqual(13);
      const chart = page.locator('#rates-chart');
      expect(await chart.locator('path.series-parallel').getAttribute('data-points')).toBe(
        String(data.length),
      );
      const label = (await chart.getAttribute('aria-label'))!;
      expect(label).toContain(
        `Parallel market from ${shown(data.at(-1)!.buy.close)} to ${shown(data[0]!.buy.close)}`,
      );
      expect(Number(await page.locator('#gold-chart path.gold-24K').getAttribute('data-points'))).toBe(
        data.length,
      );
      // Every observation again: the series as before, its page asked without `interval`.
      await page.selectOption('#interval', '');
      await waitFor(
        async () =>
          (await chart.locator('path.series-parallel').getAttribute('data-points')) !== String(data.length),
        { what: 'the rates chart redrawn from every observation' },
      );
    } finally {
      await context.close();
    }
  });

  it('folds what a narrower key may not read into one line, and never asks for it', async () => {
    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', keys.limited);
      await page.click('#connect');
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
      expect(await page.locator('#lacks').textContent()).toBe(
        'Not shown, as this key (plan pro) may not read them: the market premium (market:premium:read), ' +
          'the premium history (market:premium:history:read), and the latest gold references (gold:latest:read).',
      );
      expect(await page.locator('#lacks').getAttribute('data-entitlements')).toBe(
        'market:premium:read,market:premium:history:read,gold:latest:read',
      );
      for (const section of ['premium', 'premium-history']) {
        expect(await page.locator(`#${section}`).getAttribute('data-state')).toBe('folded');
        expect(await page.locator(`#${section}`).isHidden()).toBe(true);
      }
      // The gold panel keeps its history chart, without the latest references' table.
      expect(await page.locator('#gold').getAttribute('data-state')).toBe('ready');
      expect(await page.locator('#gold-latest').isHidden()).toBe(true);
      expect(await page.locator('#gold-chart path.series').count()).toBe(3);
      // No error box for what the key may not read, and no request for it either.
      const messages = await page.locator('p.message').allTextContents();
      expect(messages.filter((t) => t !== '')).toEqual([]);
      const asked = seen.filter((r) => r.authorization !== undefined).map((r) => new URL(r.url).pathname);
      for (const path of ['/v1/market/premium', '/v1/market/premium/history', '/v1/gold/latest']) {
        expect(asked).not.toContain(path);
      }
      // What it may read still renders: the latest rates with their change, the three rate series.
      expect(await page.locator('#latest-rows tr').count()).toBe(3);
      expect(await page.locator('#latest-rows td.change[data-value]').count()).toBe(6);
      expect(await page.locator('#rates-chart path.series').count()).toBe(3);
      const statuses = await page
        .locator('#access-list li')
        .evaluateAll((lis: ListItem[]) => lis.map((li) => li.dataset.status));
      expect(statuses).toHaveLength(12);
      expect(new Set(statuses)).toEqual(new Set(['allowed']));
      expect(offOrigin(seen, origin)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('without usage:read, asks for every panel and folds the ones refused', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', keys.blind);
      await page.click('#connect');
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
      expect(await page.locator('#lacks').textContent()).toBe(
        'Not shown, as this key may not read them: the market premium (market:premium:read) ' +
          'and the account and usage (usage:read).',
      );
      expect(await page.locator('#premium').getAttribute('data-state')).toBe('folded');
      expect(await page.locator('#premium').isHidden()).toBe(true);
      expect(await page.locator('#me-message').textContent()).toBe('');
      expect(await page.locator('#me-plan').textContent()).toBe('not shown (this key may not read /v1/me)');
      const denied = await page
        .locator('#access-list li[data-status="denied"]')
        .evaluateAll((lis: ListItem[]) => lis.map((li) => [li.dataset.endpoint, li.dataset.entitlement]));
      denied.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(denied).toEqual([
        ['/v1/market/premium', 'market:premium:read'],
        ['/v1/me', 'usage:read'],
      ]);
      expect(await page.locator('#premium-history').getAttribute('data-state')).toBe('ready');
      expect(await page.locator('#latest-rows tr').count()).toBe(3);
    } finally {
      await context.close();
    }
  });

  it('shows Retry-After when the per-minute limit is reached', async () => {
    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', keys.burst);
      await page.click('#connect');
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
      // Fifteen calls against a limit of three a minute: even across a minute boundary, one is refused.
      const limited = await page
        .locator('#access-list li[data-status="rate-limited"]')
        .evaluateAll((lis: ListItem[]) => lis.map((li) => li.textContent as string));
      expect(limited.length).toBeGreaterThanOrEqual(1);
      for (const text of limited) {
        const m = /: rate limited \(rate_limited\), retry after (\d+) seconds$/.exec(text);
        expect(m, text).not.toBeNull();
        expect(Number(m![1])).toBeGreaterThanOrEqual(1);
        expect(Number(m![1])).toBeLessThanOrEqual(60);
      }
      const messages = await page.locator('p.message').allTextContents();
      // A sentence; the API's code stays in the list of what the page read.
      expect(messages.some((t) => /^Too many requests for [^.]+\. Retry after \d+ seconds\./.test(t))).toBe(
        true,
      );
      expect(messages.join(' ')).not.toContain('rate_limited');
      expect(offOrigin(seen, origin)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says once that the key is refused, and loads no panel', async () => {
    const { context, page, seen } = await newPage();
    try {
      await page.goto(`${origin}/charts`);
      await page.fill('#api-key', `${keys.full.slice(0, -6)}AAAAAA`);
      await page.click('#connect');
      await page.waitForSelector('main[data-state="refused"]', { state: 'attached', timeout: 15_000 });
      expect(await page.locator('#me-message').textContent()).toMatch(/^The API refused the key: /);
      expect(await page.locator('#access-list li[data-endpoint="/v1/me"]').getAttribute('data-status')).toBe(
        'unauthorized',
      );
      // One message on the page, not one per panel: the key was tried once, on /v1/me.
      const shownMessages = await page.locator('p.message').evaluateAll((ps: BrowserElement[]) =>
        // biome-ignore lint/performance/useDomNodeTextContent: what is rendered.
        ps.filter((p) => p.checkVisibility()).map((p) => p.innerText),
      );
      expect(shownMessages).toHaveLength(1);
      // biome-ignore lint/performance/useDomNodeTextContent: what is rendered, not what hides in the DOM.
      const text = await page.evaluate(() => (globalThis as unknown as Browserside).document.body.innerText);
      // A sentence, not the API's code (which the closed list of what the page read keeps).
      expect(text).not.toContain('invalid_api_key');
      for (const section of ['controls', ...SECTIONS]) {
        expect(await page.locator(`#${section}`).isHidden(), section).toBe(true);
      }
      expect(seen.filter((r) => r.authorization !== undefined).map((r) => new URL(r.url).pathname)).toEqual([
        '/v1/me',
      ]);
    } finally {
      await context.close();
    }
  });
});
