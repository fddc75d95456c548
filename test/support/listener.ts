/**
 * What the tests of the operator listeners of a running `mds serve` share
 * (test/http/admin/listener.test.ts, test/http/report/listener.test.ts): a
 * store of their own with an admin token, the URL the server's banner prints,
 * a certificate made for the run, and an HTTPS request that trusts it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { TEST_ACTOR } from './admin.js';
import type { ServerProcess } from './server-process.js';
import { waitFor } from './wait.js';

/** The fixes `mds serve` names when an operator listener is off the loopback without TLS. */
export const TLS_FIXES = ['MDS_ADMIN_TLS_CERT', 'MDS_ADMIN_TLS_KEY', 'MDS_ADMIN_ALLOW_PLAINTEXT=1'];

/**
 * A migrated SQLite store in a new temporary directory (named from `prefix`),
 * holding an admin token allowed `accounts:read`; `more` adds to it before it closes.
 */
export async function listenerStore(
  prefix: string,
  more?: (store: Store) => Promise<void>,
): Promise<{ dir: string; db: string; adminToken: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, 'mds.sqlite');
  const store = openStore(db);
  try {
    await store.migrate();
    const admin = await createAdminToken(store, TEST_ACTOR, { label: 'listener', scopes: ['accounts:read'] });
    if (!admin.ok) throw new Error(JSON.stringify(admin.error));
    await more?.(store);
    return { dir, db, adminToken: admin.value.token };
  } finally {
    await store.close();
  }
}

/** The URL the server's banner prints, as `pattern`'s first group (`/Metrics: (\S+)\/metrics/`). */
export function bannerUrl(server: ServerProcess, pattern: RegExp): Promise<string> {
  return waitFor(() => pattern.exec(server.stdout())?.[1], {
    what: () => `the server did not print ${pattern}: ${server.stdout()}`,
  });
}

/** A self-signed certificate for localhost, valid a day, written to `dir`: the files' paths. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const subject = ['-subj', '/CN=localhost', '-keyout', key, '-out', cert];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', ...subject], {
    stdio: 'ignore',
  });
  return { cert, key };
}

/** A GET over HTTPS with `token`, trusting the run's self-signed certificate. */
export function httpsGet(
  url: string,
  token: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } }, (r) => {
        let body = '';
        r.on('data', (d) => {
          body += d;
        });
        r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body }));
      })
      .on('error', reject);
  });
}
