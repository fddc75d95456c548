/**
 * The reporter listener of a running `mds serve` (docs/decisions.md 110):
 * with MDS_REPORT_PORT it serves /report and nothing else (no /admin, no
 * /metrics, no /v1); the public port never serves /report; off the loopback
 * it needs the admin listener's TLS (or MDS_ADMIN_ALLOW_PLAINTEXT=1), else
 * `mds serve` exits 2 naming the address and the fixes.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganisation, createReporter } from '../../../src/use-cases/reporters.js';
import { TEST_ACTOR } from '../../support/admin.js';
import { mds } from '../../support/cli.js';
import {
  bannerUrl,
  httpsGet,
  listenerStore,
  selfSignedCertificate,
  TLS_FIXES,
} from '../../support/listener.js';
import { conformingFetch } from '../../support/openapi.js';
import { type ServerProcess, spawnServer } from '../../support/server-process.js';

let dir: string;
let db: string;
let token: string;
let adminToken: string;

beforeAll(async () => {
  ({ dir, db, adminToken } = await listenerStore('mds-report-listener-', async (store) => {
    const organisation = await createOrganisation(store, TEST_ACTOR, { name: 'Desk' });
    if (!organisation.ok) throw new Error(JSON.stringify(organisation.error));
    const reporter = await createReporter(store, TEST_ACTOR, {
      organisationId: organisation.value.id,
      label: 'Field phone',
      markets: ['21K'],
    });
    if (!reporter.ok) throw new Error(JSON.stringify(reporter.error));
    token = reporter.value.token;
  }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reporter URL the banner prints (`Reporter API: <url>/report/v1`). */
const reportUrlOf = (server: ServerProcess) => bannerUrl(server, /Reporter API: (\S+)\/report\/v1/);

describe('the reporter listener beside the public one', () => {
  let server: ServerProcess;
  let report: string;
  beforeAll(async () => {
    server = await spawnServer({ db, env: { MDS_REPORT_PORT: '0' } });
    report = await reportUrlOf(server);
  }, 30_000);
  afterAll(async () => server?.stop());

  it('serves /report/v1 and its document, checked against /report/openapi.json', async () => {
    const { res, text } = await conformingFetch(
      `${report}/report/v1/quotes`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ market: '21K', buy: '9800', sell: '9900' }),
      },
      '/report/openapi.json',
    );
    expect(res.status, text).toBe(201);
    const me = await conformingFetch(
      `${report}/report/v1/me`,
      { headers: { authorization: `Bearer ${token}` } },
      '/report/openapi.json',
    );
    expect(JSON.parse(me.text).data.markets).toEqual(['21K']);
  });

  it('serves neither /admin nor /metrics nor /v1 there', async () => {
    for (const path of ['/admin/v1/accounts', '/admin/openapi.json', '/metrics', '/v1/assets']) {
      const res = await fetch(`${report}${path}`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    }
  });

  it('never serves /report on the public port', async () => {
    for (const path of ['/report/v1/me', '/report/openapi.json']) {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, path).toBe(404);
    }
  });
});

describe('the reporter listener off the loopback', () => {
  it('is refused without TLS: mds serve exits 2 naming the address and the fixes', async () => {
    const res = await mds(['serve', '--port', '0'], {
      db,
      env: { MDS_REPORT_PORT: '0', MDS_REPORT_HOST: '0.0.0.0' },
    });
    expect(res.status, res.stderr).toBe(2);
    for (const part of ['MDS_REPORT_HOST', '0.0.0.0', ...TLS_FIXES]) expect(res.stderr).toContain(part);
  });

  it('serves HTTPS with HSTS there given the admin listener’s certificate', async () => {
    const { cert, key } = selfSignedCertificate(dir);
    const server = await spawnServer({
      db,
      env: {
        MDS_REPORT_PORT: '0',
        MDS_REPORT_HOST: '0.0.0.0',
        MDS_ADMIN_TLS_CERT: cert,
        MDS_ADMIN_TLS_KEY: key,
      },
    });
    try {
      const report = (await reportUrlOf(server)).replace('0.0.0.0', '127.0.0.1');
      expect(report.startsWith('https://')).toBe(true);
      const res = await httpsGet(`${report}/report/v1/me`, token);
      expect(res.status, res.body).toBe(200);
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await server.stop();
    }
  }, 30_000);
});
