/**
 * Limits (specification "Limits", decisions §1 step 6, §5) and /v1/me: exact
 * header values under a controlled clock, per-minute and monthly exhaustion,
 * what consumes a unit and what does not, atomicity under concurrency, the
 * window shared by every key of a grant, and every field of /v1/me.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { backends, POSTGRES_URL } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { createKey } from '../support/keys.js';

const MINUTE = 60_000;
const ALL = [...ENTITLEMENTS];
const iso = (ms: number) => new Date(ms).toISOString();
const minuteStart = (ms: number) => ms - (ms % MINUTE);
const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
const nextMonth = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 1);

/** The seven quota headers, as strings, exactly as sent. */
function quota(res: LightMyRequestResponse) {
  return {
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
    policy: res.headers['ratelimit-policy'],
    monthLimit: res.headers['x-monthly-quota-limit'],
    monthRemaining: res.headers['x-monthly-quota-remaining'],
    monthReset: res.headers['x-monthly-quota-reset'],
  };
}

/**
 * Monthly 3 and per-minute 3, three requests: the fourth finds both exhausted,
 * and the month binds (docs/decisions.md, §1): 429 quota_exceeded with
 * Retry-After to the month's reset, not to the minute's, and the quota headers.
 * The clock stands at `at` throughout.
 */
async function expectMonthBinds(h: Harness, at: number): Promise<void> {
  const { key } = await h.newKey({ rpm: 3, monthly: 3 });
  for (let i = 0; i < 3; i++) expect((await h.get('/v1/assets', key)).statusCode).toBe(200);
  const both = await h.get('/v1/assets', key);
  expect(both.statusCode).toBe(429);
  expect(both.json().error).toEqual({
    status: 429,
    code: 'quota_exceeded',
    message: 'Monthly request quota exceeded.',
  });
  expect(both.headers['retry-after']).toBe(String(Math.ceil((nextMonth(at) - at) / 1000)));
  expect(quota(both)).toEqual({
    limit: '3',
    remaining: '0',
    reset: String(Math.ceil((minuteStart(at) + MINUTE - at) / 1000)),
    policy: '3;w=60',
    monthLimit: '3',
    monthRemaining: '0',
    monthReset: iso(nextMonth(at)),
  });
}

describe.each(backends())('limits and /v1/me on $name', (backend) => {
  let h: Harness;
  // The service's clock; each test sets it. It runs ahead of real time (grants
  // start a day before real time and never end), so every test is deterministic.
  let clock = Date.now();
  /** 12.345 s into a UTC minute, mid-month, next month. */
  const now = new Date();
  const base = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 10, 10, 0, 12, 345);

  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
  });
  afterAll(async () => {
    await h?.close();
    if (backend.redisUrl) {
      const r = new Redis(backend.redisUrl);
      const keys = await r.keys(`${backend.redisPrefix}*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
  });

  it('sends exact header values on a 200, counting down after this request', async () => {
    clock = base;
    const { key } = await h.newKey({ rpm: 10, monthly: 1000 });
    const first = await h.get('/v1/assets', key);
    expect(first.statusCode).toBe(200);
    expect(quota(first)).toEqual({
      limit: '10',
      remaining: '9',
      reset: '48', // 47.655 s to the next minute, rounded up
      policy: '10;w=60',
      monthLimit: '1000',
      monthRemaining: '999',
      monthReset: iso(nextMonth(base)),
    });
    expect(quota(first).monthReset).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);

    clock = base + 1_000;
    const second = await h.get('/v1/rates/latest', key);
    expect(quota(second)).toMatchObject({ remaining: '8', reset: '47', monthRemaining: '998' });

    // The last millisecond of the minute still says 1, never 0.
    clock = minuteStart(base) + MINUTE - 1;
    expect(quota(await h.get('/v1/gold/latest', key))).toMatchObject({ remaining: '7', reset: '1' });
    clock = minuteStart(base) + MINUTE - 1_000;
    expect(quota(await h.get('/v1/gold/latest', key))).toMatchObject({ remaining: '6', reset: '1' });

    // Exactly on the boundary: a new window, 60 s to go.
    clock = minuteStart(base) + MINUTE;
    expect(quota(await h.get('/v1/gold/latest', key))).toMatchObject({
      remaining: '9',
      reset: '60',
      monthRemaining: '995',
    });
  });

  it('rolls X-Monthly-Quota-Reset over a year end', async () => {
    const year = new Date().getUTCFullYear() + 1;
    clock = Date.UTC(year, 11, 31, 23, 59, 30, 250);
    const { key } = await h.newKey({ rpm: 5, monthly: 50 });
    const res = await h.get('/v1/assets', key);
    expect(res.statusCode).toBe(200);
    expect(quota(res)).toEqual({
      limit: '5',
      remaining: '4',
      reset: '30',
      policy: '5;w=60',
      monthLimit: '50',
      monthRemaining: '49',
      monthReset: `${year + 1}-01-01T00:00:00.000Z`,
    });
    const me = (await h.get('/v1/me', key)).json().data.usage;
    expect(me.periodStart).toBe(`${year}-12-01T00:00:00.000Z`);
    expect(me.resetAt).toBe(`${year + 1}-01-01T00:00:00.000Z`);
    expect(me.minuteResetAt).toBe(`${year + 1}-01-01T00:00:00.000Z`);
  });

  it('refuses the request after the per-minute allowance with 429 rate_limited, until the next minute', async () => {
    clock = base;
    const { key } = await h.newKey({ rpm: 3, monthly: 100 });
    for (const remaining of ['2', '1', '0']) {
      const res = await h.get('/v1/assets', key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(remaining);
    }
    clock = base + 20_000;
    const refused = await h.get('/v1/assets', key);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.status).toBe(429);
    expect(body.data).toBeNull();
    expect(body.meta.requestId).toBe(refused.headers['x-request-id']);
    expect(refused.headers['retry-after']).toBe('28'); // 27.655 s, rounded up
    expect(quota(refused)).toEqual({
      limit: '3',
      remaining: '0',
      reset: '28',
      policy: '3;w=60',
      monthLimit: '100',
      monthRemaining: '97',
      monthReset: iso(nextMonth(base)),
    });

    // Still refused at the last moment of the window, with Retry-After at least 1.
    clock = minuteStart(base) + MINUTE - 1;
    const late = await h.get('/v1/assets', key);
    expect(late.statusCode).toBe(429);
    expect(late.headers['retry-after']).toBe('1');

    // The next minute accepts again.
    clock = minuteStart(base) + MINUTE + 500;
    const next = await h.get('/v1/assets', key);
    expect(next.statusCode).toBe(200);
    expect(next.headers['retry-after']).toBeUndefined();
    expect(quota(next)).toMatchObject({ remaining: '2', reset: '60', monthRemaining: '96' });
  });

  it('refuses the request after the monthly quota with 429 quota_exceeded until the month resets', async () => {
    clock = base;
    const { key } = await h.newKey({ rpm: 100, monthly: 3 });
    for (const remaining of ['2', '1', '0']) {
      const res = await h.get('/v1/assets', key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-monthly-quota-remaining']).toBe(remaining);
    }
    const refused = await h.get('/v1/assets', key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('quota_exceeded');
    const reset = nextMonth(base);
    expect(refused.headers['retry-after']).toBe(String(Math.ceil((reset - base) / 1000)));
    expect(quota(refused)).toEqual({
      limit: '100',
      remaining: '97',
      reset: '48',
      policy: '100;w=60',
      monthLimit: '3',
      monthRemaining: '0',
      monthReset: iso(reset),
    });

    // A new minute does not help.
    clock = base + 5 * MINUTE;
    const later = await h.get('/v1/rates/latest', key);
    expect(later.statusCode).toBe(429);
    expect(later.json().error.code).toBe('quota_exceeded');
    expect(later.headers['retry-after']).toBe(String(Math.ceil((reset - clock) / 1000)));

    // One second before the reset, Retry-After is 1; at the reset the new month accepts.
    clock = reset - 1_000;
    expect((await h.get('/v1/assets', key)).headers['retry-after']).toBe('1');
    clock = reset + 2_000;
    const renewed = await h.get('/v1/assets', key);
    expect(renewed.statusCode).toBe(200);
    expect(quota(renewed)).toMatchObject({
      remaining: '99',
      monthRemaining: '2',
      monthReset: iso(nextMonth(reset)),
    });
  });

  it('refuses with the monthly quota when the minute is exhausted too: the binding limit wins', async () => {
    clock = base;
    await expectMonthBinds(h, base);
  });

  it('consumes a unit for 200 and 404, none for 400, 401, 403 and 429', async () => {
    clock = base;
    const { key, grantId } = await h.newKey({ rpm: 3, monthly: 100 });
    const narrow = (await h.keyFor(grantId, { scopes: ['usage:read'] })).key;
    const steps: Array<[string, string | undefined, number, string, string]> = [
      // url, key, status, RateLimit-Remaining, X-Monthly-Quota-Remaining
      ['/v1/assets?type=bogus', key, 400, '3', '100'],
      ['/v1/assets', key, 200, '2', '99'],
      ['/v1/rates/history?currency=ZZZ', key, 404, '1', '98'],
      ['/v1/rates/history?currency=EUR&limit=0', key, 400, '1', '98'],
      ['/v1/assets', narrow, 403, '', ''],
      ['/v1/assets', undefined, 401, '', ''],
      ['/v1/gold/latest', key, 200, '0', '97'],
      ['/v1/assets', key, 429, '0', '97'],
      ['/v1/rates/history?currency=ZZZ', key, 429, '0', '97'],
      ['/v1/assets?type=metal&type=crypto', key, 400, '0', '97'],
    ];
    for (const [url, k, status, remaining, monthRemaining] of steps) {
      const res = await h.get(url, k);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      if (status === 404) expect(res.json().error.code).toBe('not_found');
      if (remaining === '') {
        expect(res.headers['ratelimit-remaining']).toBeUndefined();
      } else {
        expect(res.headers['ratelimit-remaining'], url).toBe(remaining);
        expect(res.headers['x-monthly-quota-remaining'], url).toBe(monthRemaining);
        expect(res.headers['ratelimit-limit']).toBe('3');
        expect(res.headers['x-monthly-quota-limit']).toBe('100');
      }
    }
    clock = base + MINUTE;
    const me = (await h.get('/v1/me', key)).json().data.usage;
    expect(me.requestsUsed).toBe(4); // 200, 404, 200 and this request
    expect(me.requestsRemaining).toBe(96);
    expect(me.minuteRemaining).toBe(2);
  });

  it('lets exactly rpm of 50 simultaneous requests through (7 × 200, 43 × 429)', async () => {
    clock = base;
    const { key } = await h.newKey({ rpm: 7, monthly: 1000 });
    const results = await Promise.all(Array.from({ length: 50 }, () => h.get('/v1/rates/latest', key)));
    const ok = results.filter((r) => r.statusCode === 200);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(7);
    expect(refused).toHaveLength(43);
    expect(refused.every((r) => r.json().error.code === 'rate_limited')).toBe(true);
    expect(refused.every((r) => r.headers['retry-after'] === '48')).toBe(true);
    // Each admitted request saw its own count.
    expect(ok.map((r) => Number(r.headers['ratelimit-remaining'])).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ok.map((r) => Number(r.headers['x-monthly-quota-remaining'])).sort()).toEqual([
      993, 994, 995, 996, 997, 998, 999,
    ]);
    clock = base + MINUTE;
    const me = (await h.get('/v1/me', key)).json().data.usage;
    expect(me.requestsUsed).toBe(8);
  });

  it('lets exactly the monthly quota of 40 simultaneous requests through', async () => {
    clock = base;
    const { key } = await h.newKey({ rpm: 1000, monthly: 5 });
    const results = await Promise.all(Array.from({ length: 40 }, () => h.get('/v1/assets', key)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(35);
    expect(refused.every((r) => r.json().error.code === 'quota_exceeded')).toBe(true);
  });

  it('shares the minute window and the monthly quota between the keys of one grant', async () => {
    clock = base;
    const a = await h.newKey({ rpm: 4, monthly: 10 });
    const b = await h.keyFor(a.grantId);
    expect((await h.get('/v1/assets', a.key)).headers['ratelimit-remaining']).toBe('3');
    expect((await h.get('/v1/assets', b.key)).headers['ratelimit-remaining']).toBe('2');
    expect((await h.get('/v1/assets', a.key)).headers['ratelimit-remaining']).toBe('1');
    const last = await h.get('/v1/assets', b.key);
    expect(quota(last)).toMatchObject({ remaining: '0', monthRemaining: '6' });
    expect((await h.get('/v1/assets', a.key)).statusCode).toBe(429);
    expect((await h.get('/v1/assets', b.key)).statusCode).toBe(429);

    clock = base + MINUTE;
    const meA = (await h.get('/v1/me', a.key)).json().data.usage;
    const meB = (await h.get('/v1/me', b.key)).json().data.usage;
    expect(meA.requestsUsed).toBe(5);
    expect(meB.requestsUsed).toBe(6);
    expect(meB.minuteRemaining).toBe(2);
    expect(meB.requestsRemaining).toBe(4);

    // A key of another grant has its own allowance.
    const other = await h.newKey({ rpm: 4, monthly: 10 });
    expect((await h.get('/v1/assets', other.key)).headers['ratelimit-remaining']).toBe('3');
  });

  it('/v1/me returns every field with its value after this request, and no secret or email', async () => {
    clock = base;
    const validFrom = Date.UTC(2024, 0, 15, 8, 30);
    const k = await h.newKey({ rpm: 30, monthly: 500, validFrom });
    expect((await h.get('/v1/assets', k.key)).statusCode).toBe(200);
    expect((await h.get('/v1/assets?type=nope', k.key)).statusCode).toBe(400);
    clock = base + 2_000;
    expect((await h.get('/v1/rates/latest', k.key)).statusCode).toBe(200);
    clock = base + 4_500;
    const res = await h.get('/v1/me', k.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(body).toEqual({
      data: {
        account: { id: k.accountId },
        grant: {
          id: k.grantId,
          provider: 'manual',
          plan: 'test',
          status: 'active',
          scopes: ALL,
          validFrom: iso(validFrom),
          validUntil: '9999-12-31T23:59:59.999Z',
          monthlyRequestLimit: 500,
          requestsPerMinute: 30,
        },
        key: {
          publicId: k.publicId,
          prefix: `mds_live_${k.publicId}`,
          label: '',
          environment: 'live',
          scopes: ALL,
          status: 'active',
          expiresAt: null,
          lastUsedAt: iso(clock),
        },
        usage: {
          periodStart: iso(monthStart(base)),
          resetAt: iso(nextMonth(base)),
          requestsUsed: 3,
          requestsRemaining: 497,
          requestLimit: 500,
          requestsPerMinute: 30,
          minuteRemaining: 27,
          minuteResetAt: iso(minuteStart(base) + MINUTE),
        },
      },
      meta: { requestId: res.headers['x-request-id'] },
    });
    expect(k.publicId).toMatch(/^[a-z0-9]{12}$/);
    // The headers agree with the body.
    expect(quota(res)).toEqual({
      limit: '30',
      remaining: '27',
      reset: '44', // 43.155 s
      policy: '30;w=60',
      monthLimit: '500',
      monthRemaining: '497',
      monthReset: iso(nextMonth(base)),
    });
    // No secret, no billing contact.
    const secret = k.key.slice(`mds_live_${k.publicId}_`.length);
    expect(secret.length).toBeGreaterThanOrEqual(49);
    expect(res.body).not.toContain(secret);
    expect(res.body).not.toContain(k.key);
    expect(res.body).not.toContain('billing@example.com');
    expect(res.body).not.toContain('@');
    expect(res.body).not.toMatch(/digest|email|secret/i);
  });

  it('/v1/me shows a key label, its own scopes, expiresAt and the test environment', async () => {
    clock = base;
    const a = await h.newKey({ rpm: 30, monthly: 500 });
    const expiresAt = Date.now() + 400 * 86_400_000;
    const created = await createKey(h.store, {
      grantId: a.grantId,
      label: 'reporting job',
      environment: 'test',
      scopes: ['usage:read', 'rates:official:latest:read'],
      expiresAt,
    });
    const res = await h.get('/v1/me', created.key);
    expect(res.statusCode).toBe(200);
    const { key, grant } = res.json().data;
    expect(key).toEqual({
      publicId: created.publicId,
      prefix: `mds_test_${created.publicId}`,
      label: 'reporting job',
      environment: 'test',
      scopes: ['rates:official:latest:read', 'usage:read'],
      status: 'active',
      expiresAt: iso(expiresAt),
      lastUsedAt: iso(clock),
    });
    expect(created.key.startsWith(`mds_test_${created.publicId}_`)).toBe(true);
    expect(grant.scopes).toEqual(ALL);
    expect(res.body).not.toContain(created.key.slice(-49));
  });
});

// The store limiter (PostgreSQL without Redis: several instances on one store)
// decides the same way; the suite above runs PostgreSQL with Redis when it can.
describe.runIf(POSTGRES_URL)('the binding limit on postgres without redis (store limiter)', () => {
  let h: Harness;
  const now = new Date();
  const base = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 10, 10, 0, 12, 345);

  beforeAll(async () => {
    h = await startHarness({ name: 'postgres' }, { now: () => base, seed: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses with the monthly quota when the minute is exhausted too', async () => {
    expect(h.runtime.services.limiter.kind).toBe('store');
    await expectMonthBinds(h, base);
  });
});
