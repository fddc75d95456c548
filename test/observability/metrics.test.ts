/**
 * Prometheus metrics on the admin port only: request counts and
 * latency by route template and status, limiter decisions, store latency,
 * cache lookups, usage flush lag; never a key or a grant id in a label.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { withinOneMinute } from '../support/wait.js';

describe('metrics on the admin port', () => {
  let dir: string;
  let server: ServerProcess;
  let adminUrl: string;
  let key: string;
  let grantId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-metrics-'));
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 30 }));
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'p',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1000,
      requestsPerMinute: 3,
    });
    grantId = grant.id;
    key = (await createKey(store, { grantId })).key;
    await store.close();
    server = await spawnServer({ db, env: { MDS_ADMIN_PORT: '0' } });
    // The public port must not serve metrics; the admin port must.
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    adminUrl = await findAdmin(server);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts requests by route template and status, limiter decisions and cache lookups', async () => {
    // Three of four requests pass a limit of 3 a minute only if the four share one minute.
    await withinOneMinute();
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 4; i++) await fetch(`${server.url}/v1/rates/latest?currency=EUR`, { headers: auth });
    // With the probe of /metrics on the public port in beforeAll, two unmatched requests.
    await fetch(`${server.url}/v1/nope`);
    const text = await (await fetch(`${adminUrl}/metrics`)).text();
    expect(text).toMatch(/mds_http_requests_total\{route="\/v1\/rates\/latest",status="200"\} 3/);
    expect(text).toMatch(/mds_http_requests_total\{route="\/v1\/rates\/latest",status="429"\} 1/);
    expect(text).toMatch(/mds_http_requests_total\{route="unmatched",status="404"\} 2/);
    expect(text).toMatch(
      /mds_http_request_duration_seconds_bucket\{le="0.005",route="\/v1\/rates\/latest",status="200"\}/,
    );
    // The latency histogram: cumulative buckets ending in +Inf, then _sum and _count.
    const series = '{route="/v1/rates/latest",status="200"}';
    const buckets = [
      ...text.matchAll(
        /mds_http_request_duration_seconds_bucket\{le="([^"]+)",route="\/v1\/rates\/latest",status="200"\} (\d+)/g,
      ),
    ];
    expect(buckets.map((b) => b[1])).toEqual([
      ...'0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5'.split(' '),
      '+Inf',
    ]);
    const counts = buckets.map((b) => Number(b[2]));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).toBe(3);
    expect(text).toContain(`mds_http_request_duration_seconds_count${series} 3`);
    const sum = Number(
      new RegExp(`mds_http_request_duration_seconds_sum${series.replace(/[{}/]/g, '\\$&')} (\\S+)`).exec(
        text,
      )?.[1],
    );
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(3 * 5);
    expect(text).toContain('# TYPE mds_http_request_duration_seconds histogram');
    expect(text).toMatch(/mds_limiter_decisions_total\{decision="allowed"\} 3/);
    expect(text).toMatch(/mds_limiter_decisions_total\{decision="rate_limited"\} 1/);
    expect(text).toMatch(/mds_cache_lookups_total\{cache="verified_keys",result="hit"\} 3/);
    expect(text).toMatch(
      /mds_store_operation_duration_seconds_count\{operation="versions",outcome="ok"\} \d+/,
    );
    expect(text).toMatch(/mds_usage_flush_lag_seconds_count \d+/);
    expect(text).toMatch(/mds_process_resident_memory_bytes \d+/);
    // Labels never carry who asked.
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(0, 21));
    expect(text).not.toContain(grantId);
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
