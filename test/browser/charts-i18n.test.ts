/**
 * `/charts` as a free-plan customer sees it, in English, French and Arabic, in
 * Debian's chromium against a real `mds serve` process (docs/decisions.md, 66):
 *
 * - a key of the free plan (config/plans.json: the latest parallel and official
 *   rates, the asset directory, usage) sees a latest-rates panel with the API's
 *   values and the API's change since the previous day, a converter both
 *   ways, and one line naming what the plan lacks instead of a panel each; the
 *   page asks only for what the key may read, within the plan's 10 a minute;
 * - the language follows navigator.languages, or the switch on the page
 *   (remembered in localStorage); Arabic is right to left; currency names are
 *   the asset directory's; figures and dates are in the reader's locale;
 * - the parallel rate, published by five organisations' consensus, says its
 *   confidence and its organisations in words, with a note on what they mean;
 *   the official rate, an import, says nothing of the kind (docs/decisions.md 146);
 * - axe-core finds no serious or critical violation in any language, and the
 *   Content-Security-Policy refuses inline scripts (axe goes in through the
 *   DevTools protocol instead).
 *
 * Screenshots: docs/screenshots/charts-free-{en,fr,ar}.png, shown in README.md.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { findChromium, launchChromium, offOrigin, recordRequests } from '../support/browser.js';
import { mds } from '../support/cli.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';
import { publishStreetRate, STREET_QUALITY, STREET_RATE_ENV, yesterday } from '../support/street-rate.js';

const SCREENSHOTS = resolve('docs/screenshots');
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";
/** The panels that need more than the free plan holds. */
const FOLDED = ['rates', 'premium-history', 'premium', 'gold'];
/** A group of thousands or a decimal comma in French: a space, a no-break space or a narrow one. */
const FR_SPACE = '[\\u0020\\u00a0\\u202f]';

const chromiumPath = findChromium();

interface Asset {
  code: string;
  names: Record<'en' | 'fr' | 'ar', string>;
}
interface Rate {
  currency: string;
  buy: number;
  sell: number;
  change: {
    since: string;
    buy: { amount: number; percent: number };
    sell: { amount: number; percent: number };
  } | null;
  updatedAt: string;
}
interface Violation {
  id: string;
  impact: string | null;
  nodes: number;
}
/** The few browser globals used here (this project's TypeScript has no DOM types). */
interface Element {
  textContent: string | null;
  hidden: boolean;
  children: ArrayLike<Element>;
  getAttribute(name: string): string | null;
  checkVisibility(): boolean;
}
interface Browserside {
  localStorage: { getItem(key: string): string | null };
  axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> };
}

describe.skipIf(chromiumPath === null)('the charts page in English, French and Arabic', () => {
  let dir: string;
  let db: string;
  let account: string;
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;
  /** A roomy key the test itself reads the API with, so that the free keys' minute stays the page's. */
  let reference: string;
  let assets: Asset[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-charts-i18n-'));
    db = join(dir, 'mds.sqlite');
    // Ending yesterday, so that the consensus published now is the latest parallel rate.
    const seeded = await mds(['seed', 'sample', '--days', '10', '--end-date', yesterday(), '--json'], { db });
    expect(seeded.status, seeded.stderr).toBe(0);
    account = (await mds(['accounts', 'create', '--name', 'Free', '--json'], { db })).json().id;
    const grant = await mds(
      ['grants', 'create', '--account', account, '--plan', 'pro', '--scopes', ENTITLEMENTS.join(',')].concat([
        '--monthly-limit',
        '100000',
        '--rpm',
        '1000',
        '--json',
      ]),
      { db },
    );
    expect(grant.status, grant.stderr).toBe(0);
    reference = (await mds(['keys', 'create', '--grant', grant.json().id, '--json'], { db })).json().key;
    [server, browser] = await Promise.all([
      spawnServer({ db, env: STREET_RATE_ENV }),
      launchChromium(chromiumPath!),
    ]);
    origin = new URL(server.url).origin;
    const street = await publishStreetRate(server, db, reference);
    expect(street).toMatchObject({ buy: 260, sell: 262, quality: STREET_QUALITY });
    const directory = await getJson(`${origin}/v1/assets?type=currency`, reference);
    expect(directory.status).toBe(200);
    assets = directory.body.data;
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A key of its own free-plan grant: the plan's scopes and limits (10 a minute), as config/plans.json gives them. */
  async function freeKey(): Promise<string> {
    const grant = await mds(['grants', 'create', '--account', account, '--plan', 'free', '--json'], { db });
    expect(grant.status, grant.stderr).toBe(0);
    expect(grant.json().grant.entitlements).toEqual([
      'assets:read',
      'rates:official:latest:read',
      'rates:parallel:latest:read',
      'usage:read',
    ]);
    expect(grant.json().grant.requestsPerMinute).toBe(10);
    const key = await mds(['keys', 'create', '--grant', grant.json().id, '--json'], { db });
    expect(key.status, key.stderr).toBe(0);
    return key.json().key;
  }

  async function openCharts(locale: string) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1200, height: 900 },
      locale,
    });
    const seen = recordRequests(context);
    const page: Page = await context.newPage();
    // Errors of the page's scripts and Content-Security-Policy reports, to be none.
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const res = await page.goto(`${origin}/charts`);
    expect(res?.headers()['content-security-policy']).toBe(PAGE_CSP);
    return { context, page, seen, problems };
  }

  async function connect(page: Page, key: string) {
    await page.fill('#api-key', key);
    await page.click('#connect');
    await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 15_000 });
  }

  /** axe-core over the whole page: no violation of impact serious or critical. */
  async function expectAccessible(page: Page) {
    // The page's policy refuses inline scripts (script-src 'self'), axe's included.
    await expect(page.addScriptTag({ content: axe.source })).rejects.toThrow(/Content Security Policy/);
    await page.evaluate(axe.source);
    const violations = await page.evaluate(async () => {
      const found = await (globalThis as unknown as Browserside).axe.run();
      return found.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    expect(violations.filter((v: Violation) => v.impact === 'serious' || v.impact === 'critical')).toEqual(
      [],
    );
  }

  async function latest(source: string): Promise<Rate> {
    const res = await getJson(`${origin}/v1/rates/latest?source=${source}&currency=EUR`, reference);
    expect(res.status).toBe(200);
    return res.body.data[0];
  }

  const cellText = (page: Page, source: string, selector: string) =>
    page.locator(`#latest-rows tr[data-source="${source}"] ${selector}`).textContent();

  /** The parallel rate's badge: its confidence and organisations as the page says them, and the note. */
  async function quality(page: Page) {
    const badge = page.locator('#latest-rows tr[data-source="parallel"] [data-testid="quality"]');
    return {
      confidence: await badge.locator('[data-testid="confidence"]').textContent(),
      level: await badge.locator('[data-testid="confidence"]').getAttribute('data-confidence'),
      organisations: await badge.locator('[data-testid="organisations"]').textContent(),
      count: await badge.getAttribute('data-organisations'),
      // The note's words before its colon, when it shows.
      note:
        (await page.isVisible('#quality-note')) &&
        (await page.textContent('#quality-note'))!.split(':')[0]!.trim(),
      link: await page.getAttribute('#quality-note a', 'href'),
      describedBy: await page.getAttribute('#latest-table', 'aria-describedby'),
      imports: await page.locator('#latest-rows tr:not([data-source="parallel"]) .quality').count(),
    };
  }

  it('shows a free-plan key its latest rates, a converter, and one line for what the plan lacks', async () => {
    const key = await freeKey();
    const { context, page, seen, problems } = await openCharts('en-US');
    try {
      await connect(page, key);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(await page.getAttribute('html', 'dir')).toBe('ltr');
      expect(await page.inputValue('#currency')).toBe('EUR');

      // The latest-rates panel: the two families the plan reads, with the API's values, for reading.
      expect(await page.getAttribute('#latest', 'data-state')).toBe('ready');
      expect(
        await page
          .locator('#latest-rows tr')
          .evaluateAll((trs: Element[]) => trs.map((tr) => tr.getAttribute('data-source'))),
      ).toEqual(['parallel', 'official']);
      const rates = { parallel: await latest('parallel'), official: await latest('official') };
      for (const [source, rate] of Object.entries(rates)) {
        for (const side of ['buy', 'sell'] as const) {
          const cell = page.locator(
            `#latest-rows tr[data-source="${source}"] td:not(.change)[data-side="${side}"]`,
          );
          expect(await cell.getAttribute('data-value')).toBe(String(rate[side]));
          expect(await cell.textContent()).toMatch(/^\d{1,3}(,\d{3})*\.\d{2,4}$/);
        }
        expect(await cellText(page, source, 'th')).toBe(
          source === 'parallel' ? 'Parallel market High confidence 5 organisations' : 'Official',
        );
        // A date for reading, not the API's ISO string.
        expect(await cellText(page, source, 'td:last-child')).not.toContain(rate.updatedAt.slice(0, 10));
      }
      // The consensus's quality in words beside the parallel rate; nothing beside the official one (an import).
      expect(await quality(page)).toEqual({
        confidence: 'High confidence',
        level: 'high',
        organisations: '5 organisations',
        count: '5',
        note: 'Beside the parallel rate',
        link: '/methodology.md',
        describedBy: 'quality-note',
        imports: 0,
      });

      // The change since the previous day is the API's `change` (decisions 122, 125): no history needed.
      for (const [source, rate] of Object.entries(rates)) {
        expect(rate.change, source).not.toBeNull();
        for (const side of ['buy', 'sell'] as const) {
          const change = page.locator(
            `#latest-rows tr[data-source="${source}"] td.change[data-side="${side}"]`,
          );
          expect(await change.getAttribute('data-value')).toBe(String(rate.change![side].amount));
          expect(await change.getAttribute('data-percent')).toBe(String(rate.change![side].percent));
          expect(await change.getAttribute('data-since')).toBe(rate.change!.since);
        }
      }
      expect(
        await page
          .locator('#latest-table th.change')
          .evaluateAll((ths: Element[]) => ths.map((th) => th.hidden)),
      ).toEqual([false, false]);
      expect(await page.textContent('#latest-note')).toBe('');

      // The converter shows what /v1/convert answers: 100 EUR into dinars in each family, then 100 DZD
      // into euros; each question asked once (going back to the first is answered from memory).
      const converted = () =>
        page
          .locator('#converter-rows tr')
          .evaluateAll((trs: Element[]) =>
            trs.map((tr) => [tr.getAttribute('data-source'), tr.children[1]!.getAttribute('data-value')]),
          );
      const fromApi = async (from: string, to: string) =>
        Promise.all(
          ['parallel', 'official'].map(async (source) => {
            const res = await getJson(
              `${origin}/v1/convert?from=${from}&to=${to}&amount=100&source=${source}`,
              reference,
            );
            expect(res.status).toBe(200);
            return [source, String(res.body.data.result)];
          }),
        );
      const settled = () => page.waitForSelector('#converter[data-state="ready"]', { state: 'attached' });
      expect(await converted()).toEqual(await fromApi('EUR', 'DZD'));
      expect(await page.textContent('#converter-rows tr[data-source="parallel"] td')).toMatch(
        /^DZD\s?\d{1,3}(,\d{3})*\.\d{2}$/,
      );
      expect(await page.textContent('#converter-rows tr[data-source="parallel"] td:last-child')).toBe(
        `${rates.parallel.buy.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })} (buy)`,
      );
      await page.selectOption('#convert-direction', 'from');
      await settled();
      expect(await converted()).toEqual(await fromApi('DZD', 'EUR'));
      expect(await page.textContent('#converter-rows tr[data-source="official"] td')).toMatch(
        /^€\d+\.\d{2}$/,
      );
      await page.fill('#convert-amount', '-5');
      await settled();
      expect(await page.textContent('#converter-message')).toBe(
        'Type an amount more than 0 and at most 1,000,000,000, with at most 8 decimals, such as 100 or 250.50.',
      );
      expect(await page.locator('#converter-rows tr').count()).toBe(0);
      await page.selectOption('#convert-direction', 'to');
      await page.fill('#convert-amount', '100');
      await settled();
      expect(await converted()).toEqual(await fromApi('EUR', 'DZD'));

      // What the plan lacks: folded into one line, no panel and no error box each.
      for (const id of FOLDED) {
        expect(await page.getAttribute(`#${id}`, 'data-state'), id).toBe('folded');
        expect(await page.isHidden(`#${id}`), id).toBe(true);
      }
      expect(await page.textContent('#lacks')).toBe(
        'Not shown, as this key (plan free) may not read them: the latest money-transfer rates ' +
          '(rates:transfer:latest:read), the rate history ' +
          '(rates:parallel:history:read, rates:official:history:read, rates:transfer:history:read), ' +
          'the market premium (market:premium:read), the premium history (market:premium:history:read), ' +
          'the latest gold references (gold:latest:read), and the gold history (gold:history:read).',
      );
      const shownMessages = await page
        .locator('p.message')
        .evaluateAll((ps: Element[]) => ps.filter((p) => p.checkVisibility()).map((p) => p.textContent));
      expect(shownMessages).toEqual([]);
      expect(await page.textContent('#me-plan')).toBe('free');
      expect(await page.textContent('#me-remaining')).toMatch(/^[\d,]+ of 10,000 requests$/);

      // It asked only for what the key may read, within the plan's 10 a minute: none refused.
      const asked = seen.filter((r) => r.authorization !== undefined);
      expect(
        asked
          .map((r) => new URL(r.url))
          .map((u) => `${u.pathname}${u.search}`)
          .sort(),
      ).toEqual([
        '/v1/assets?type=currency',
        '/v1/convert?from=DZD&to=EUR&amount=100&source=official',
        '/v1/convert?from=DZD&to=EUR&amount=100&source=parallel',
        '/v1/convert?from=EUR&to=DZD&amount=100&source=official',
        '/v1/convert?from=EUR&to=DZD&amount=100&source=parallel',
        '/v1/me',
        '/v1/rates/latest?source=official&currency=EUR',
        '/v1/rates/latest?source=parallel&currency=EUR',
      ]);
      expect(asked.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
      expect(offOrigin(seen, origin)).toEqual([]);

      await expectAccessible(page);
      await page.screenshot({ path: join(SCREENSHOTS, 'charts-free-en.png'), fullPage: true });

      expect(problems.filter((p) => !/Content Security Policy/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('speaks French to a browser that asks for it, with the asset directory’s French names', async () => {
    const key = await freeKey();
    const { context, page, problems } = await openCharts('fr-FR');
    try {
      await connect(page, key);
      expect(await page.getAttribute('html', 'lang')).toBe('fr');
      expect(await page.getAttribute('html', 'dir')).toBe('ltr');
      expect(await page.title()).toBe('Graphiques – Market Data Service (DZD)');
      expect(await page.textContent('h1')).toBe('Market Data Service (DZD) – graphiques');
      expect(await page.textContent('#latest-title')).toBe('Derniers cours (DZD)');
      expect(await page.textContent('label[for="api-key"]')).toBe('Clé d’API');
      expect(await cellText(page, 'parallel', 'th')).toBe(
        'Marché parallèle Confiance élevée 5 organisations',
      );
      expect(await quality(page)).toEqual({
        confidence: 'Confiance élevée',
        level: 'high',
        organisations: '5 organisations',
        count: '5',
        note: 'À côté du cours parallèle',
        link: '/methodology.md',
        describedBy: 'quality-note',
        imports: 0,
      });
      expect(await page.inputValue('#language')).toBe('fr');
      const options = await page.locator('#currency option').allTextContents();
      expect(options).toEqual(assets.map((a) => `${a.code} – ${a.names.fr}`));
      expect(options).toContain('USD – Dollar américain');

      // French figures: a decimal comma, thousands apart; dates as a French reader writes them.
      const buy = cellText(page, 'parallel', 'td:not(.change)[data-side="buy"]');
      expect(await buy).toMatch(new RegExp(`^\\d{1,3}(${FR_SPACE}\\d{3})*,\\d{2,4}$`));
      expect(await page.textContent('#me-remaining')).toMatch(
        new RegExp(`^[\\d${FR_SPACE.slice(1, -1)}]+ requêtes sur 10${FR_SPACE}000$`),
      );
      const updated = page.locator('#latest-rows tr[data-source="parallel"] td:last-child');
      const iso = (await updated.getAttribute('data-value'))!;
      const french = await page.evaluate(
        (at) =>
          new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)),
        iso,
      );
      expect(await updated.textContent()).toBe(french);
      expect(french).not.toContain(iso.slice(0, 10));
      expect(await page.textContent('#converter-rows tr[data-source="parallel"] td')).toMatch(
        new RegExp(`^\\d{1,3}(${FR_SPACE}\\d{3})*,\\d{2}${FR_SPACE}DZD$`),
      );
      // The figure shown is the API's: an answer changed on its way in is what the page shows.
      await page.route('**/v1/convert?*', async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        body.data.result = 4242.42;
        body.data.resultDecimal = '4242.42';
        await route.fulfill({ response: res, json: body });
      });
      await page.fill('#convert-amount', '7');
      await page.waitForSelector('#converter[data-state="ready"]', { state: 'attached' });
      for (const source of ['parallel', 'official'])
        expect(await page.textContent(`#converter-rows tr[data-source="${source}"] td`)).toMatch(
          new RegExp(`^4${FR_SPACE}242,42${FR_SPACE}DZD$`),
        );
      await page.unroute('**/v1/convert?*');
      // Back to 100: answered from memory, without a request, with the API's own figures.
      const before = await page
        .locator('#converter-rows tr[data-source="parallel"] td')
        .first()
        .textContent();
      await page.fill('#convert-amount', '100');
      await page.waitForSelector('#converter[data-state="ready"]', { state: 'attached' });
      const after = await page.locator('#converter-rows tr[data-source="parallel"] td').first().textContent();
      expect(after).not.toBe(before);
      expect(after).toMatch(new RegExp(`^\\d{1,3}(${FR_SPACE}\\d{3})*,\\d{2}${FR_SPACE}DZD$`));
      expect(await page.textContent('#latest-note')).toBe('');
      expect(await page.textContent('#lacks')).toMatch(
        /^Non affiché, car cette clé \(formule free\) ne peut pas les lire : les derniers cours du transfert d’argent \(rates:transfer:latest:read\), /,
      );

      await expectAccessible(page);
      await page.screenshot({ path: join(SCREENSHOTS, 'charts-free-fr.png'), fullPage: true });
      expect(problems.filter((p) => !/Content Security Policy/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('switches to Arabic, right to left, without a request, and remembers the choice', async () => {
    const key = await freeKey();
    const { context, page, seen, problems } = await openCharts('en-US');
    try {
      await connect(page, key);
      const before = seen.length;
      await page.selectOption('#language', 'ar');
      await page.waitForSelector('html[lang="ar"][dir="rtl"]', { state: 'attached' });
      expect(seen.length).toBe(before);

      expect(await page.textContent('h1')).toBe('خدمة بيانات السوق (DZD) – الرسوم البيانية');
      expect(await page.textContent('#latest-title')).toBe('آخر الأسعار (DZD)');
      expect(await cellText(page, 'parallel', 'th')).toBe('السوق الموازية ثقة عالية 5 مؤسسات');
      expect(await quality(page)).toEqual({
        confidence: 'ثقة عالية',
        level: 'high',
        organisations: '5 مؤسسات',
        count: '5',
        note: 'بجانب سعر السوق الموازية',
        link: '/methodology.md',
        describedBy: 'quality-note',
        imports: 0,
      });
      expect(await cellText(page, 'official', 'th')).toBe('الرسمي');
      expect(await page.locator('#currency option').allTextContents()).toEqual(
        assets.map((a) => `${a.code} – ${a.names.ar}`),
      );
      expect(await page.textContent('#lacks')).toMatch(
        /^غير معروض، لأن هذا المفتاح \(الباقة free\) لا يحق له قراءة: /,
      );
      expect(await page.textContent('#latest-note')).toBe('');
      // The values are the same; only their text changed.
      const rate = await latest('parallel');
      expect(
        await page.getAttribute(
          '#latest-rows tr[data-source="parallel"] td:not(.change)[data-side="buy"]',
          'data-value',
        ),
      ).toBe(String(rate.buy));
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as Browserside).localStorage.getItem('mds-charts-language'),
        ),
      ).toBe('ar');

      await expectAccessible(page);
      await page.screenshot({ path: join(SCREENSHOTS, 'charts-free-ar.png'), fullPage: true });

      // The choice outlives the page (the key does not: it was not to be remembered).
      await page.reload();
      await page.waitForSelector('html[lang="ar"][dir="rtl"]', { state: 'attached' });
      expect(await page.textContent('h1')).toBe('خدمة بيانات السوق (DZD) – الرسوم البيانية');
      expect(await page.inputValue('#language')).toBe('ar');
      expect(await page.inputValue('#api-key')).toBe('');
      await page.selectOption('#language', 'en');
      await page.waitForSelector('html[lang="en"][dir="ltr"]', { state: 'attached' });
      expect(await page.textContent('h1')).toBe('Market Data Service (DZD) – charts');
      expect(problems.filter((p) => !/Content Security Policy/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('takes the first of the browser’s languages it speaks, else English', async () => {
    for (const [locale, lang, dir, heading] of [
      ['ar-DZ', 'ar', 'rtl', 'خدمة بيانات السوق (DZD) – الرسوم البيانية'],
      ['de-DE', 'en', 'ltr', 'Market Data Service (DZD) – charts'],
    ] as const) {
      const { context, page, problems } = await openCharts(locale);
      try {
        await page.waitForSelector(`html[lang="${lang}"][dir="${dir}"]`, {
          state: 'attached',
          timeout: 10_000,
        });
        expect(await page.textContent('h1')).toBe(heading);
        // Before a key: the form alone, no panel, no message.
        for (const id of ['controls', 'latest', 'converter', ...FOLDED])
          expect(await page.isHidden(`#${id}`)).toBe(true);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
