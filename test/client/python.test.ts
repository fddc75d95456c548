/**
 * The Python client (packages/python) as a customer uses it: installed with
 * `pip install <path>` into a new venv of the machine's python3, offline, then
 * driven by Python scripts against the real server (`mds serve` on sample
 * data, keys made with the admin operations) and, for retries, against a tiny
 * scripted HTTP server in this process (the real limits run on another
 * process's wall clock). Each script prints JSON; the assertions are here.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { openStore } from '../../src/storage/open.js';
import { csvRows, flatten } from '../support/csv.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { customerEnv, run, runOk, venvWithClient } from '../support/python.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';

const DAY = 86_400_000;
const END = new Date(Date.now() - DAY).toISOString().slice(0, 10);
const YEAR_START = new Date(Date.parse(END) - 365 * DAY).toISOString().slice(0, 10);
const MONTH_START = new Date(Date.parse(END) - 29 * DAY).toISOString().slice(0, 10);
const CHECKS = join(process.cwd(), 'test', 'client', 'python');

// biome-ignore lint/suspicious/noExplicitAny: the scripts' JSON is read loosely
type Json = any;

describe('the Python client (mds_client)', () => {
  let dir: string;
  let python: string;
  let server: ServerProcess;
  let key: string;
  let assetsOnlyKey: string;

  /** Runs a Python script with the installed client; returns what it printed, parsed as JSON. */
  async function py(code: string, env: Record<string, string> = {}): Promise<Json> {
    const out = await runOk(python, ['-c', code], {
      cwd: dir,
      env: customerEnv({ MDS_BASE_URL: server.url, MDS_API_KEY: key, ...env }),
      timeout: 60_000,
    });
    return JSON.parse(out);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-python-'));
    const db = join(dir, 'mds.sqlite');
    const installed = venvWithClient(dir);
    execFileSync(process.execPath, [CLI, 'seed', 'sample', '--db', db, '--end-date', END], {
      stdio: 'ignore',
    });
    const store = openStore(db);
    try {
      await store.migrate();
      const account = await createAccount(store, { name: 'Python client test' });
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 100_000,
        validFrom: Date.now() - DAY,
      });
      key = (await createKey(store, { grantId: grant.id })).key;
      assetsOnlyKey = (await createKey(store, { grantId: grant.id, scopes: ['assets:read'] })).key;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db });
    python = await installed;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is installed typed: py.typed, Python 3.9 syntax, every function annotated, hints that evaluate', async () => {
    expect(await py(readFileSync(join(CHECKS, 'typing_check.py'), 'utf8'))).toEqual([]);
    const site = (
      await runOk(python, ['-c', 'import mds_client, os; print(os.path.dirname(mds_client.__file__))'], {
        env: customerEnv(),
      })
    ).trim();
    await runOk(python, ['-m', 'compileall', '-q', site], { env: customerEnv() });
    // mypy --strict when the machine has it (it is not a dependency of the project).
    const mypy = await run('python3', ['-m', 'mypy', '--version'], { env: customerEnv() });
    if (mypy.code === 0) {
      await runOk('python3', ['-m', 'mypy', '--strict', '--python-version', '3.9', join(site)], {
        env: customerEnv(),
        timeout: 120_000,
      });
    }
  });

  it('its TypedDicts mirror the response schemas of the served OpenAPI document, and it covers every /v1 operation', async () => {
    const out = await runOk(python, [join(CHECKS, 'schemas_check.py'), server.url], { env: customerEnv() });
    expect(JSON.parse(out)).toEqual([]);
  });

  it('every operation returns the API’s { data, meta }, configured from MDS_BASE_URL and MDS_API_KEY', async () => {
    const out = await py(`
import json
from datetime import date
from decimal import Decimal
from mds_client import MdsClient
mds = MdsClient()
print(json.dumps({
  "repr": repr(mds),
  "assets": mds.list_assets(type="currency"),
  "latest": mds.get_latest_rates(currency=["USD", "EUR"], source="official"),
  "history": mds.get_rates_history("EUR", from_=date.fromisoformat("${YEAR_START}"), to="${END}", limit=5),
  "convert": mds.convert_amount("EUR", "DZD", Decimal("100.50")),
  "premium": mds.get_market_premium(),
  "premiumHistory": mds.get_premium_history("EUR", from_="${MONTH_START}", to="${END}", limit=5),
  "gold": mds.get_latest_gold(),
  "goldHistory": mds.get_gold_history(from_="${END}", to="${END}"),
  "me": mds.get_me(),
  "daily": mds.get_daily_usage(from_="${END}", to="${END}"),
}))`);
    expect(out.repr).toBe(`MdsClient(base_url='${server.url}', max_attempts=4, max_wait=60.0)`);
    expect(out.repr).not.toContain(key);
    expect(out.assets.meta).toMatchObject({ type: 'currency', count: out.assets.data.length });
    expect(out.assets.data.map((a: Json) => a.code)).toContain('EUR');
    expect(out.latest.data.map((r: Json) => [r.currency, r.source])).toEqual([
      ['EUR', 'official'],
      ['USD', 'official'],
    ]);
    expect(out.history.data).toHaveLength(5);
    expect(out.history.data[0].updatedAt.slice(0, 10)).toBe(END);
    expect(out.history.meta).toMatchObject({ currency: 'EUR', source: 'parallel', limit: 5, count: 5 });
    expect(out.history.meta.from.slice(0, 10)).toBe(YEAR_START);
    expect(typeof out.history.meta.nextCursor).toBe('string');
    // 100.5 × the EUR buy rate, rounded once to the cent (docs/decisions.md 134).
    const [eur] = out.convert.data.rates;
    expect(out.convert.data).toMatchObject({ from: 'EUR', to: 'DZD', source: 'parallel', amount: '100.5' });
    expect(eur).toMatchObject({ currency: 'EUR', side: 'buy' });
    const cents = (BigInt(Math.round(eur.rate * 1e6)) * 1005n + 50_000n) / 100_000n;
    expect(out.convert.data.resultDecimal).toBe(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);
    expect(out.premium.data.map((p: Json) => p.currency)).toEqual(['EUR', 'USD', 'GBP', 'CAD']);
    expect(out.premiumHistory.meta).toMatchObject({ currency: 'EUR', limit: 5, count: 5 });
    expect(out.premiumHistory.meta.summary.days).toBe(30);
    expect(out.gold.data.map((g: Json) => g.purity)).toEqual(['18K', '21K', '24K']);
    expect(out.goldHistory.meta.nextCursor).toBeNull();
    expect(out.me.data.key.scopes).toEqual([...ENTITLEMENTS].sort());
    expect(key.startsWith(out.me.data.key.prefix)).toBe(true);
    // A window of one UTC day (yesterday): one item, whatever was used.
    expect(out.daily.data).toMatchObject({ from: END, to: END });
    expect(out.daily.data.days).toHaveLength(1);
  });

  it('get_latest_rates and get_latest_gold take `at` (a string, or an aware datetime sent in UTC) and carry `change`', async () => {
    const out = await py(`
import json
from datetime import datetime, timedelta, timezone
from mds_client import MdsClient
mds = MdsClient()
algiers = timezone(timedelta(hours=1))
at = datetime.fromisoformat("${END}T10:30:00").replace(tzinfo=algiers)
try:
    mds.get_latest_gold(at=datetime(2026, 1, 1))
    naive = "sent"
except ValueError as e:
    naive = str(e)
print(json.dumps({
  "latest": mds.get_latest_rates(currency="EUR"),
  "at": mds.get_latest_rates(currency="EUR", at=at),
  "gold": mds.get_latest_gold(at="${END}T09:30:00Z"),
  "naive": naive,
}))`);
    // The sample's parallel rates are at 09:00Z each day: 10:30+01:00 is 09:30Z, after the END one.
    expect(out.at.data[0].updatedAt).toBe(`${END}T09:00:00.000Z`);
    expect(out.at.data[0].change.since.slice(0, 10)).toBe(
      new Date(Date.parse(END) - DAY).toISOString().slice(0, 10),
    );
    expect(Object.keys(out.latest.data[0].change)).toEqual(['since', 'buy', 'sell']);
    expect(out.gold.data.map((g: Json) => g.updatedAt)).toEqual(Array(3).fill(`${END}T09:30:00.000Z`));
    expect(Object.keys(out.gold.data[0])).toContain('change');
    expect(out.naive).toContain('time zone');
  });

  it('the paginate_* iterators yield every record of a window once, page after page, following meta.nextCursor', async () => {
    const out = await py(`
import json
from mds_client import MdsClient

class Counting(MdsClient):
    """Counts the pages fetched and the cursors sent."""
    def __init__(self) -> None:
        super().__init__()
        self.cursors = []
    def _json(self, path, query):
        self.cursors.append(query.get("cursor"))
        return super()._json(path, query)

mds = Counting()
# An iterator asks for nothing until its first item is read.
unread = mds.paginate_gold_history(limit=13)
asked_before_read = len(mds.cursors)
first_gold = next(unread)
asked_after_read = len(mds.cursors)
mds.cursors.clear()
rates = list(mds.paginate_rate_history("EUR", from_="${YEAR_START}", to="${END}", limit=40))
rate_cursors = mds.cursors[:]
mds.cursors.clear()
premium = list(mds.paginate_premium_history("EUR", from_="${MONTH_START}", to="${END}", limit=7))
premium_pages = len(mds.cursors)
gold = list(mds.paginate_gold_history(from_="${MONTH_START}", to="${END}", limit=13))
print(json.dumps({
  "askedBeforeRead": asked_before_read, "askedAfterRead": asked_after_read, "firstGold": first_gold,
  "rates": rates, "rateCursors": rate_cursors,
  "wholeRates": mds.get_rates_history("EUR", from_="${YEAR_START}", to="${END}", limit=1000)["data"],
  "premium": premium, "premiumPages": premium_pages,
  "wholePremium": mds.get_premium_history("EUR", from_="${MONTH_START}", to="${END}", limit=1000)["data"],
  "gold": gold,
  "wholeGold": mds.get_gold_history(from_="${MONTH_START}", to="${END}", limit=1000)["data"],
}))`);
    expect(out.askedBeforeRead).toBe(0);
    expect(out.askedAfterRead).toBe(1);
    expect(out.firstGold).toMatchObject({ purity: expect.any(String) });
    expect(out.wholeRates).toHaveLength(366);
    expect(out.rates).toEqual(out.wholeRates);
    expect(out.rates[0].updatedAt.slice(0, 10)).toBe(END);
    expect(out.rates.at(-1).updatedAt.slice(0, 10)).toBe(YEAR_START);
    // ⌈366 / 40⌉ = 10 pages: the first without a cursor, then nine different ones.
    expect(out.rateCursors).toHaveLength(10);
    expect(out.rateCursors[0]).toBeNull();
    expect(new Set(out.rateCursors.slice(1)).size).toBe(9);
    expect(out.wholePremium).toHaveLength(30);
    expect(out.premium).toEqual(out.wholePremium);
    expect(out.premiumPages).toBe(5);
    expect(out.wholeGold).toHaveLength(90);
    expect(out.gold).toEqual(out.wholeGold);
  });

  it('interval pages: the get_*_intervals methods and their paginate_*_intervals iterators (docs/decisions.md 133)', async () => {
    const out = await py(`
import json
from mds_client import MdsClient
mds = MdsClient()
w = dict(from_="${YEAR_START}", to="${END}")
print(json.dumps({
  "rates": list(mds.paginate_rate_intervals("EUR", "month", limit=5, **w)),
  "wholeRates": mds.get_rate_intervals("EUR", "month", limit=1000, **w)["data"],
  "viaHistory": mds.get_rates_history("EUR", interval="month", limit=1000, **w)["data"],
  "premium": list(mds.paginate_premium_intervals("EUR", "week", limit=7, **w)),
  "wholePremium": mds.get_premium_intervals("EUR", "week", limit=1000, **w)["data"],
  "gold": list(mds.paginate_gold_intervals("week", limit=11, **w)),
  "wholeGold": mds.get_gold_intervals("week", limit=1000, **w)["data"],
  "csv": mds.get_gold_history_csv(interval="month", limit=3, **w).splitlines()[0],
}))`);
    // The sample has parallel EUR every day: each calendar month the window touches is listed.
    const month = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7));
    expect(out.wholeRates).toHaveLength(month(END) - month(YEAR_START) + 1);
    expect(out.rates).toEqual(out.wholeRates);
    expect(out.viaHistory).toEqual(out.wholeRates);
    expect(out.wholeRates[0]).toMatchObject({
      currency: 'EUR',
      interval: 'month',
      start: `${END.slice(0, 8)}01`,
    });
    expect(out.premium).toEqual(out.wholePremium);
    expect(out.premium.length).toBeGreaterThan(50);
    // Three purities a week, every week of the window.
    expect(out.gold).toEqual(out.wholeGold);
    expect(out.gold.length % 3).toBe(0);
    expect(out.csv).toBe(
      'purity,quote,unit,interval,start,buy_open,buy_high,buy_low,buy_close,sell_open,sell_high,sell_low,sell_close,firstUpdatedAt,lastUpdatedAt,observations',
    );
  });

  it('the *_csv methods send Accept: text/csv and return the CSV of the JSON page; parse_csv reads it', async () => {
    const out = await py(`
import json
from mds_client import MdsClient, parse_csv
mds = MdsClient()
w = dict(from_="${MONTH_START}", to="${END}")
result = {
  "rates": [mds.get_rates_history_csv("EUR", source="official", limit=10, **w),
            mds.get_rates_history("EUR", source="official", limit=10, **w)["data"]],
  "premium": [mds.get_premium_history_csv("EUR", limit=1000, **w),
              mds.get_premium_history("EUR", limit=1000, **w)["data"]],
  "gold": [mds.get_gold_history_csv(limit=12, **w), mds.get_gold_history(limit=12, **w)["data"]],
}
result["parsed"] = parse_csv(result["gold"][0])
print(json.dumps(result))`);
    for (const name of ['rates', 'premium', 'gold']) {
      const [csv, records] = out[name] as [string, Record<string, unknown>[]];
      expect(records.length, name).toBeGreaterThan(0);
      expect(csv).toContain('\r\n');
      const [header, ...rows] = csvRows(csv);
      const expected = records.map((r) => flatten(r));
      expect(header).toEqual(expected[0]!.map(([column]) => column));
      expect(rows).toEqual(expected.map((fields) => fields.map(([, value]) => value)));
    }
    expect(csvRows(out.premium[0])).toHaveLength(1 + 30);
    expect(out.parsed).toHaveLength(12);
    expect(out.parsed[0]).toEqual(
      Object.fromEntries(flatten(out.gold[1][0]).map(([column, value]) => [column, value])),
    );
  });

  it('a 401, 403, 404 or 400 raises MdsApiError with status, code, message, request_id and details, at once', async () => {
    const script = (apiKey: string) => `
import json, pickle, time
from mds_client import MdsApiError, MdsClient
mds = MdsClient(api_key="${apiKey}")
results = []
for call in (lambda: mds.get_me(), lambda: mds.get_market_premium(),
             lambda: mds.get_rates_history("XYZ"), lambda: mds.get_rates_history("EUR", limit=5000),
             lambda: mds.get_premium_history_csv("EUR", from_="${END}", to="${MONTH_START}")):
    started = time.monotonic()
    try:
        call()
        results.append(None)
    except MdsApiError as e:
        copy = pickle.loads(pickle.dumps(e))
        results.append({"status": e.status, "code": e.code, "message": e.message, "request_id": e.request_id,
                        "details": e.details, "retry_after": e.retry_after, "str": str(e),
                        "isException": isinstance(e, Exception), "pickled": repr(copy) == repr(e) and str(copy) == str(e),
                        "seconds": time.monotonic() - started})
print(json.dumps(results))`;
    const unknownKey = generateKey('live').key;
    const [unauthorized] = await py(script(unknownKey));
    expect(unauthorized).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      message: 'The API key is not valid.',
      details: null,
      retry_after: null,
      isException: true,
      pickled: true,
    });
    expect(unauthorized.request_id).toMatch(/^req_/);
    expect(unauthorized.str).toBe(
      `401 invalid_api_key: The API key is not valid. (request ${unauthorized.request_id})`,
    );
    expect(unauthorized.str).not.toContain(unknownKey);

    const [me, denied, notFound, invalid, csvInvalid] = await py(script(assetsOnlyKey));
    expect(me).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      details: [{ entitlement: 'usage:read' }],
    });
    expect(denied).toMatchObject({ status: 403, details: [{ entitlement: 'market:premium:read' }] });
    // str() names what was missing, as the details say, and claims no plan; `message` is the API's.
    expect(denied).toMatchObject({ message: 'The key is not entitled to this operation.', pickled: true });
    expect(denied.str).toBe(
      '403 insufficient_scope: The key is not entitled to this operation. Missing entitlement: market:premium:read; ' +
        `a key with that scope, on a plan that gives it, is needed. (request ${denied.request_id})`,
    );
    expect(me.str).toContain(' Missing entitlement: usage:read; ');
    expect(notFound).toMatchObject({ status: 403 });
    const [, , missing, badLimit, badWindow] = await py(script(key));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', details: null });
    expect(missing.request_id).toMatch(/^req_/);
    expect(badLimit).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      details: [{ parameter: 'limit', message: 'must be an integer from 1 to 1000' }],
    });
    expect(badWindow).toMatchObject({ status: 400, code: 'invalid_parameter' });
    // The query is judged before the entitlement (docs/architecture.md, a request's path).
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(csvInvalid).toMatchObject({ status: 400, code: 'invalid_parameter' });
    // None of these is retried: each raised at once.
    for (const result of [unauthorized, me, missing, badLimit, badWindow])
      expect(result.seconds).toBeLessThan(5);
  });

  it('str() of an insufficient_scope names every entitlement of its details; without one, or for another code, it adds nothing', async () => {
    const out = await py(`
import json
from mds_client import MdsApiError
print(json.dumps([
    str(MdsApiError(403, "insufficient_scope", "Not entitled.")),
    str(MdsApiError(403, "insufficient_scope", "Not entitled.", None, [{"parameter": "currency"}])),
    str(MdsApiError(403, "insufficient_scope", "Not entitled.", "req_1",
                    [{"entitlement": "gold:history:read"}, {"entitlement": "usage:read"}])),
    str(MdsApiError(400, "invalid_parameter", "Bad.", None, [{"entitlement": "usage:read"}])),
]))`);
    expect(out).toEqual([
      '403 insufficient_scope: Not entitled.',
      '403 insufficient_scope: Not entitled.',
      '403 insufficient_scope: Not entitled. Missing entitlements: gold:history:read, usage:read; ' +
        'a key with those scopes, on a plan that gives it, is needed. (request req_1)',
      '400 invalid_parameter: Bad.',
    ]);
  });

  it('configuration: a missing key or base URL is a ValueError naming the variable', async () => {
    const out = await py(
      `
import json
from mds_client import MdsClient
errors = []
for kwargs in ({}, {"base_url": "http://127.0.0.1:1"}, {"base_url": "ftp://x", "api_key": "k"},
               {"base_url": "http://h", "api_key": "k", "max_attempts": 0}):
    try:
        MdsClient(**kwargs)
        errors.append(None)
    except ValueError as e:
        errors.append(str(e))
print(json.dumps(errors))`,
      { MDS_BASE_URL: '', MDS_API_KEY: '' },
    );
    expect(out[0]).toContain('MDS_BASE_URL');
    expect(out[1]).toContain('MDS_API_KEY');
    expect(out[2]).toContain("'ftp://x'");
    expect(out[3]).toContain('max_attempts');
  });
});

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

describe('the Python client’s retries (scripted server)', () => {
  let dir: string;
  let python: string;
  let stub: Server;
  let baseUrl: string;
  let script: Scripted[] = [];
  let requests: Array<{
    at: number;
    url: string;
    accept: string | undefined;
    authorization: string | undefined;
  }> = [];

  const errorBody = (status: number, code: string) => ({
    data: null,
    error: { status, code, message: `${code} message` },
    meta: { requestId: `req_${status}` },
  });
  const OK = { status: 200, body: { data: [{ purity: '18K' }], meta: { requestId: 'req_ok', count: 1 } } };

  /** Runs `call` (an expression on `mds`) with the client options given; returns what happened. */
  async function attempt(steps: Scripted[], call: string, options = ''): Promise<Json> {
    script = steps;
    requests = [];
    const out = await runOk(
      python,
      [
        '-c',
        `
import json, time
from mds_client import MdsApiError, MdsClient
mds = MdsClient("${baseUrl}", "mds_test_stubkey_0123456789"${options ? `, ${options}` : ''})
started = time.monotonic()
try:
    result = {"ok": ${call}}
except MdsApiError as e:
    result = {"error": {"status": e.status, "code": e.code, "request_id": e.request_id, "retry_after": e.retry_after}}
result["seconds"] = time.monotonic() - started
print(json.dumps(result))`,
      ],
      { env: customerEnv(), timeout: 60_000 },
    );
    return JSON.parse(out);
  }
  const gaps = () => requests.slice(1).map((r, i) => r.at - requests[i]!.at);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-python-retry-'));
    const installed = venvWithClient(dir);
    stub = createServer((req, res) => {
      requests.push({
        at: performance.now(),
        url: req.url ?? '',
        accept: req.headers.accept,
        authorization: req.headers.authorization,
      });
      const next = script.shift() ?? { status: 500, body: errorBody(500, 'internal_error') };
      const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
      res.writeHead(next.status, {
        'content-type': typeof next.body === 'string' ? 'text/html' : 'application/json; charset=utf-8',
        'x-request-id': `hdr_${requests.length}`,
        ...next.headers,
      });
      res.end(text);
    });
    stub.listen(0, '127.0.0.1');
    await once(stub, 'listening');
    baseUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    python = await installed;
  }, 180_000);

  afterAll(async () => {
    if (stub) {
      stub.close();
      await once(stub, 'close');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a 429 is retried after its Retry-After, then the 200 is returned', async () => {
    const tooMany = { status: 429, headers: { 'retry-after': '1' }, body: errorBody(429, 'rate_limited') };
    const out = await attempt([tooMany, OK], 'mds.get_latest_gold()');
    expect(out.ok).toEqual(OK.body);
    expect(requests).toHaveLength(2);
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);
    expect(requests.map((r) => r.authorization)).toEqual(Array(2).fill('Bearer mds_test_stubkey_0123456789'));
  });

  it('a 503 is retried after its Retry-After; without one, after 0.5 s then 1 s', async () => {
    const unavailable = (retryAfter?: string): Scripted => ({
      status: 503,
      headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
      body: errorBody(503, 'service_unavailable'),
    });
    const out = await attempt([unavailable('1'), OK], 'mds.get_me()');
    expect(out.ok).toEqual(OK.body);
    expect(requests).toHaveLength(2);
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);

    const backoff = await attempt([unavailable(), unavailable(), OK], 'mds.get_gold_history_csv()');
    // The CSV asked for got a JSON 200: not the CSV asked for, after two retries.
    expect(backoff.error).toMatchObject({ status: 200, code: 'unexpected_response', request_id: 'hdr_3' });
    expect(requests.map((r) => r.accept)).toEqual(Array(3).fill('text/csv'));
    const [first, second] = gaps();
    expect(first).toBeGreaterThanOrEqual(450);
    expect(second).toBeGreaterThanOrEqual(950);
  });

  it('stops at max_attempts, and never starts a wait that would pass max_wait', async () => {
    const busy = {
      status: 503,
      headers: { 'retry-after': '0' },
      body: errorBody(503, 'service_unavailable'),
    };
    const capped = await attempt([busy, busy, busy, OK], 'mds.get_me()', 'max_attempts=2');
    expect(capped.error).toEqual({
      status: 503,
      code: 'service_unavailable',
      request_id: 'req_503',
      retry_after: 0,
    });
    expect(requests).toHaveLength(2);

    const quota = { status: 429, headers: { 'retry-after': '120' }, body: errorBody(429, 'quota_exceeded') };
    const tooLong = await attempt([quota, OK], 'mds.get_me()', 'max_wait=60');
    expect(tooLong.error).toEqual({
      status: 429,
      code: 'quota_exceeded',
      request_id: 'req_429',
      retry_after: 120,
    });
    expect(requests).toHaveLength(1);
    expect(tooLong.seconds).toBeLessThan(5);

    const date = new Date(Date.now() + 3_600_000).toUTCString();
    const dated = { status: 429, headers: { 'retry-after': date }, body: errorBody(429, 'rate_limited') };
    const later = await attempt([dated, OK], 'mds.get_me()');
    expect(later.error.retry_after).toBeGreaterThan(3500);
    expect(requests).toHaveLength(1);
  });

  it('no other status is retried; an answer that is not the envelope is unexpected_response', async () => {
    for (const [status, code] of [
      [500, 'internal_error'],
      [401, 'invalid_api_key'],
      [400, 'invalid_parameter'],
      [404, 'not_found'],
    ] as const) {
      const out = await attempt([{ status, body: errorBody(status, code) }, OK], 'mds.get_me()');
      expect(out.error).toEqual({ status, code, request_id: `req_${status}`, retry_after: null });
      expect(requests).toHaveLength(1);
    }
    const proxy = await attempt([{ status: 502, body: '<html>Bad gateway</html>' }, OK], 'mds.get_me()');
    expect(proxy.error).toEqual({
      status: 502,
      code: 'unexpected_response',
      request_id: 'hdr_1',
      retry_after: null,
    });
    expect(requests).toHaveLength(1);
  });
});
