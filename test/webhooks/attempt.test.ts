/**
 * Delivery attempts against real receivers on 127.0.0.1: each receiver checks
 * every signature with the Standard Webhooks package's verify, as a
 * customer's would. The URLs name hosts that do not resolve (receiver.test):
 * the attempt reaches the receiver only through the pinned address, and the
 * receiver still sees the URL's host in Host and in TLS SNI.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attempt } from '../../src/webhooks/attempt.js';
import { newSecret, signatureHeaders } from '../../src/webhooks/signing.js';

const OLD = newSecret();
const NEW = newSecret();
const OTHER = newSecret();
const KNOWN = { OLD, NEW, OTHER };

interface Received {
  path: string;
  host: string | undefined;
  contentType: string | undefined;
  userAgent: string | undefined;
  body: string;
  /** The names of the known secrets whose verify accepts the request. */
  verifiedWith: string[];
}

const received: Received[] = [];

/** The receiver's routes: /ok, /fail (a 500 with an endless body), /hang, /redirect, /headers-only. */
function receive(req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers[name] = value;
    const verifiedWith = Object.entries(KNOWN)
      .filter(([, secret]) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      })
      .map(([name]) => name);
    received.push({
      path: req.url ?? '',
      host: req.headers.host,
      contentType: req.headers['content-type'],
      userAgent: req.headers['user-agent'],
      body,
      verifiedWith,
    });
    switch (req.url) {
      case '/ok':
        res.writeHead(204).end();
        return;
      case '/accepted':
        res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
        return;
      case '/fail':
        // Far more than the prefix, and never ended: the attempt must not wait for the rest.
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.write(`é${'x'.repeat(299)}`);
        res.write('y'.repeat(64 * 1024));
        return;
      case '/redirect':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end('moved');
        return;
      case '/headers-only':
        res.writeHead(200);
        res.write('partial');
        return;
      default:
        // /hang: no answer at all.
        return;
    }
  });
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function close(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const BODY = JSON.stringify({ type: 'rate.changed', data: { code: 'EUR', buy: 262.5 } });

/** Signed headers for BODY, as the delivery worker builds them. */
const signed = (secrets: string[], id = 'msg_1') =>
  signatureHeaders({ id, timestamp: new Date(), payload: BODY, secrets });

describe('attempt', () => {
  const server = http.createServer(receive);
  let port: number;
  const at = (path: string) => new URL(`http://receiver.test:${port}${path}`);
  const send = (path: string, extra: { timeoutMs?: number; headers?: Record<string, string> } = {}) =>
    attempt({
      url: at(path),
      address: '127.0.0.1',
      family: 4,
      headers: extra.headers ?? signed([NEW]),
      body: BODY,
      timeoutMs: extra.timeoutMs,
    });

  beforeAll(async () => {
    port = await listen(server);
  });

  afterAll(async () => {
    await close(server);
  });

  it('delivers to the pinned address with the signature, Host and the fixed headers', async () => {
    received.length = 0;
    const result = await send('/ok');
    expect(result).toMatchObject({ ok: true, status: 204, responsePrefix: '', error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toEqual([
      {
        path: '/ok',
        host: `receiver.test:${port}`,
        contentType: 'application/json',
        userAgent: 'mds-webhooks/1',
        body: BODY,
        verifiedWith: ['NEW'],
      },
    ]);
    expect(await send('/accepted')).toMatchObject({
      ok: true,
      status: 200,
      responsePrefix: 'thanks',
      error: null,
    });
  });

  it('signs with both secrets during a rotation: the receiver verifies with either', async () => {
    received.length = 0;
    const result = await send('/ok', { headers: signed([OLD, NEW], 'msg_rotated') });
    expect(result.ok).toBe(true);
    expect(received.map((r) => r.verifiedWith)).toEqual([['OLD', 'NEW']]);
  });

  it('fails on a 500, keeping the status and 256 characters of the body without reading the rest', async () => {
    const result = await send('/fail', { timeoutMs: 5_000 });
    expect(result).toMatchObject({ ok: false, status: 500, error: null });
    expect(result.responsePrefix).toBe(`é${'x'.repeat(255)}`);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('gives up at the deadline when the receiver never answers', async () => {
    const result = await send('/hang', { timeoutMs: 300 });
    expect(result).toMatchObject({
      ok: false,
      status: null,
      responsePrefix: '',
      error: 'timeout after 300 ms',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3_000);
  });

  it('counts a 2xx as delivered when the body outlasts the deadline', async () => {
    // The body never ends, so the deadline can be long enough for the headers on a loaded machine.
    const result = await send('/headers-only', { timeoutMs: 1_500 });
    expect(result).toEqual({
      ok: true,
      status: 200,
      durationMs: expect.any(Number),
      responsePrefix: 'partial',
      error: 'timeout after 1500 ms while reading the answer',
    });
  });

  it('does not follow a redirect', async () => {
    received.length = 0;
    const result = await send('/redirect');
    expect(result).toMatchObject({
      ok: false,
      status: 302,
      responsePrefix: 'moved',
      error: 'redirect not followed (302 to http://169.254.169.254/latest/meta-data)',
    });
    expect(received.map((r) => r.path)).toEqual(['/redirect']);
  });

  it('reports a refused connection', async () => {
    const gone = http.createServer();
    const closedPort = await listen(gone);
    await close(gone);
    const result = await attempt({
      url: new URL(`http://receiver.test:${closedPort}/ok`),
      address: '127.0.0.1',
      family: 4,
      headers: signed([NEW]),
      body: BODY,
    });
    expect(result).toMatchObject({
      ok: false,
      status: null,
      responsePrefix: '',
      error: 'connection refused',
    });
  });

  it('reports a failed handshake when an https:// URL reaches a plain HTTP port', async () => {
    const result = await attempt({
      url: new URL(`https://receiver.test:${port}/ok`),
      address: '127.0.0.1',
      family: 4,
      headers: signed([NEW]),
      body: BODY,
    });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/^TLS handshake failed: \S/);
  });

  it('answers a result, not an exception, for a header node:http refuses', async () => {
    const result = await send('/ok', { headers: { ...signed([NEW]), 'x-broken': 'a\nb' } });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ERR_INVALID_CHAR/);
  });
});

describe('attempt over TLS', () => {
  let dir: string;
  let server: https.Server;
  let port: number;
  const servernames: (string | undefined)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-webhooks-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=receiver.test',
        '-addext',
        'subjectAltName=DNS:receiver.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const context = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    server = https.createServer(
      {
        ...context,
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null, tls.createSecureContext(context));
        },
      },
      receive,
    );
    port = await listen(server);
  }, 30_000);

  afterAll(async () => {
    if (server !== undefined) await close(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends the URL's host as SNI and refuses a self-signed certificate", async () => {
    received.length = 0;
    const result = await attempt({
      url: new URL(`https://receiver.test:${port}/ok`),
      address: '127.0.0.1',
      family: 4,
      headers: signed([NEW]),
      body: BODY,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, status: null, responsePrefix: '' });
    expect(result.error).toMatch(/^TLS certificate refused: .*self[- ]signed/i);
    expect(servernames).toEqual(['receiver.test']);
    expect(received).toEqual([]);
  });
});
