/**
 * The typed client against the real server: `mds serve` started as a child
 * process on a temporary SQLite database seeded with `mds seed sample`, keys
 * made with the admin operations. Every method returns the documented shape
 * (checked against the server's own OpenAPI document), the iterators page
 * through whole windows, `csv: true` returns the CSV of the same records, and
 * errors arrive as MdsApiError with their code and request id.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  type GoldInterval,
  type HistoryRate,
  MdsApiError,
  MdsClient,
  type PremiumHistoryItem,
  type PremiumInterval,
  type RateInterval,
} from '../../packages/client/src/index.js';
import { generateKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { openStore } from '../../src/storage/open.js';
import { csvRows, flatten } from '../support/csv.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';

type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ??
  Ajv2020Module) as unknown as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: InstanceType<AjvClass>) => void;

const DAY = 86_400_000;
const END = new Date(Date.now() - DAY).toISOString().slice(0, 10);
const YEAR_START = new Date(Date.parse(END) - 365 * DAY).toISOString().slice(0, 10);
const MONTH_START = new Date(Date.parse(END) - 29 * DAY).toISOString().slice(0, 10);

/** A fetch that records every answer's status and X-Request-Id, and each request's Accept. */
function recordingFetch() {
  const seen: Array<{ url: string; status: number; requestId: string | null }> = [];
  const accepts: Array<string | null> = [];
  const fetchFn: typeof fetch = async (input, init) => {
    accepts.push(new Headers(init?.headers).get('accept'));
    const res = await fetch(input, init);
    seen.push({ url: String(input), status: res.status, requestId: res.headers.get('x-request-id') });
    return res;
  };
  return { seen, accepts, fetch: fetchFn };
}

/** Fails unless `csv` is the CSV of `records`: the header row their flattened fields, then each record, in order. */
function expectCsvOfRecords(csv: string, records: object[]): void {
  expect(records.length).toBeGreaterThan(0);
  const [header, ...rows] = csvRows(csv);
  const expected = records.map((r) => flatten(r as Record<string, unknown>));
  expect(header).toEqual(expected[0]!.map(([column]) => column));
  expect(rows).toEqual(expected.map((fields) => fields.map(([, value]) => value)));
}

describe('MdsClient against the real server', () => {
  let dir: string;
  let server: ServerProcess;
  let key: string;
  let assetsOnlyKey: string;
  let slowKey: string;
  let validate: (path: string, body: unknown) => void;
  const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
    vi.spyOn(console, m).mockImplementation(() => {}),
  );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-client-'));
    const db = join(dir, 'mds.sqlite');
    execFileSync(process.execPath, [CLI, 'seed', 'sample', '--db', db, '--end-date', END], {
      stdio: 'ignore',
    });

    const store = openStore(db);
    try {
      await store.migrate();
      const grantFor = async (rpm: number) => {
        const account = await createAccount(store, { name: 'Client test' });
        return createGrant(store, {
          accountId: account.id,
          plan: 'test',
          scopes: [...ENTITLEMENTS],
          monthlyRequestLimit: 1_000_000,
          requestsPerMinute: rpm,
          validFrom: Date.now() - DAY,
        });
      };
      const grant = await grantFor(100_000);
      key = (await createKey(store, { grantId: grant.id })).key;
      assetsOnlyKey = (await createKey(store, { grantId: grant.id, scopes: ['assets:read'] })).key;
      slowKey = (await createKey(store, { grantId: (await grantFor(2)).id })).key;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db });

    // Every 200 body is checked against the document the server itself serves.
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    validate = (path, body) => {
      const pointer = `/paths/${path.replaceAll('/', '~1')}/get/responses/200/content/application~1json/schema`;
      const check = ajv.compile({ $ref: `openapi.json#${pointer}` });
      expect(check(body), `${path}: ${JSON.stringify(check.errors)}`).toBe(true);
    };
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    for (const spy of consoleSpies) spy.mockRestore();
  });

  it('every method returns the documented { data, meta } of its endpoint', async () => {
    const client = new MdsClient({ baseUrl: server.url, apiKey: key });

    const assets = await client.listAssets({ type: 'currency' });
    validate('/v1/assets', assets);
    expect(assets.meta.type).toBe('currency');
    expect(assets.meta.count).toBe(assets.data.length);
    expect(assets.data.map((a) => a.code)).toContain('EUR');
    expect(new Set(assets.data.map((a) => a.type))).toEqual(new Set(['currency']));

    const latest = await client.getLatestRates({ currency: 'USD,EUR', source: 'official' });
    validate('/v1/rates/latest', latest);
    expect(latest.data.map((r) => [r.currency, r.source])).toEqual([
      ['EUR', 'official'],
      ['USD', 'official'],
    ]);
    expect(latest.meta).toMatchObject({ count: 2, source: 'official', quote: 'DZD' });

    const history = await client.getRatesHistory({ currency: 'EUR', from: YEAR_START, to: END, limit: 5 });
    validate('/v1/rates/history', history);
    expect(history.data).toHaveLength(5);
    expect(history.data[0]!.updatedAt.slice(0, 10)).toBe(END);
    expect(history.meta).toMatchObject({ currency: 'EUR', source: 'parallel', limit: 5, count: 5 });
    expect(typeof history.meta.nextCursor).toBe('string');

    // 1000 DZD at the official EUR sell rate: 1000 / sell, rounded once to the cent (docs/decisions.md 134).
    const converted = await client.convertAmount({
      from: 'DZD',
      to: 'EUR',
      amount: '1000',
      source: 'official',
    });
    validate('/v1/convert', converted);
    const sell = BigInt(Math.round(converted.data.rates[0]!.rate * 1e6));
    const cents = (2n * 100_000_000_000n + sell) / (2n * sell);
    expect(converted.data).toMatchObject({ from: 'DZD', to: 'EUR', source: 'official', amount: '1000' });
    expect(converted.data.rates.map((r) => [r.currency, r.side])).toEqual([['EUR', 'sell']]);
    expect(converted.data.resultDecimal).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);

    const premium = await client.getMarketPremium();
    validate('/v1/market/premium', premium);
    expect(premium.data.map((p) => p.currency)).toEqual(['EUR', 'USD', 'GBP', 'CAD']);
    const eur = premium.data[0]!;
    expect(eur.parallel.buy).toBeGreaterThan(eur.official.buy);
    expect(eur.premium.buy.percent).toBeGreaterThan(0);

    const gold = await client.getLatestGold();
    validate('/v1/gold/latest', gold);
    expect(gold.data.map((g) => g.purity)).toEqual(['18K', '21K', '24K']);
    expect(gold.meta).toMatchObject({ count: 3, unit: 'gram', quote: 'DZD' });
    // `at` (decisions 123): the records as of an instant, each with its `change` (decisions 122).
    const goldAt = await client.getLatestGold({ at: `${END}T09:30:00Z` });
    validate('/v1/gold/latest', goldAt);
    expect(goldAt.data.map((g) => g.updatedAt)).toEqual(Array(3).fill(`${END}T09:30:00.000Z`));
    expect(goldAt.data[0]!.change?.since.slice(0, 10)).not.toBe(END);
    const ratesAt = await client.getLatestRates({ currency: 'EUR', at: `${END}T09:00:00Z` });
    validate('/v1/rates/latest', ratesAt);
    expect(ratesAt.data[0]!.updatedAt).toBe(`${END}T09:00:00.000Z`);
    expect(Object.keys(ratesAt.data[0]!.change ?? {})).toEqual(['since', 'buy', 'sell']);

    const goldHistory = await client.getGoldHistory({ from: END, to: END });
    validate('/v1/gold/history', goldHistory);
    expect(goldHistory.data.map((g) => g.purity)).toEqual(['18K', '21K', '24K']);
    expect(goldHistory.meta.nextCursor).toBeNull();

    const me = await client.getMe();
    validate('/v1/me', me);
    expect(me.data.grant.requestsPerMinute).toBe(100_000);
    expect(me.data.key.scopes).toEqual([...ENTITLEMENTS].sort());
    expect(key.startsWith(me.data.key.prefix)).toBe(true);
    expect(me.data.usage.requestsUsed).toBeGreaterThanOrEqual(7);
  });

  it('paginateRateHistory yields every record of a year of EUR history once, newest first', async () => {
    const { seen, fetch } = recordingFetch();
    const client = new MdsClient({ baseUrl: server.url, apiKey: key, fetch });
    const query = { currency: 'EUR', from: YEAR_START, to: END, limit: 40 };

    const records: HistoryRate[] = [];
    for await (const record of client.paginateRateHistory(query)) records.push(record);

    const whole = await client.getRatesHistory({ ...query, limit: 1000 });
    expect(whole.meta.nextCursor).toBeNull();
    expect(whole.data).toHaveLength(366);
    expect(records).toEqual(whole.data);
    const times = records.map((r) => Date.parse(r.updatedAt));
    expect(new Set(times).size).toBe(records.length);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(records[0]!.updatedAt.slice(0, 10)).toBe(END);
    expect(records.at(-1)!.updatedAt.slice(0, 10)).toBe(YEAR_START);
    // ⌈366 / 40⌉ pages, then the one-page request above.
    expect(seen.map((s) => s.status)).toEqual(Array(11).fill(200));
    const cursors = seen.slice(0, 10).map((s) => new URL(s.url).searchParams.get('cursor'));
    expect(cursors[0]).toBeNull();
    expect(new Set(cursors.slice(1)).size).toBe(9);
  });

  it('the paginate…Intervals helpers yield every interval of the window, typed by the query (docs/decisions.md 133)', async () => {
    const client = new MdsClient({ baseUrl: server.url, apiKey: key });
    const window = { from: YEAR_START, to: END };
    const weeks: RateInterval[] = [];
    for await (const w of client.paginateRateIntervals({
      currency: 'EUR',
      interval: 'week',
      limit: 9,
      ...window,
    }))
      weeks.push(w);
    // `interval` in the query: the page's records are intervals, typed so, with no narrowing.
    const whole = await client.getRatesHistory({ currency: 'EUR', interval: 'week', limit: 1000, ...window });
    validate('/v1/rates/history', whole);
    expect(weeks).toEqual(whole.data);
    expect(weeks.length).toBeGreaterThanOrEqual(53);
    const mondays = weeks.map((w) => new Date(`${w.start}T00:00:00Z`).getUTCDay());
    expect(new Set(mondays)).toEqual(new Set([1]));
    expect(whole.data[0]!.buy.close).toBeGreaterThan(0);
    const months: GoldInterval[] = [];
    for await (const m of client.paginateGoldIntervals({ interval: 'month', limit: 5, ...window }))
      months.push(m);
    expect(months).toEqual((await client.getGoldHistory({ interval: 'month', limit: 1000, ...window })).data);
    const premium: PremiumInterval[] = [];
    for await (const p of client.paginatePremiumIntervals({
      currency: 'EUR',
      interval: 'month',
      limit: 4,
      ...window,
    }))
      premium.push(p);
    const premiumWhole = await client.getPremiumHistory({
      currency: 'EUR',
      interval: 'month',
      limit: 1000,
      ...window,
    });
    expect(premium).toEqual(premiumWhole.data);
    expect(premium[0]!.days).toBeGreaterThan(0);
    // The helpers of observations refuse `interval`, naming the one that pages intervals, before any request.
    await expect(client.paginateRateHistory({ currency: 'EUR', interval: 'week' }).next()).rejects.toThrow(
      /paginateRateIntervals/,
    );
  });

  it('paginateGoldHistory yields every gold record of the window once, in the server order', async () => {
    const client = new MdsClient({ baseUrl: server.url, apiKey: key });
    const from = new Date(Date.parse(END) - 29 * DAY).toISOString().slice(0, 10);
    const paged = [];
    for await (const record of client.paginateGoldHistory({ from, to: END, limit: 7 })) paged.push(record);
    const whole = await client.getGoldHistory({ from, to: END, limit: 1000 });
    expect(whole.data).toHaveLength(90);
    expect(paged).toEqual(whole.data);
  });

  it('getPremiumHistory returns one documented page of daily premiums with the summary of the whole window', async () => {
    const client = new MdsClient({ baseUrl: server.url, apiKey: key });
    const page = await client.getPremiumHistory({ currency: 'EUR', from: MONTH_START, to: END, limit: 5 });
    expectTypeOf(page.data).toEqualTypeOf<PremiumHistoryItem[]>();
    validate('/v1/market/premium/history', page);
    expect(page.data).toHaveLength(5);
    expect(page.meta).toMatchObject({ currency: 'EUR', quote: 'DZD', limit: 5, count: 5 });
    expect(page.meta.from.slice(0, 10)).toBe(MONTH_START);
    expect(page.meta.to.slice(0, 10)).toBe(END);
    expect(typeof page.meta.nextCursor).toBe('string');
    expect(page.data.map((i) => i.date)).toEqual(
      [0, 1, 2, 3, 4].map((n) => new Date(Date.parse(END) - n * DAY).toISOString().slice(0, 10)),
    );
    for (const item of page.data) {
      expect(item).toMatchObject({ currency: 'EUR', quote: 'DZD' });
      expect(item.premium.buy.percent).toBeGreaterThan(0);
      expect(item.parallel.updatedAt.slice(0, 10)).toBe(item.date);
      expect(item.official.updatedAt <= `${item.date}T23:59:59.999Z`).toBe(true);
    }
    // The summary counts the 30 days of the window, not the 5 of this page.
    expect(page.meta.summary?.days).toBe(30);
  });

  it('paginatePremiumHistory with limit=1 yields every day of the window once, newest first; every page has the window summary', async () => {
    const { seen, fetch } = recordingFetch();
    const client = new MdsClient({ baseUrl: server.url, apiKey: key, fetch });
    const query = { currency: 'EUR', from: MONTH_START, to: END, limit: 1 };

    const items: PremiumHistoryItem[] = [];
    for await (const item of client.paginatePremiumHistory(query)) items.push(item);

    const whole = await client.getPremiumHistory({ ...query, limit: 1000 });
    expect(whole.meta.nextCursor).toBeNull();
    expect(whole.data).toHaveLength(30);
    expect(items).toEqual(whole.data);
    const dates = items.map((i) => i.date);
    expect(new Set(dates).size).toBe(items.length);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates[0]).toBe(END);
    expect(dates.at(-1)).toBe(MONTH_START);
    // One request a day of the window (the last page has no next cursor), then the one-page request.
    expect(seen.map((s) => s.status)).toEqual(Array(31).fill(200));
    const cursors = seen.slice(0, 30).map((s) => new URL(s.url).searchParams.get('cursor'));
    expect(cursors[0]).toBeNull();
    expect(new Set(cursors.slice(1)).size).toBe(29);

    // The summary is the whole window's on a one-item page too, and agrees with the items iterated.
    const first = await client.getPremiumHistory(query);
    const middle = await client.getPremiumHistory({ ...query, cursor: cursors[15]! });
    expect(first.meta.summary).toEqual(whole.meta.summary);
    expect(middle.meta.summary).toEqual(whole.meta.summary);
    const summary = whole.meta.summary!;
    expect(summary.days).toBe(items.length);
    for (const side of ['buy', 'sell'] as const) {
      const percents = items.map((i) => i.premium[side].percent);
      const newestWith = (p: number) => items.find((i) => i.premium[side].percent === p)!.date;
      expect(summary[side].min).toEqual({
        percent: Math.min(...percents),
        date: newestWith(Math.min(...percents)),
      });
      expect(summary[side].max).toEqual({
        percent: Math.max(...percents),
        date: newestWith(Math.max(...percents)),
      });
      const mean = percents.reduce((a, b) => a + b, 0) / percents.length;
      // The API rounds the mean to 4 decimals, as it does percent.
      expect(Math.abs(summary[side].mean - mean)).toBeLessThanOrEqual(0.00005 + 1e-9);
    }
  });

  it('csv: true on each history method sends Accept: text/csv and returns the CSV of the JSON records', async () => {
    const { accepts, fetch } = recordingFetch();
    const client = new MdsClient({ baseUrl: server.url, apiKey: key, fetch });
    const window = { from: MONTH_START, to: END };

    const rates = { currency: 'EUR', source: 'official' as const, ...window, limit: 10 };
    const ratesCsv = await client.getRatesHistory(rates, { csv: true });
    const ratesJson = await client.getRatesHistory(rates);
    expectTypeOf(ratesCsv).toEqualTypeOf<string>();
    expectCsvOfRecords(ratesCsv, ratesJson.data);
    expect(csvRows(ratesCsv)[0]).toEqual([
      ...['currency', 'source', 'quote', 'buy', 'sell', 'updatedAt'],
      ...['quality_method', 'quality_organisations', 'quality_reporters', 'quality_excluded'],
      ...['quality_dispersionPercent', 'quality_confidence'],
    ]);

    const gold = { ...window, limit: 12 };
    const goldCsv = await client.getGoldHistory(gold, { csv: true });
    const goldJson = await client.getGoldHistory(gold, { csv: false });
    expectTypeOf(goldCsv).toEqualTypeOf<string>();
    expectCsvOfRecords(goldCsv, goldJson.data);
    expect(csvRows(goldCsv)[0]).toEqual([
      ...['purity', 'quote', 'unit', 'buy', 'sell', 'updatedAt'],
      ...['quality_method', 'quality_organisations', 'quality_reporters', 'quality_excluded'],
      ...['quality_dispersionPercent', 'quality_confidence'],
    ]);

    // The whole window in one page: limit=1000 covers any window of at most 366 days.
    const premium = { currency: 'EUR', ...window, limit: 1000 };
    const premiumCsv = await client.getPremiumHistory(premium, { csv: true });
    const premiumJson = await client.getPremiumHistory(premium);
    expectTypeOf(premiumCsv).toEqualTypeOf<string>();
    expectCsvOfRecords(premiumCsv, premiumJson.data);
    expect(csvRows(premiumCsv)).toHaveLength(1 + 30);
    expect(csvRows(premiumCsv)[0]).toEqual([
      'date',
      'currency',
      'quote',
      'parallel_buy',
      'parallel_sell',
      'parallel_updatedAt',
      'official_buy',
      'official_sell',
      'official_updatedAt',
      'premium_buy_amount',
      'premium_buy_percent',
      'premium_sell_amount',
      'premium_sell_percent',
    ]);

    expect(accepts).toEqual([
      'text/csv',
      'application/json',
      'text/csv',
      'application/json',
      'text/csv',
      'application/json',
    ]);
  });

  it('csv: true still throws the typed MdsApiError of a JSON error answer', async () => {
    const client = new MdsClient({ baseUrl: server.url, apiKey: key });
    const invalid = (await client
      .getPremiumHistory({ currency: 'EUR', from: END, to: MONTH_START }, { csv: true })
      .catch((e: unknown) => e)) as MdsApiError;
    expect(invalid).toBeInstanceOf(MdsApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(invalid.details?.length).toBeGreaterThan(0);
    expect(invalid.requestId).toMatch(/^req_/);

    const unknown = (await client
      .getRatesHistory({ currency: 'XYZ' }, { csv: true })
      .catch((e: unknown) => e)) as MdsApiError;
    expect(unknown).toMatchObject({ status: 404, code: 'not_found' });

    const narrow = new MdsClient({ baseUrl: server.url, apiKey: assetsOnlyKey });
    const denied = (await narrow.getGoldHistory({}, { csv: true }).catch((e: unknown) => e)) as MdsApiError;
    expect(denied).toBeInstanceOf(MdsApiError);
    expect(denied).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      details: [{ entitlement: 'gold:history:read' }],
    });
  });

  it('a 401 surfaces as MdsApiError with its code and request id, without a retry', async () => {
    const { seen, fetch } = recordingFetch();
    const unknownKey = generateKey('live').key;
    const client = new MdsClient({ baseUrl: server.url, apiKey: unknownKey, fetch });
    const err = await client.getMe().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MdsApiError);
    const e = err as MdsApiError;
    expect(e).toMatchObject({
      name: 'MdsApiError',
      status: 401,
      code: 'invalid_api_key',
      details: undefined,
    });
    expect(e.message).toBe('The API key is not valid.');
    expect(e.requestId).toMatch(/^req_/);
    expect(seen).toEqual([{ url: `${server.url}/v1/me`, status: 401, requestId: e.requestId }]);
    // The key appears nowhere: not in the error, not on the client, not in any log line.
    expect(inspect(e, { depth: 5 })).not.toContain(unknownKey);
    expect(JSON.stringify(e)).not.toContain(unknownKey);
    expect(inspect(client, { depth: 5, showHidden: true })).not.toContain(unknownKey);
    expect(JSON.stringify(client)).not.toContain(unknownKey);
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
  });

  it('403 and 400 carry the details of the API', async () => {
    const narrow = new MdsClient({ baseUrl: server.url, apiKey: assetsOnlyKey });
    const denied = (await narrow.getMarketPremium().catch((e: unknown) => e)) as MdsApiError;
    expect(denied).toBeInstanceOf(MdsApiError);
    expect(denied).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      details: [{ entitlement: 'market:premium:read' }],
    });

    const client = new MdsClient({ baseUrl: server.url, apiKey: key });
    const invalid = (await client
      .getRatesHistory({ currency: 'EUR', limit: 5000 })
      .catch((e: unknown) => e)) as MdsApiError;
    expect(invalid).toBeInstanceOf(MdsApiError);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      details: [{ parameter: 'limit', message: 'must be an integer from 1 to 1000' }],
    });
    expect(invalid.requestId).toMatch(/^req_/);
  });

  it('the message of a 403 insufficient_scope names the entitlement its details say is missing, and claims no plan', async () => {
    const narrow = new MdsClient({ baseUrl: server.url, apiKey: assetsOnlyKey });
    const denied = (await narrow
      .getPremiumHistory({ currency: 'EUR' })
      .catch((e: unknown) => e)) as MdsApiError;
    expect(denied).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      details: [{ entitlement: 'market:premium:history:read' }],
    });
    const named =
      'The key is not entitled to this operation. Missing entitlement: market:premium:history:read; ' +
      'a key with that scope, on a plan that gives it, is needed.';
    expect(denied.message).toBe(named);
    // What an uncaught one prints.
    expect(inspect(denied)).toContain(`MdsApiError: ${named}`);
  });

  it('an insufficient_scope whose details name no entitlement keeps its message; two are both named', async () => {
    const sent = 'The key is not entitled to this operation.';
    const messageOf = async (details: unknown) => {
      const fetch: typeof globalThis.fetch = async () =>
        new Response(
          JSON.stringify({
            error: { status: 403, code: 'insufficient_scope', message: sent, details },
            meta: { requestId: 'req_test' },
          }),
          { status: 403, headers: { 'content-type': 'application/json' } },
        );
      const client = new MdsClient({ baseUrl: 'http://mds.invalid', apiKey: 'mds_test_key', fetch });
      return ((await client.getMe().catch((e: unknown) => e)) as MdsApiError).message;
    };
    expect(await messageOf(undefined)).toBe(sent);
    expect(await messageOf([{ parameter: 'currency' }])).toBe(sent);
    expect(await messageOf([{ entitlement: 'gold:history:read' }, { entitlement: 'usage:read' }])).toBe(
      `${sent} Missing entitlements: gold:history:read, usage:read; a key with those scopes, on a plan that gives it, is needed.`,
    );
  });

  it('with maxRetries = 0 a 429 surfaces at once as rate_limited with Retry-After and request id', async () => {
    const { seen, fetch } = recordingFetch();
    const client = new MdsClient({ baseUrl: server.url, apiKey: slowKey, fetch, maxRetries: 0 });
    // The grant allows 2 requests a minute; whichever minute we are in, a 429 comes within 5 calls.
    let err: unknown;
    for (let i = 0; i < 5 && err === undefined; i++) {
      await client.getLatestGold().catch((e: unknown) => {
        err = e;
      });
    }
    expect(err).toBeInstanceOf(MdsApiError);
    const e = err as MdsApiError;
    expect(e).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(e.retryAfter).toBeGreaterThanOrEqual(1);
    expect(e.retryAfter).toBeLessThanOrEqual(60);
    expect(e.requestId).toMatch(/^req_/);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ status: 429, requestId: e.requestId });
    expect(seen.filter((s) => s.status === 429)).toHaveLength(1);
  });
});
