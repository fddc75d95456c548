/**
 * The reporter API (/report/v1, docs/decisions.md 110) on every backend,
 * through HTTP: quotes taken and read back, a batch retried under its
 * Idempotency-Key stored once, refusals naming the value and the fix (a
 * batch all or none, each item by its index), tokens refused (suspended
 * reporter, rolled past its grace, admin token, API key), the consensus of
 * three organisations worked by hand, the per-reporter limit, the admin
 * listener's input rules, and never on the public port. Every answer of the
 * reporter app is checked against /report/openapi.json.
 */
import http from 'node:http';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildReportApp } from '../../../src/report-app.js';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody, validateResponses } from '../../support/openapi.js';

describe.each(backends())('the reporter API on $name', (backend) => {
  let h: AdminHarness;
  let report: FastifyInstance;
  let admin: string;
  let shift = 0;
  let eur: { buy: number; sell: number };
  let usd: { buy: number; sell: number };
  let gold21: number;
  let org: string;
  let token: string;

  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true, now: () => Date.now() + shift });
    report = await buildReportApp(h.runtime.services, { logger: false });
    await report.ready();
    await validateResponses(report, '/report/openapi.json');
    ({ token: admin } = await h.token(['reporters:write'], 'reporters admin'));
    const latest = await h.store.market.latestRates();
    const of = (c: string) => {
      const r = latest.find((x) => x.currency === c && x.source === 'parallel')!;
      return { buy: r.buy / 1e6, sell: r.sell / 1e6 };
    };
    eur = of('EUR');
    usd = of('USD');
    gold21 = (await h.store.market.latestGold()).find((g) => g.purity === '21K')!.buy / 1e6;
    org = await organisation('Square Port Said');
    ({ token } = await reporter(org, ['EUR', 'USD']));
  });
  afterAll(async () => {
    await report?.close();
    await h?.close();
  });

  const adminCall = async (method: string, url: string, body?: unknown) => {
    const res = await h.call(method, url, { token: admin, body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data;
  };
  const organisation = async (name: string): Promise<string> =>
    (await adminCall('POST', '/admin/v1/organisations', { name })).id;
  const reporter = async (organisationId: string, markets = ['EUR']) =>
    (await adminCall('POST', '/admin/v1/reporters', { organisationId, label: 'Desk', markets })) as {
      token: string;
      reporter: { id: string };
    };
  const call = (
    method: 'GET' | 'POST',
    url: string,
    token: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> =>
    report.inject({
      method,
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const details = (res: LightMyRequestResponse) =>
    (res.json().error.details as Array<{ parameter: string; message: string }>).map(
      (d) => `${d.parameter}: ${d.message}`,
    );
  const round = (v: number) => Math.round(v * 100) / 100;

  it('takes a quote and reads it back', async () => {
    const quote = {
      market: 'EUR',
      buy: String(round(eur.buy)),
      sell: round(eur.sell + 1),
      place: 'Port Said',
    };
    const res = await call('POST', '/report/v1/quotes', token, quote);
    expect(res.statusCode, res.body).toBe(201);
    const stored = res.json().data;
    expect(stored).toMatchObject({
      market: 'EUR',
      buy: round(eur.buy),
      sell: round(eur.sell + 1),
      place: 'Port Said',
    });
    expect(stored.id).toMatch(/^quo_/);
    expect(stored.observedAt).toBe(stored.receivedAt);
    const mine = await call('GET', '/report/v1/quotes?limit=5', token);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data[0]).toEqual(stored);
    // The admin listener serves the same API beside /admin.
    const viaAdmin = await h.admin.inject({
      method: 'GET',
      url: '/report/v1/quotes?limit=1',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(viaAdmin.json().data).toEqual([stored]);
  });

  it('stores a batch retried under the same Idempotency-Key once', async () => {
    const before = (await call('GET', '/report/v1/quotes?limit=200', token)).json().data.length;
    const batch = {
      quotes: [
        { market: 'EUR', buy: round(eur.buy), sell: round(eur.sell) },
        { market: 'USD', buy: round(usd.buy), sell: round(usd.sell) },
      ],
    };
    const key = { 'idempotency-key': 'phone-1-batch-1' };
    const first = await call('POST', '/report/v1/quotes/batch', token, batch, key);
    expect(first.statusCode, first.body).toBe(201);
    const again = await call('POST', '/report/v1/quotes/batch', token, batch, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const after = (await call('GET', '/report/v1/quotes?limit=200', token)).json().data.length;
    expect(after - before).toBe(2);
  });

  it('refuses a batch as a whole, naming each bad quote by its index, its value and the fix', async () => {
    const before = (await call('GET', '/report/v1/quotes?limit=200', token)).json().data.length;
    const far = round(eur.buy * 1.6);
    const res = await call('POST', '/report/v1/quotes/batch', token, {
      quotes: [
        { market: 'EUR', buy: round(eur.buy), sell: round(eur.sell) },
        { market: 'EUR', buy: 262, sell: 261 },
        { market: 'GBP', buy: 300, sell: 301 },
        { market: 'EUR', buy: far, sell: round(far + 2) },
        {
          market: 'EUR',
          buy: round(eur.buy),
          sell: round(eur.sell),
          observedAt: new Date(Date.now() + 10 * 60_000).toISOString(),
        },
      ],
    });
    expectErrorBody(res, 400, 'invalid_request', expect.anything());
    const found = details(res);
    expect(found[0]).toBe(
      'quotes.1.sell: sell 261 is below buy 262: a quote sells at or above what it buys; check the two are not swapped',
    );
    expect(found[1]).toBe(
      'quotes.2.market: "GBP" is not a market you may quote (yours: EUR, USD): ask the operator to allow it',
    );
    expect(found[2]).toContain(
      `quotes.3.buy: buy ${far} is more than 50 % from the last published buy of EUR, ${eur.buy} (`,
    );
    expect(found[2]).toContain('check the amount for a typo');
    expect(found[3]).toMatch(
      /^quotes\.3\.sell: sell [\d.]+ is more than 50 % from the last published sell of EUR/,
    );
    expect(found[4]).toContain('quotes.4.observedAt:');
    expect(found[4]).toContain("is more than 2 minutes ahead of the service's clock");
    expect(found).toHaveLength(5);
    const after = (await call('GET', '/report/v1/quotes?limit=200', token)).json().data.length;
    expect(after).toBe(before);
    // A single quote the same way, its field named alone.
    const one = await call('POST', '/report/v1/quotes', token, { market: 'EUR', buy: far, sell: far });
    const old = new Date(Date.now() - 6 * 3_600_000).toISOString();
    const stale = await call('POST', '/report/v1/quotes', token, {
      market: 'EUR',
      buy: round(eur.buy),
      sell: round(eur.sell),
      observedAt: old,
    });
    expect(details(expectErrorBody(stale, 400, 'invalid_request', expect.anything()) && stale)).toEqual([
      `observedAt: ${old} is older than the consensus window (6 hours): it would never count; send only recent quotes`,
    ]);
    const decimals = await call('POST', '/report/v1/quotes', token, {
      market: 'EUR',
      buy: 260.1234567,
      sell: 261,
    });
    expect(details(expectErrorBody(decimals, 400, 'invalid_request', expect.anything()) && decimals)).toEqual(
      [
        'buy: buy 260.1234567 is not an amount in DZD of at most 6 decimals and at most 1000000000: correct it',
      ],
    );
    expect(details(expectErrorBody(one, 400, 'invalid_request', expect.anything()) && one)[0]).toMatch(
      /^buy: buy /,
    );
  });

  it('refuses a suspended reporter, a token past its grace, an admin token and an API key', async () => {
    const made = await reporter(org);
    const url = `/admin/v1/reporters/${made.reporter.id}`;
    await adminCall('PATCH', url, { status: 'suspended' });
    const suspended = await call('GET', '/report/v1/me', made.token);
    expect(expectErrorBody(suspended, 403, 'reporter_inactive').error.message).toContain('suspended');
    await adminCall('PATCH', url, { status: 'active' });
    expect((await call('GET', '/report/v1/me', made.token)).json().data.id).toBe(made.reporter.id);

    const rolled = await adminCall('POST', `${url}/roll`, { gracePeriodSeconds: 60 });
    expect((await call('GET', '/report/v1/me', made.token)).statusCode).toBe(200);
    expect((await call('GET', '/report/v1/me', rolled.token)).statusCode).toBe(200);
    shift = 61_000;
    try {
      expectErrorBody(await call('GET', '/report/v1/me', made.token), 401, 'expired_reporter_token');
      expect((await call('GET', '/report/v1/me', rolled.token)).statusCode).toBe(200);
    } finally {
      shift = 0;
    }

    expectErrorBody(await call('GET', '/report/v1/me', admin), 401, 'invalid_reporter_token');
    const { key } = await h.newKey();
    expectErrorBody(await call('GET', '/report/v1/me', key), 401, 'invalid_reporter_token');
    expectErrorBody(await call('GET', '/report/v1/me', undefined), 401, 'missing_reporter_token');
  });

  it('answers the consensus of three organisations, a colleague counted within its organisation', async () => {
    // 21K: a market no other test quotes.
    const b = Math.round(gold21);
    const orgs = [await organisation('Desk A'), await organisation('Desk B'), await organisation('Desk C')];
    const quotes: Array<[string, number, number]> = [
      [orgs[0]!, b, b + 2],
      [orgs[1]!, b + 1, b + 3],
      [orgs[1]!, b + 2, b + 4],
      [orgs[2]!, b + 0.5, b + 2.5],
    ];
    let last = '';
    for (const [o, buy, sell] of quotes) {
      last = (await reporter(o, ['21K'])).token;
      const res = await call('POST', '/report/v1/quotes', last, { market: '21K', buy, sell });
      expect(res.statusCode, res.body).toBe(201);
    }
    const res = await call('GET', '/report/v1/consensus', last);
    expect(res.statusCode, res.body).toBe(200);
    // Organisation medians: A (b, b+2), B (b+1.5, b+3.5), C (b+0.5, b+2.5); mids b+1, b+2.5, b+1.5:
    // m = b+1.5, MAD = 0.5, none beyond max(5.1891 × 0.5, 1.5 % of m). Buy median b+0.5, sell b+2.5.
    expect(res.json().data).toEqual([
      {
        market: '21K',
        at: expect.any(String),
        state: 'ok',
        buy: b + 0.5,
        sell: b + 2.5,
        organisations: 3,
        reporters: 4,
        excluded: 0,
        dispersionPercent: Math.round((1.4826 * 0.5 * 10_000) / (b + 1.5)) / 100,
        confidence: 'medium',
      },
    ]);
    expect(res.body).not.toContain('rep_');
    // The quorum reached, the consensus was published as 21K's gold (decisions 109), and a
    // quote is judged against that last published value.
    const typo = await call('POST', '/report/v1/quotes', last, { market: '21K', buy: b * 16, sell: b * 16 });
    expect(details(expectErrorBody(typo, 400, 'invalid_request', expect.anything()) && typo)[0]).toContain(
      `buy: buy ${b * 16} is more than 50 % from the last published buy of 21K, ${b + 0.5} (`,
    );
  });

  it('limits each reporter’s requests a minute: 429 with Retry-After', async () => {
    const limited = await buildReportApp(h.runtime.services, { logger: false, reportRateLimit: 2 });
    // The clock one second into a UTC minute: the three requests fall in it.
    const start = Date.now();
    shift = Math.floor(start / 60_000) * 60_000 + 61_000 - start;
    try {
      const get = () =>
        limited.inject({
          method: 'GET',
          url: '/report/v1/me',
          headers: { authorization: `Bearer ${token}` },
        });
      expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
      const refused = await get();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(refused.json().error.message).toContain('More than 2 requests from this reporter this minute');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      shift = 0;
      await limited.close();
    }
  });

  it('tells the consensus which markets got quotes, after they are stored, and not for a refusal', async () => {
    const told: string[][] = [];
    const spy = vi
      .spyOn(h.runtime.services.consensus, 'quotesArrived')
      .mockImplementation(async (markets) => void told.push([...markets]));
    try {
      const ok = await call('POST', '/report/v1/quotes/batch', token, {
        quotes: [
          { market: 'USD', buy: round(usd.buy), sell: round(usd.sell) },
          { market: 'EUR', buy: round(eur.buy), sell: round(eur.sell) },
          { market: 'USD', buy: round(usd.buy), sell: round(usd.sell) },
        ],
      });
      expect(ok.statusCode, ok.body).toBe(201);
      expect(told).toEqual([['USD', 'EUR']]);
      const refused = await call('POST', '/report/v1/quotes', token, { market: 'EUR', buy: 2, sell: 1 });
      expect(refused.statusCode).toBe(400);
      expect(told).toHaveLength(1);
      // A failing consensus does not lose the quote: it is stored and answered.
      spy.mockImplementation(async () => {
        throw new Error('publication failed');
      });
      const stored = await call('POST', '/report/v1/quotes', token, {
        market: 'EUR',
        buy: round(eur.buy),
        sell: round(eur.sell),
      });
      expect(stored.statusCode).toBe(201);
    } finally {
      spy.mockRestore();
    }
  });

  it('holds /report to the admin listener’s input rules', async () => {
    const nul = await call('POST', '/report/v1/quotes', token, {
      market: 'EUR',
      buy: 1,
      sell: 2,
      place: 'a\u0000b',
    });
    expect(details(expectErrorBody(nul, 400, 'invalid_request', expect.anything()) && nul)[0]).toContain(
      'place: must not contain control characters',
    );
    const gz = await call(
      'POST',
      '/report/v1/quotes',
      token,
      { market: 'EUR', buy: 1, sell: 2 },
      { 'content-encoding': 'gzip' },
    );
    expectErrorBody(gz, 415, 'unsupported_media_type');
  });

  it('refuses an Idempotency-Key sent on two lines, over a real connection', async () => {
    await report.listen({ host: '127.0.0.1', port: 0 });
    const { port } = report.server.address() as { port: number };
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/report/v1/quotes',
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': ['twice', 'twice'],
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ market: 'EUR', buy: round(eur.buy), sell: round(eur.sell) }));
    });
    expect(answer.status, answer.body).toBe(400);
    expect(JSON.parse(answer.body).error.details).toEqual([
      { parameter: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters, sent once' },
    ]);
  });

  it('is never served on the public port', async () => {
    for (const path of ['/report/v1/me', '/report/openapi.json']) {
      const res = await h.get(path, undefined, { authorization: `Bearer ${token}` });
      expect(res.statusCode, path).toBe(404);
    }
  });
});
