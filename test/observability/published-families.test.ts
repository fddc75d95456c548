/**
 * A family the operator does not publish (MDS_PUBLISHED_FAMILIES,
 * docs/decisions.md 99), through a running `mds serve` without any transfer
 * rate: `/status` lists it with `published: false`, never stale, and is `ok`
 * overall; the admin port's freshness gauges have no series for it, so no
 * alert of docs/operations.md fires for it.
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

const WEEK = 7 * 24 * 3_600;

describe('a family not published, on /status and the gauges', () => {
  let dir: string;
  let server: ServerProcess;
  let adminUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-published-'));
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    const sample = generateSample({ endDate: SAMPLE_END, days: 3 });
    // No transfer rate at all: the operator does not publish them.
    await seedSample(store, { ...sample, rates: sample.rates.filter((r) => r.source !== 'transfer') });
    await store.close();
    server = await spawnServer({
      db,
      env: {
        MDS_ADMIN_PORT: '0',
        // The sample ends yesterday: a week keeps the published families fresh.
        MDS_STALE_AFTER: 'parallel=7d,official=7d,gold=7d',
        MDS_PUBLISHED_FAMILIES: 'parallel,official,gold',
      },
    });
    const end = Date.now() + 5_000;
    while (!/Metrics: (\S+)\/metrics/.test(server.stdout()) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    adminUrl = /Metrics: (\S+)\/metrics/.exec(server.stdout())![1]!;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/status is ok, and lists transfer as not published and not stale', async () => {
    const { status, body } = await getJson(`${server.url}/status`);
    expect(status).toBe(200);
    expect(body.data.status).toBe('ok');
    expect(body.data.families.transfer).toEqual({
      updatedAt: null,
      ageSeconds: null,
      thresholdSeconds: 48 * 3_600,
      published: false,
      stale: false,
    });
    for (const family of ['parallel', 'official', 'gold'])
      expect(body.data.families[family], family).toMatchObject({
        thresholdSeconds: WEEK,
        published: true,
        stale: false,
      });
  });

  it('the gauges have no transfer series, neither age nor threshold', async () => {
    const res = await fetch(`${adminUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const families = (name: string) =>
      [...text.matchAll(new RegExp(`^${name}\\{family="([a-z]+)"\\} \\S+$`, 'gm'))].map(([, f]) => f).sort();
    expect(families('mds_data_age_seconds')).toEqual(['gold', 'official', 'parallel']);
    expect(families('mds_data_stale_threshold_seconds')).toEqual(['gold', 'official', 'parallel']);
  });
});
