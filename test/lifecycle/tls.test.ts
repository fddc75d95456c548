/**
 * Native HTTPS (decisions §10, issue #6): with a certificate and key the server
 * speaks TLS 1.2+ only and sends Strict-Transport-Security. The certificate is
 * self-signed and generated for this run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, spawnServer } from '../support/server-process.js';

describe('TLS', () => {
  let dir: string;
  let server: ServerProcess;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    server = await spawnServer({
      db: join(dir, 'mds.sqlite'),
      env: { MDS_TLS_CERT: join(dir, 'cert.pem'), MDS_TLS_KEY: join(dir, 'key.pem') },
    });
    port = Number(new URL(server.url).port);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS with HSTS and the request id on every response', async () => {
    expect(server.url.startsWith('https://')).toBe(true);
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        https
          .get(`${server.url}/v1/assets`, { rejectUnauthorized: false }, (r) => {
            let body = '';
            r.on('data', (d) => {
              body += d;
            });
            r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body }));
          })
          .on('error', reject);
      },
    );
    expect(res.status).toBe(401);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(JSON.parse(res.body).meta.requestId).toBe(res.headers['x-request-id']);
  });

  it('refuses TLS 1.1 and accepts TLS 1.2 and 1.3', async () => {
    const handshake = (version: tls.SecureVersion) =>
      new Promise<string>((resolve) => {
        const socket = tls.connect(
          { host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: version, maxVersion: version },
          () => {
            resolve(socket.getProtocol() ?? 'none');
            socket.end();
          },
        );
        socket.on('error', () => resolve('refused'));
      });
    expect(await handshake('TLSv1.1')).toBe('refused');
    expect(await handshake('TLSv1.2')).toBe('TLSv1.2');
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3');
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    const result = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status,
      () => 'failed',
    );
    expect(result).not.toBe(200);
  });
});
