/**
 * The freshness gauges on the admin port of a running `mds serve`
 * (docs/decisions.md 53): `mds_data_age_seconds{family}`, computed when
 * scraped, absent for a family without any observation, and
 * `mds_data_stale_threshold_seconds{family}` from MDS_STALE_AFTER over the
 * defaults; `/status` on the public port tells the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { SAMPLE_END } from '../support/harness.js';
import { getJson, type ServerProcess, spawnServer } from '../support/server-process.js';

const HOUR = 3_600;
/** When the sample's newest observation of each rate source is dated (src/sample/generate.ts). */
const NEWEST = {
  parallel: Date.parse(`${SAMPLE_END}T09:00:00.000Z`),
  official: Date.parse(`${SAMPLE_END}T10:00:00.000Z`),
  transfer: Date.parse(`${SAMPLE_END}T11:00:00.000Z`),
};

describe('freshness gauges on the admin port', () => {
  let dir: string;
  let server: ServerProcess;
  let adminUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-freshness-metrics-'));
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    // No gold at all: its age has no series, its threshold has one.
    await seedSample(store, { ...generateSample({ endDate: SAMPLE_END, days: 10 }), gold: [] });
    await store.close();
    server = await spawnServer({
      db,
      env: { MDS_ADMIN_PORT: '0', MDS_STALE_AFTER: 'parallel=2h, gold=1d' },
    });
    adminUrl = await findAdmin(server);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const gauge = (text: string, name: string) =>
    Object.fromEntries(
      [...text.matchAll(new RegExp(`^${name}\\{family="([a-z]+)"\\} (\\S+)$`, 'gm'))].map(([, f, v]) => [
        f,
        Number(v),
      ]),
    );

  it('give each family’s threshold, and the age of its newest observation when it has one', async () => {
    const before = Date.now();
    const res = await fetch(`${adminUrl}/metrics`);
    const after = Date.now();
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE mds_data_age_seconds gauge');
    expect(text).toContain('# TYPE mds_data_stale_threshold_seconds gauge');
    expect(gauge(text, 'mds_data_stale_threshold_seconds')).toEqual({
      parallel: 2 * HOUR,
      official: 96 * HOUR,
      transfer: 48 * HOUR,
      gold: 24 * HOUR,
    });
    const ages = gauge(text, 'mds_data_age_seconds');
    expect(Object.keys(ages).sort()).toEqual(['official', 'parallel', 'transfer']);
    for (const [family, at] of Object.entries(NEWEST)) {
      // Computed at scrape time, in whole seconds.
      expect(Number.isInteger(ages[family]), family).toBe(true);
      expect(ages[family], family).toBeGreaterThanOrEqual(Math.floor((before - at) / 1000));
      expect(ages[family], family).toBeLessThanOrEqual(Math.ceil((after - at) / 1000));
    }
  });

  it('/status on the public port reports the same thresholds: parallel past 2 h, gold missing', async () => {
    const { status, headers, body } = await getJson(`${server.url}/status`);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.data.status).toBe('stale');
    const f = body.data.families;
    // The sample ends yesterday at 09:00 UTC: at least 15 hours ago.
    expect(f.parallel).toMatchObject({ thresholdSeconds: 2 * HOUR, stale: true });
    expect(f.official).toMatchObject({ thresholdSeconds: 96 * HOUR, stale: false });
    expect(f.gold).toEqual({
      updatedAt: null,
      ageSeconds: null,
      thresholdSeconds: 24 * HOUR,
      published: true,
      stale: true,
    });
  });
});

/** The admin URL is the banner's `Metrics:` line. */
async function findAdmin(server: ServerProcess): Promise<string> {
  const end = Date.now() + 5_000;
  while (Date.now() < end) {
    const m = /Metrics: (\S+)\/metrics/.exec(server.stdout());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server did not print its admin URL: ${server.stdout()}`);
}
