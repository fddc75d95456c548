/**
 * `GET /status` (docs/decisions.md 53): per family (parallel, official and
 * transfer rates, gold) the newest observation this instance serves, its age
 * at the app's clock and whether it is past MDS_STALE_AFTER (the defaults
 * here); `stale` overall when any family is. 200 either way, `/readyz`
 * unaffected, no key, consumes nothing, never cached. Every answer is checked
 * against the served OpenAPI document by the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { backends } from '../support/backends.js';
import { DAY, type Harness, SAMPLE_END, startHarness } from '../support/harness.js';

const HOUR = 3_600_000;
/** The sample's last day, at midnight UTC: its series are dated 09:00 (parallel) to 11:00 (transfer). */
const LAST_DAY = Date.parse(`${SAMPLE_END}T00:00:00.000Z`);
const NOON = LAST_DAY + 12 * HOUR;
const DEFAULTS = { parallel: 36 * 3600, official: 96 * 3600, transfer: 48 * 3600, gold: 48 * 3600 };

const QUOTA_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-monthly-quota-limit',
  'x-monthly-quota-remaining',
  'x-monthly-quota-reset',
];

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely by the tests
type Json = Record<string, any>;

describe.each(backends())('/status on $name', (backend) => {
  let h: Harness;
  let clock = NOON;
  const status = async (headers: Record<string, string> = {}) => {
    const res = await h.app.inject({ method: 'GET', url: '/status', headers });
    expect(res.statusCode).toBe(200);
    return { res, body: res.json() as Json };
  };

  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
  });
  afterAll(async () => h?.close());

  it('answers ok with fresh data: the newest updatedAt of each family, its age and its threshold', async () => {
    clock = NOON;
    const { res, body } = await status();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe(body.meta.requestId);
    for (const name of QUOTA_HEADERS) expect(res.headers[name], name).toBeUndefined();
    expect(body.data).toEqual({
      status: 'ok',
      families: {
        parallel: {
          updatedAt: `${SAMPLE_END}T09:00:00.000Z`,
          ageSeconds: 3 * 3600,
          thresholdSeconds: DEFAULTS.parallel,
          published: true,
          stale: false,
        },
        official: {
          updatedAt: `${SAMPLE_END}T10:00:00.000Z`,
          ageSeconds: 2 * 3600,
          thresholdSeconds: DEFAULTS.official,
          published: true,
          stale: false,
        },
        transfer: {
          updatedAt: `${SAMPLE_END}T11:00:00.000Z`,
          ageSeconds: 3600,
          thresholdSeconds: DEFAULTS.transfer,
          published: true,
          stale: false,
        },
        gold: {
          updatedAt: `${SAMPLE_END}T09:30:00.000Z`,
          ageSeconds: 2.5 * 3600,
          thresholdSeconds: DEFAULTS.gold,
          published: true,
          stale: false,
        },
      },
      // No market is computed from reporters' quotes here (test/consensus/explain.test.ts).
      consensus: [],
    });
  });

  it('turns stale once a family’s newest observation is past its threshold; /readyz stays ready', async () => {
    const parallelAt = LAST_DAY + 9 * HOUR;
    try {
      // Exactly at the threshold: not yet past it.
      clock = parallelAt + DEFAULTS.parallel * 1000;
      let { body } = await status();
      expect(body.data.status).toBe('ok');
      expect(body.data.families.parallel).toMatchObject({ ageSeconds: DEFAULTS.parallel, stale: false });

      clock += 1000;
      ({ body } = await status());
      expect(body.data.status).toBe('stale');
      expect(body.data.families.parallel).toMatchObject({ ageSeconds: DEFAULTS.parallel + 1, stale: true });
      for (const family of ['official', 'transfer', 'gold'])
        expect(body.data.families[family].stale, family).toBe(false);
      // Stale data still serves: readiness is about the store and the limiter only.
      const ready = await h.get('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json().data.status).toBe('ready');

      clock = LAST_DAY + 5 * DAY;
      ({ body } = await status());
      expect(body.data.status).toBe('stale');
      for (const family of ['parallel', 'official', 'transfer', 'gold'])
        expect(body.data.families[family].stale, family).toBe(true);
    } finally {
      clock = NOON;
    }
  });

  it('follows the data: an import of newer observations moves its family’s updatedAt', async () => {
    const before = (await status()).body.data.families;
    const at = NOON - 30 * 60_000;
    const sample = generateSample({ endDate: SAMPLE_END, days: 1 });
    await seedSample(h.store, {
      assets: [],
      rates: sample.rates.filter((r) => r.source === 'parallel').map((r) => ({ ...r, updatedAt: at })),
      gold: [],
    });
    await h.refresh();
    const after = (await status()).body.data.families;
    expect(after.parallel).toMatchObject({ updatedAt: new Date(at).toISOString(), ageSeconds: 1800 });
    expect(after.official).toEqual(before.official);
    expect(after.gold).toEqual(before.gold);
  });

  it('needs no key, ignores one (even a wrong one) and consumes nothing', async () => {
    const { key } = await h.newKey({ validFrom: clock - DAY });
    const used = async () => (await h.get('/v1/me', key)).json().data.usage.requestsUsed as number;
    expect(await used()).toBe(1);
    for (const headers of <Record<string, string>[]>[
      { authorization: `Bearer ${key}` },
      { 'x-api-key': key },
      { authorization: 'Bearer mds_live_nonsense' },
    ]) {
      const { res } = await status(headers);
      for (const name of QUOTA_HEADERS) expect(res.headers[name], name).toBeUndefined();
    }
    expect(await used()).toBe(2);
    const head = await h.app.inject({ method: 'HEAD', url: '/status' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('is in the OpenAPI document beside /healthz, without a key, 200 whether ok or stale', () => {
    const op = h.doc.paths['/status']!.get!;
    expect(op.operationId).toBe('getStatus');
    expect(op.security).toEqual([]);
    expect(op.tags).toEqual(h.doc.paths['/healthz']!.get!.tags);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '414', '500']);
    expect(Object.keys(op.responses['200']!.headers!).sort()).toEqual(['Cache-Control', 'X-Request-Id']);
  });
});

describe.each(backends())('/status on $name, for families without observations', (backend) => {
  let h: Harness;
  const clock = NOON;
  beforeAll(async () => {
    h = await startHarness(backend, { seed: false, now: () => clock });
  });
  afterAll(async () => h?.close());

  const families = async () => {
    const res = await h.get('/status');
    expect(res.statusCode).toBe(200);
    return res.json().data as Json;
  };

  it('reports none as null and stale, and the whole as stale', async () => {
    const data = await families();
    expect(data.status).toBe('stale');
    for (const [family, threshold] of Object.entries(DEFAULTS))
      expect(data.families[family], family).toEqual({
        updatedAt: null,
        ageSeconds: null,
        thresholdSeconds: threshold,
        published: true,
        stale: true,
      });
  });

  it('is stale while one family has none, the others fresh', async () => {
    const sample = generateSample({ endDate: SAMPLE_END, days: 2 });
    await seedSample(h.store, { ...sample, gold: [] });
    await h.refresh();
    const data = await families();
    expect(data.status).toBe('stale');
    for (const family of ['parallel', 'official', 'transfer'])
      expect(data.families[family].stale, family).toBe(false);
    expect(data.families.gold).toEqual({
      updatedAt: null,
      ageSeconds: null,
      thresholdSeconds: DEFAULTS.gold,
      published: true,
      stale: true,
    });
  });
});
