/**
 * Graceful stop: SIGTERM under load stops accepting, lets every
 * in-flight request finish, flushes usage and exits; no answered unit is lost.
 * Requests that still arrive on open connections get our answers
 * (docs/decisions.md 20).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { backends } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { type RawResponse, ResponseReader } from '../support/raw-http.js';
import { spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

describe('SIGTERM under load', () => {
  let dir: string;
  let db: string;
  let key: string;
  let grantId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-stop-'));
    db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 400 }));
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'p',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 1_000_000,
    });
    grantId = grant.id;
    key = (await createKey(store, { grantId })).key;
    await store.close();
  }, 30_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finishes every in-flight request and counts every answered unit', async () => {
    const server = await spawnServer({ db });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
    type Outcome =
      | { kind: 'answered'; status: number }
      | { kind: 'refused' }
      | { kind: 'broken'; error: string };
    const one = (path: string) =>
      new Promise<Outcome>((resolve) => {
        const req = http.get(
          `${server.url}${path}`,
          { agent, headers: { authorization: `Bearer ${key}` } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ kind: 'answered', status: res.statusCode! }));
            res.on('error', (e) => resolve({ kind: 'broken', error: e.message }));
          },
        );
        req.on('error', (e: NodeJS.ErrnoException) =>
          resolve(
            e.code === 'ECONNREFUSED'
              ? { kind: 'refused' }
              : { kind: 'broken', error: `${e.code} ${e.message}` },
          ),
        );
      });

    // Keep 40 requests in flight, heavy ones among them, and stop the server mid-stream.
    // The requests outstanding at SIGTERM must all be answered; later ones may be refused.
    const outcomes: Promise<Outcome>[] = [];
    const outstanding = new Set<Promise<Outcome>>();
    let stopping = false;
    const pump = async (i: number) => {
      for (;;) {
        const path =
          i % 2 ? '/v1/rates/history?currency=EUR&from=2025-11-20&to=2026-11-20&limit=1000' : '/v1/assets';
        const p = one(path);
        outcomes.push(p);
        outstanding.add(p);
        const o = await p;
        outstanding.delete(p);
        if (stopping && o.kind !== 'answered') return;
      }
    };
    const pumps = Array.from({ length: 40 }, (_, i) => pump(i));
    // Traffic under way (at most 40 in flight, so over 50 of these have been answered).
    await waitFor(() => outcomes.length > 90, { timeout: 10_000, what: 'traffic under way' });
    stopping = true;
    const inFlight = [...outstanding];
    const stopped = server.stop();
    const inFlightResults = await Promise.all(inFlight);
    await Promise.all(pumps);
    await stopped;
    agent.destroy();

    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlightResults.filter((r) => r.kind !== 'answered' || r.status !== 200)).toEqual([]);
    const results = await Promise.all(outcomes);
    const ok = results.filter((r) => r.kind === 'answered' && r.status === 200).length;
    // Later requests are answered normally while draining; once the listener closes,
    // one landing on a closing connection may get 503 (no unit consumed): never another status.
    expect(results.filter((r) => r.kind === 'answered' && r.status !== 200 && r.status !== 503)).toEqual([]);
    expect(ok).toBeGreaterThan(50);
    expect(server.proc.exitCode).toBe(0);

    const store = openStore(db);
    const used = await store.usage.getUsage(grantId, new Date().toISOString().slice(0, 7));
    await store.close();
    expect(used).toBe(ok);
  }, 60_000);

  /**
   * Requests that reach a stopping server on connections it already holds: kept
   * alive, or pipelined several at a time. Whatever the server answers must be
   * one of ours (see notOurs). A unit is counted only for an answer the client
   * received: a pipelined request whose connection closes before its turn
   * consumes nothing.
   */
  it.each([
    ['with no drain', '0'],
    ['after the drain', undefined],
  ])(
    'every answer on kept-alive and pipelined connections stopping %s is ours',
    async (_, drainMs) => {
      const store = openStore(db);
      const account = await createAccount(store, {});
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'p',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 1_000_000,
      });
      const ownKey = (await createKey(store, { grantId: grant.id })).key;
      await store.close();

      const server = await spawnServer({ db, env: drainMs === undefined ? {} : { MDS_DRAIN_MS: drainMs } });
      const port = Number(new URL(server.url).port);
      // A verified key: from now on its Bearer requests are answered from the key cache.
      expect(
        (await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${ownKey}` } })).status,
      ).toBe(200);
      const traffic = load(port, ownKey);
      await waitFor(() => traffic.received.length > 20, { timeout: 10_000, what: 'traffic under way' });
      const before = traffic.received.length;
      await server.stop();
      await traffic.finished;
      const { received } = traffic;

      expect(traffic.errors).toEqual([]);
      expect(server.proc.exitCode).toBe(0);
      expect(before).toBeGreaterThan(20);
      expect(received.length, 'answers after SIGTERM was sent').toBeGreaterThan(before);
      if (drainMs === undefined) {
        // Without a drain every connection may be idle when the listener closes (Node
        // then closes them unanswered, the keep-alive race); a drain answers with close.
        const closing = received.filter((r) => r.headers.connection === 'close');
        expect(closing.length, 'answers while stopping').toBeGreaterThan(0);
      }
      expect(notOurs(received)).toEqual([]);

      const check = openStore(db);
      const used = await check.usage.getUsage(grant.id, new Date().toISOString().slice(0, 7));
      await check.close();
      // The /v1/me that verified the key, and every 200 received.
      expect(used).toBe(received.filter((r) => r.status === 200).length + 1);
    },
    60_000,
  );
});

describe.each(backends())('app.close() in process on $name', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('answers requests on open connections as ours, verified keys included, and closes them', async () => {
    const { key } = await h.newKey();
    expect((await h.get('/v1/me', key)).statusCode).toBe(200); // verifies the key (cached)
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (h.app.server.address() as AddressInfo).port;
    const traffic = load(port, key, '/v1/rates/history?currency=EUR&limit=1000');
    await waitFor(() => traffic.received.length > 20, { timeout: 10_000, what: 'traffic under way' });
    const before = traffic.received.length;
    // Without server.ts's drain: app.close() alone must end connections that keep sending.
    // It starts as a request arrives, so that one connection at least is busy, not idle.
    const closed = new Promise<string>((resolve) =>
      h.app.server.prependOnceListener('request', () => resolve(h.app.close().then(() => 'closed'))),
    );
    const late = new Promise((r) => setTimeout(() => r('still open after 5 s'), 5_000).unref());
    expect(await Promise.race([closed, late])).toBe('closed');
    await traffic.finished;

    expect(traffic.errors).toEqual([]);
    expect(before).toBeGreaterThan(20);
    expect(notOurs(traffic.received)).toEqual([]);
  });
});

const PATHS = [
  '/v1/rates/latest',
  '/v1/assets',
  '/v1/rates/history?currency=EUR&from=2025-11-20&to=2026-11-20&limit=1000',
  '/v1/gold/latest',
  '/v1/market/premium',
];

/**
 * 16 clients on kept-alive connections, half sending one request at a time and
 * half pipelining three, each reconnecting when the server closes its connection,
 * until the server refuses connections.
 */
function load(port: number, key: string, heavy = PATHS[2]!) {
  const paths = [...PATHS.slice(0, 2), heavy, ...PATHS.slice(3)];
  const request = (n: number) =>
    `GET ${paths[n % paths.length]} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  const received: RawResponse[] = [];
  const errors: string[] = [];
  let sent = 0;
  /** One connection, `batch` requests at a time, until the server closes it. */
  const connection = (batch: number) =>
    new Promise<'refused' | 'closed'>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      const reader = new ResponseReader();
      let pending = 0;
      const write = () => {
        let bytes = '';
        for (let k = 0; k < batch; k++) bytes += request(sent++);
        pending = batch;
        socket.write(bytes);
      };
      socket.on('connect', write);
      socket.on('data', (chunk: Buffer) => {
        const got = reader.push(chunk);
        received.push(...got);
        pending -= got.length;
        if (pending === 0 && socket.writable) write();
      });
      socket.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ECONNREFUSED') resolve('refused');
        else if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') errors.push(`${e.code} ${e.message}`);
      });
      socket.on('close', () => resolve('closed'));
    });
  const client = async (i: number) => {
    while ((await connection(i % 2 === 0 ? 1 : 3)) !== 'refused');
  };
  const finished = Promise.all(Array.from({ length: 16 }, (_, i) => client(i))).then(() => {});
  return { received, errors, finished };
}

/**
 * What is not one of our answers: every answer has X-Request-Id equal to
 * meta.requestId; it is a 200, or a 503 with our envelope (service_unavailable),
 * Retry-After and Connection: close.
 */
function notOurs(received: RawResponse[]): string[] {
  const wrong: string[] = [];
  for (const r of received) {
    const where = `${r.status} ${JSON.stringify(r.headers)} ${r.body.toString().slice(0, 200)}`;
    let body: { data?: unknown; error?: { status?: number; code?: unknown }; meta?: { requestId?: unknown } };
    try {
      body = JSON.parse(r.body.toString());
    } catch {
      wrong.push(`not JSON: ${where}`);
      continue;
    }
    const id = r.headers['x-request-id'];
    if (!id || body.meta?.requestId !== id) wrong.push(`request id: ${where}`);
    if (r.status === 200) continue;
    if (body.data !== null || body.error?.status !== r.status || typeof body.error.code !== 'string') {
      wrong.push(`not our envelope: ${where}`);
    }
    if (r.status !== 503) wrong.push(`neither 200 nor 503: ${where}`);
    else {
      if (body.error?.code !== 'service_unavailable') wrong.push(`503 code: ${where}`);
      if (!/^[1-9]\d*$/.test(r.headers['retry-after'] ?? '')) wrong.push(`503 without Retry-After: ${where}`);
      if (r.headers.connection !== 'close') wrong.push(`503 without Connection: close: ${where}`);
    }
  }
  return wrong;
}
