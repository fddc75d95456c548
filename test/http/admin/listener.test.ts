/**
 * The admin listener of a running `mds serve` (docs/decisions.md 58): the
 * admin API only there and /v1 only on the public port; /metrics and the
 * admin document keyless; off the loopback only with TLS (or
 * MDS_ADMIN_ALLOW_PLAINTEXT=1), else `mds serve` exits 2 naming the address
 * and both fixes; HTTPS with a certificate (self-signed, made for this run).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  ({ dir, db, adminToken: token } = await listenerStore('mds-admin-listener-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The admin URL the banner prints (`Metrics: <url>/metrics`). */
const adminUrlOf = (server: ServerProcess) => bannerUrl(server, /Metrics: (\S+)\/metrics/);

describe('the admin listener beside the public one', () => {
  let server: ServerProcess;
  let admin: string;
  beforeAll(async () => {
    server = await spawnServer({ db, env: { MDS_ADMIN_PORT: '0' } });
    admin = await adminUrlOf(server);
  }, 30_000);
  afterAll(async () => server?.stop());

  const auth = () => ({ headers: { authorization: `Bearer ${token}` } });

  it('serves /admin/v1 on the admin port, checked against /admin/openapi.json', async () => {
    const { res, text } = await conformingFetch(`${admin}/admin/v1/accounts`, auth(), '/admin/openapi.json');
    expect(res.status).toBe(200);
    expect(JSON.parse(text).meta.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('never serves /admin/v1 on the public port: 404 route_not_found', async () => {
    for (const path of ['/admin/v1/accounts', '/admin/openapi.json']) {
      const res = await fetch(`${server.url}${path}`, auth());
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    }
  });

  it('never serves /v1 on the admin port: 404 route_not_found', async () => {
    const res = await fetch(`${admin}/v1/assets`, auth());
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });

  it('keeps /metrics and the admin document keyless', async () => {
    const metrics = await fetch(`${admin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE');
    const doc = await fetch(`${admin}/admin/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});

describe('the admin listener off the loopback', () => {
  it('is refused without TLS: mds serve exits 2 naming the address and both fixes', async () => {
    const res = await mds(['serve', '--port', '0'], {
      db,
      env: { MDS_ADMIN_PORT: '0', MDS_ADMIN_HOST: '0.0.0.0' },
    });
    expect(res.status, res.stderr).toBe(2);
    for (const part of ['MDS_ADMIN_HOST', '0.0.0.0', ...TLS_FIXES]) expect(res.stderr).toContain(part);
  });

  it('is refused with only one of the certificate and the key: exit 2', async () => {
    const res = await mds(['serve', '--port', '0'], {
      db,
      env: { MDS_ADMIN_PORT: '0', MDS_ADMIN_TLS_CERT: join(dir, 'cert.pem') },
    });
    expect(res.status, res.stderr).toBe(2);
    expect(res.stderr).toContain('MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY');
  });

  it('serves plain HTTP there when MDS_ADMIN_ALLOW_PLAINTEXT=1', async () => {
    const server = await spawnServer({
      db,
      env: { MDS_ADMIN_PORT: '0', MDS_ADMIN_HOST: '0.0.0.0', MDS_ADMIN_ALLOW_PLAINTEXT: '1' },
    });
    try {
      const admin = (await adminUrlOf(server)).replace('0.0.0.0', '127.0.0.1');
      expect(
        (await fetch(`${admin}/admin/v1/accounts`, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);

  it('serves HTTPS with HSTS given MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY', async () => {
    const { cert, key } = selfSignedCertificate(dir);
    const server = await spawnServer({
      db,
      env: {
        MDS_ADMIN_PORT: '0',
        MDS_ADMIN_HOST: '0.0.0.0',
        MDS_ADMIN_TLS_CERT: cert,
        MDS_ADMIN_TLS_KEY: key,
      },
    });
    try {
      const admin = (await adminUrlOf(server)).replace('0.0.0.0', '127.0.0.1');
      expect(admin.startsWith('https://')).toBe(true);
      const res = await httpsGet(`${admin}/admin/v1/accounts`, token);
      expect(res.status, res.body).toBe(200);
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(JSON.parse(res.body).meta.requestId).toBe(res.headers['x-request-id']);
    } finally {
      await server.stop();
    }
  }, 30_000);
});
