/**
 * The one writer of /v1 answers (src/http/pipeline/write.ts) over real TLS: a 200,
 * a HEAD, a 304, a 404, a 429 and a 503 each carry exactly one X-Request-Id (equal to
 * `meta.requestId` where there is a body) and Strict-Transport-Security, and
 * a draining server's answers close their connections. Deleting any line of
 * the writer that sets them fails here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { LimiterUnavailableError } from '../../src/limits/limiter.js';
import { generateSample } from '../../src/sample/generate.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { openStore } from '../../src/storage/open.js';
import { SAMPLE_END } from '../support/harness.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { withinOneMinute } from '../support/wait.js';

const HSTS = 'max-age=31536000; includeSubDomains';
/** Keep-alive: a `Connection: close` in an answer is then the server's own choice. */
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: string[];
  body: string;
}

describe('the /v1 writer over TLS', () => {
  let dir: string;
  let server: RunningServer;
  let key: string;
  let limitedKey: string;

  function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
    return new Promise((resolve, reject) => {
      const req = https.request(`${server.url}${path}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            raw: res.rawHeaders,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  }

  function expectWritten(res: Got, status: number): void {
    const where = `${res.status} ${JSON.stringify(res.headers)} ${res.body.slice(0, 200)}`;
    expect(res.status, where).toBe(status);
    expect(res.headers['strict-transport-security'], where).toBe(HSTS);
    const ids = res.raw.filter((_, i) => i % 2 === 0 && res.raw[i]!.toLowerCase() === 'x-request-id');
    expect(ids, where).toHaveLength(1);
    if (res.body !== '') expect(JSON.parse(res.body).meta.requestId, where).toBe(res.headers['x-request-id']);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-writer-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: SAMPLE_END, days: 10 }));
    const account = await createAccount(store, {});
    const grant = (requestsPerMinute: number) =>
      createGrant(store, {
        accountId: account.id,
        plan: 'p',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute,
      });
    key = (await createKey(store, { grantId: (await grant(10_000)).id })).key;
    limitedKey = (await createKey(store, { grantId: (await grant(1)).id })).key;
    await store.close();
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      databaseUrl: db,
      tlsCert: join(dir, 'cert.pem'),
      tlsKey: join(dir, 'key.pem'),
      logLevel: 'silent',
      drainMs: 0,
    });
  }, 30_000);

  afterAll(async () => {
    agent.destroy();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('200 and HEAD', async () => {
    expectWritten(await get('/v1/rates/latest', { authorization: `Bearer ${key}` }), 200);
    expectWritten(await get('/v1/rates/latest', { 'x-api-key': key }), 200);
    const head = await get('/v1/rates/latest', { authorization: `Bearer ${key}` }, 'HEAD');
    expectWritten(head, 200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });

  it('304 for a matching If-None-Match', async () => {
    const first = await get('/v1/rates/latest', { authorization: `Bearer ${key}` });
    const again = await get('/v1/rates/latest', {
      authorization: `Bearer ${key}`,
      'if-none-match': String(first.headers.etag),
    });
    expectWritten(again, 304);
    expect(again.body).toBe('');
  });

  it('404 for an unknown currency, and for an unknown path', async () => {
    expectWritten(await get('/v1/rates/history?currency=ZZZ', { authorization: `Bearer ${key}` }), 404);
    expectWritten(await get('/v1/nothing', { authorization: `Bearer ${key}` }), 404);
  });

  it('429 past the per-minute limit', async () => {
    await withinOneMinute();
    expectWritten(await get('/v1/me', { authorization: `Bearer ${limitedKey}` }), 200);
    expectWritten(await get('/v1/rates/latest', { authorization: `Bearer ${limitedKey}` }), 429);
    expectWritten(await get('/v1/rates/latest', { 'x-api-key': limitedKey }), 429);
  });

  it('503 while the limiter is away', async () => {
    const { limiter } = server.runtime.services;
    const away = new LimiterUnavailableError(new Error('away'));
    const consume = vi.spyOn(limiter, 'consume').mockRejectedValue(away);
    try {
      const res = await get('/v1/rates/latest', { authorization: `Bearer ${key}` });
      expectWritten(res, 503);
      expect(res.headers['retry-after']).toBeDefined();
      expectWritten(await get('/v1/rates/latest', { 'x-api-key': key }), 503);
    } finally {
      consume.mockRestore();
    }
  });

  it('a failure after the answer went out is logged, not answered a second time', async () => {
    // The observer (metrics) fails once the answer is written; routes and statuses this file
    // asks nowhere else, so their metric series are made now.
    const tallies = vi.spyOn(server.runtime.services.metrics.requestTallies, 'for').mockReturnValue({
      inc() {
        throw new Error('metrics away');
      },
    } as never);
    try {
      const auth = { authorization: `Bearer ${key}` };
      expectWritten(await get('/v1/market/premium/history?limit=x', auth), 400);
      expectWritten(await get('/v1/gold/history?limit=x', auth), 400);
      expect(tallies).toHaveBeenCalledTimes(2);
    } finally {
      tallies.mockRestore();
    }
    // The connections were kept, not cut by a second answer.
    expectWritten(await get('/v1/rates/latest', { authorization: `Bearer ${key}` }), 200);
  });

  it('while draining, an answer closes its connection', async () => {
    server.runtime.services.lifecycle.draining = true;
    try {
      const res = await get('/v1/rates/latest', { authorization: `Bearer ${key}` });
      expectWritten(res, 200);
      expect(res.headers.connection).toBe('close');
      // Not draining: the same request keeps its connection.
      server.runtime.services.lifecycle.draining = false;
      expect((await get('/v1/rates/latest', { 'x-api-key': key })).headers.connection).toBe('keep-alive');
    } finally {
      server.runtime.services.lifecycle.draining = false;
    }
  });
});
