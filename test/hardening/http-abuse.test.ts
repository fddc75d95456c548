/**
 * HTTP-level abuse against a real server process (part 2), over raw
 * sockets where a well-behaved client library would refuse to send the request:
 * over-long URLs and headers, slow clients, idle connections, bodies, odd
 * methods, Transfer-Encoding tricks (no request smuggling), path traversal and
 * a 10 MB header flood. Every answer is our error envelope with a request id,
 * never a 5xx, and the server keeps serving with bounded memory.
 *
 * The server runs with MDS_HEADERS_TIMEOUT_MS=1000 and MDS_REQUEST_TIMEOUT_MS=2000
 * so the timeouts can be observed in seconds, not tens of seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { expectCutOffPartWay, stopReading } from '../support/raw-http.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** Node checks the timeouts once a second (app.ts): a slow client is cut within this much. */
const CHECK_INTERVAL_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const JSON_TYPE = 'application/json; charset=utf-8';

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Exchange {
  responses: Response[];
  /** The server closed the connection (or reset it). */
  closed: boolean;
  /** Milliseconds from connect to close (or to the end of the wait). */
  ms: number;
  /** Bytes the client managed to write. */
  written: number;
  raw: string;
}

/** Complete HTTP/1.1 responses at the start of `data` (Content-Length or chunked bodies). */
function parseResponses(data: Buffer): Response[] {
  const out: Response[] = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return out;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let body: Buffer;
    let p = rest.subarray(end + 4);
    if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      if (p.length < n) return out;
      body = p.subarray(0, n);
      p = p.subarray(n);
    } else if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = p.indexOf('\r\n');
        if (eol === -1) return out;
        const size = Number.parseInt(p.subarray(0, eol).toString('latin1'), 16);
        if (p.length < eol + 2 + size + 2) return out;
        parts.push(p.subarray(eol + 2, eol + 2 + size));
        p = p.subarray(eol + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      body = Buffer.alloc(0);
    }
    out.push({ status, headers, body: body.toString('utf8') });
    rest = p;
  }
}

/**
 * Opens a connection, lets `drive` write to it, and collects what comes back
 * until the server closes the connection, `responses` complete responses have
 * arrived (then waits `grace` ms more for anything unexpected), or `waitMs` passes.
 */
function exchange(
  url: string,
  drive: (socket: net.Socket, track: (n: number) => void) => void,
  options: { responses?: number; waitMs?: number; grace?: number } = {},
): Promise<Exchange> {
  const { port, hostname } = new URL(url);
  const waitMs = options.waitMs ?? 3_000;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let written = 0;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ms = performance.now() - started;
      socket.destroy();
      resolve({ responses: parseResponses(data), closed, ms, written, raw: data.toString('latin1') });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      if (options.responses !== undefined && parseResponses(data).length >= options.responses) {
        setTimeout(() => finish(socket.destroyed || socket.readableEnded), options.grace ?? 0);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', () =>
      drive(socket, (n) => {
        written += n;
      }),
    );
  });
}

/** Sends `payload` at once. */
const send = (url: string, payload: string, options?: Parameters<typeof exchange>[2]) =>
  exchange(url, (s, track) => s.write(payload, () => track(payload.length)), options);

/** Our error envelope with its request id, exactly (decisions §2, §10). */
function expectEnvelope(res: Response | undefined, status: number, code: string): void {
  expect(res, `expected a ${status} response`).toBeDefined();
  expect(res!.status, res!.body).toBe(status);
  expect(res!.headers['content-type']).toBe(JSON_TYPE);
  const body = JSON.parse(res!.body);
  expect(Object.keys(body).sort()).toEqual(['data', 'error', 'meta']);
  expect(body.data).toBeNull();
  expect(body.error.status).toBe(status);
  expect(body.error.code).toBe(code);
  expect(typeof res!.headers['x-request-id']).toBe('string');
  expect(res!.headers['x-request-id']!.length).toBeGreaterThan(0);
  expect(body.meta).toEqual({ requestId: res!.headers['x-request-id'] });
}

function rssKb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

describe('HTTP-level abuse against a running server', () => {
  let dir: string;
  let server: ServerProcess;
  let key: string;
  /** A key used only in smuggling attempts: any unit on its grant means a smuggled request ran. */
  let smuggledKey: string;
  let url: string;

  const get = (path: string, k = key) =>
    send(url, `GET ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${k}\r\n\r\n`, { responses: 1 });

  /** /v1/me for the smuggling grant: requestsUsed counts this call too. */
  const smuggledUsage = async () => {
    const r = await get('/v1/me', smuggledKey);
    expect(r.responses[0]?.status, r.raw).toBe(200);
    return JSON.parse(r.responses[0]!.body).data.usage.requestsUsed as number;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-abuse-'));
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: new Date().toISOString().slice(0, 10), days: 30 }));
    const account = await createAccount(store, {});
    const grant = (g: { rpm: number }) =>
      createGrant(store, {
        accountId: account.id,
        plan: 'p',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: g.rpm,
      });
    key = (await createKey(store, { grantId: (await grant({ rpm: 1_000_000 })).id })).key;
    smuggledKey = (await createKey(store, { grantId: (await grant({ rpm: 1_000_000 })).id })).key;
    await store.close();
    server = await spawnServer({
      db,
      env: {
        MDS_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        MDS_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
    url = server.url;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an over-long URL: 414 with the envelope', async () => {
    const r = await get(`/v1/rates/latest?currency=${'EUR,'.repeat(1100)}EUR`);
    expectEnvelope(r.responses[0], 414, 'uri_too_long');
    // The quota headers are not sent: the request never reached the pipeline.
    expect(r.responses[0]!.headers['x-monthly-quota-remaining']).toBeUndefined();
  });

  it('an expectation other than 100-continue is ignored: answered as usual, with the envelope and X-Request-Id', async () => {
    // Node would otherwise answer its own bare 417 (no envelope, no X-Request-Id).
    const r = await send(
      url,
      `GET /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n`,
    );
    expect(r.responses).toHaveLength(1);
    expect(r.responses[0]!.status).toBe(200);
    const id = r.responses[0]!.headers['x-request-id'];
    expect(id).toBeDefined();
    expect(JSON.parse(r.responses[0]!.body).meta.requestId).toBe(id);
    const missing = await send(
      url,
      'GET /v1/assets HTTP/1.1\r\nHost: test\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
    );
    expectEnvelope(missing.responses[0], 401, 'missing_api_key');
  });

  it('oversized headers: 431 with the envelope and X-Request-Id, connection closed', async () => {
    const r = await send(
      url,
      `GET /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(r.responses).toHaveLength(1);
    expectEnvelope(r.responses[0], 431, 'headers_too_large');
    expect(r.closed).toBe(true);
    // Many small headers add up the same way.
    const many = Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(50)}\r\n`).join('');
    const r2 = await send(url, `GET /v1/assets HTTP/1.1\r\nHost: test\r\n${many}\r\n`);
    expectEnvelope(r2.responses[0], 431, 'headers_too_large');
  });

  it('a client sending its headers byte by byte is cut off by the header timeout (408)', async () => {
    const request = `GET /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    const r = await exchange(
      url,
      (socket, track) => {
        let i = 0;
        const drip = setInterval(() => {
          if (socket.destroyed || i >= request.length) return clearInterval(drip);
          socket.write(request[i++]!, () => track(1));
        }, 50); // 20 bytes a second: the 119-byte request would need 6 s
      },
      { waitMs: 8_000 },
    );
    expect(r.closed).toBe(true);
    expect(r.written).toBeLessThan(request.length);
    expectEnvelope(r.responses[0], 408, 'request_timeout');
    expect(r.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(r.ms).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + 1_500);
  });

  it('a client trickling a request body is cut off by the request timeout', async () => {
    const r = await exchange(
      url,
      (socket, track) => {
        socket.write(`POST /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n`);
        const drip = setInterval(() => {
          if (socket.destroyed) return clearInterval(drip);
          socket.write('x', () => track(1));
        }, 50);
      },
      { waitMs: 8_000 },
    );
    expect(r.closed).toBe(true);
    expect(r.written).toBeLessThan(1000);
    expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 1_500);
    // POST is refused at once (405, the body is not waited for), then the connection is cut.
    expectEnvelope(r.responses[0], 405, 'method_not_allowed');
    for (const res of r.responses.slice(1)) expectEnvelope(res, 408, 'request_timeout');
  });

  it('500 idle keep-alive connections: a normal request is still served, and they are closed after the keep-alive timeout', async () => {
    const N = 500;
    const sockets = await Promise.all(
      Array.from(
        { length: N },
        () =>
          new Promise<{ socket: net.Socket; answeredAt: number; closedAt: Promise<number> }>(
            (resolve, reject) => {
              const { port, hostname } = new URL(url);
              const socket = net.connect(Number(port), hostname);
              let data = Buffer.alloc(0);
              const closedAt = new Promise<number>((r) => socket.on('close', () => r(performance.now())));
              socket.on('error', reject);
              socket.on('data', (d: Buffer) => {
                data = Buffer.concat([data, d]);
                const res = parseResponses(data);
                if (res.length === 1) {
                  if (res[0]!.status !== 200 || res[0]!.headers.connection !== 'keep-alive') {
                    reject(new Error(`unexpected answer: ${data.toString('latin1').slice(0, 200)}`));
                  }
                  resolve({ socket, answeredAt: performance.now(), closedAt });
                }
              });
              socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n');
            },
          ),
      ),
    );
    const lastAnswer = Math.max(...sockets.map((s) => s.answeredAt));
    // All 500 are open and idle; a client with real work is served at once.
    const t0 = performance.now();
    const ok = await get('/v1/assets');
    expect(ok.responses[0]?.status, ok.raw).toBe(200);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(sockets.every((s) => !s.socket.destroyed)).toBe(true);

    // The server closes every idle connection once the keep-alive timeout has passed.
    const closed = await Promise.race([
      Promise.all(sockets.map((s) => s.closedAt)),
      new Promise<null>((r) => setTimeout(() => r(null), KEEP_ALIVE_TIMEOUT_MS + 4_000)),
    ]);
    for (const s of sockets) s.socket.destroy();
    expect(closed, 'idle connections still open after the keep-alive timeout').not.toBeNull();
    for (const [i, at] of closed!.entries()) {
      expect(at - sockets[i]!.answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 500);
    }
    expect(Math.max(...closed!) - lastAnswer).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 3_000);
  }, 20_000);

  it('connections that never send a byte are closed too, and do not block service', async () => {
    const silent = await Promise.all(
      Array.from({ length: 200 }, () => exchange(url, () => {}, { waitMs: 6_000 })),
    );
    for (const r of silent) {
      expect(r.closed).toBe(true);
      expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 1_500);
      // A connection with nothing received may get the 408 envelope, or be closed quietly.
      for (const res of r.responses) expectEnvelope(res, 408, 'request_timeout');
    }
    const ok = await get('/v1/assets');
    expect(ok.responses[0]?.status).toBe(200);
  }, 15_000);

  it('a client that sends requests and never reads its answers is cut off after the request timeout', async () => {
    // 300 pipelined requests for the 145 KB OpenAPI document: far more than the
    // kernel's buffers hold, so the server is left holding answers it cannot send.
    // Stuck for the request timeout, seen by a check that runs once a second.
    const port = Number(new URL(url).port);
    const stall = REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 2_000;
    const r = await stopReading(port, false, '/openapi.json', 300, stall);
    // What the kernel held arrives, then the connection ends: the rest was never sent.
    expectCutOffPartWay(r, 300);
    const ok = await get('/v1/assets');
    expect(ok.responses[0]?.status).toBe(200);
  }, 20_000);

  it('a GET with a body is answered normally; the body is neither read into the answer nor echoed', async () => {
    const secret = 'BODY-CANARY-7f3a9c';
    const body = JSON.stringify({ secret });
    const r = await send(
      url,
      `GET /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        // A second request on the same connection proves the body was consumed as a body.
        `GET /v1/gold/latest HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      { responses: 2 },
    );
    expect(r.responses.map((x) => x.status)).toEqual([200, 200]);
    expect(JSON.parse(r.responses[0]!.body).data.length).toBeGreaterThan(0);
    expect(JSON.parse(r.responses[1]!.body).data[0].purity).toBe('18K');
    expect(r.raw).not.toContain(secret);
  });

  it('a POST with a body: 405 with Allow, the body not echoed, the connection still usable', async () => {
    const secret = 'POST-CANARY-1b2c3d';
    const body = `{"secret":"${secret}"}`;
    const r = await send(
      url,
      `POST /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /v1/assets HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      { responses: 2 },
    );
    expectEnvelope(r.responses[0], 405, 'method_not_allowed');
    expect(r.responses[0]!.headers.allow).toBe('GET, HEAD');
    expect(r.responses[1]?.status).toBe(200);
    expect(r.raw).not.toContain(secret);
    // A large declared body is refused without waiting for it.
    const big = await send(
      url,
      `POST /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n{"a":`,
      { responses: 1, waitMs: 2_000 },
    );
    expectEnvelope(big.responses[0], 405, 'method_not_allowed');
    expect(big.ms).toBeLessThan(1_000);
    // Nor does a body the JSON parser would reject change the answer: the method decides first.
    for (const [type, text] of [
      ['application/json', '{"a":'],
      ['application/json', 'x'.repeat(5000)],
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'a=1&b=2'],
    ] as const) {
      for (const path of ['/v1/assets', '/v1/nowhere']) {
        const r = await send(
          url,
          `POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: ${type}\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
          { responses: 1 },
        );
        if (path === '/v1/assets') expectEnvelope(r.responses[0], 405, 'method_not_allowed');
        else expectEnvelope(r.responses[0], 404, 'route_not_found');
      }
    }
  });

  it('odd methods are answered with the envelope, without a crash', async () => {
    for (const method of ['PROPFIND', 'TRACE', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'MKCOL']) {
      const r = await send(url, `${method} /v1/assets HTTP/1.1\r\nHost: test\r\n\r\n`, { responses: 1 });
      expectEnvelope(r.responses[0], 405, 'method_not_allowed');
      expect(r.responses[0]!.headers.allow).toBe('GET, HEAD');
    }
    // TRACE must not reflect the request (cross-site tracing).
    const trace = await send(
      url,
      `TRACE /v1/assets HTTP/1.1\r\nHost: test\r\nX-Canary: trace-canary\r\n\r\n`,
      {
        responses: 1,
      },
    );
    expect(trace.raw).not.toContain('trace-canary');
    // CONNECT never reaches the router: still the envelope, then the connection closes.
    const connect = await send(url, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
    expectEnvelope(connect.responses[0], 405, 'method_not_allowed');
    expect(connect.closed).toBe(true);
    // Methods are case-sensitive: `get` is not GET.
    const lower = await send(url, 'get /v1/assets HTTP/1.1\r\nHost: test\r\n\r\n');
    expectEnvelope(lower.responses[0], 400, 'bad_request');
    expect(lower.closed).toBe(true);
    // An HTTP/1.1 request without Host is malformed (RFC 9112 §3.2): still our envelope.
    const noHost = await send(url, `GET /v1/assets HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`, {
      responses: 1,
    });
    expectEnvelope(noHost.responses[0], 400, 'bad_request');
    // Not HTTP at all, an HTTP/2 preface, an unknown version.
    for (const junk of [
      'HELLO\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      'GET /v1/assets HTTP/9.9\r\n\r\n',
    ]) {
      const r = await send(url, junk);
      expect(r.closed).toBe(true);
      for (const res of r.responses) expectEnvelope(res, 400, 'bad_request');
    }
    const health = await send(url, 'GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n', { responses: 1 });
    expect(health.responses[0]?.status).toBe(200);
  });

  it('Transfer-Encoding tricks: 400 with the envelope or a closed connection, never a smuggled request', async () => {
    const before = await smuggledUsage(); // counts this call
    const smuggled = `GET /v1/me HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${smuggledKey}\r\n\r\n`;
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const attempts: Record<string, string> = {
      // CL.TE: a front end honouring Content-Length would pass the smuggled request as body.
      'Content-Length and Transfer-Encoding': `POST /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Length: ${5 + smuggled.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
      // TE.CL
      'Transfer-Encoding then Content-Length': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${chunk(smuggled)}0\r\n\r\n`,
      'chunked, identity': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${smuggled}`,
      'identity only': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: identity\r\n\r\n${smuggled}`,
      'obfuscated name (space before colon)': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n${smuggled}`,
      'chunk size not hexadecimal': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n${smuggled}\r\n0\r\n\r\n`,
      'chunk size overflowing 64 bits': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n${smuggled}\r\n0\r\n\r\n`,
      'negative chunk size': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n${smuggled}\r\n0\r\n\r\n`,
      'chunk shorter than its size': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n${smuggled}`,
      'two different Content-Lengths': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      'Content-Length list': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Length: 0, ${smuggled.length}\r\n\r\n${smuggled}`,
      'negative Content-Length': `GET /v1/assets HTTP/1.1\r\nHost: test\r\nContent-Length: -1\r\n\r\n${smuggled}`,
      'bare LF line endings': `GET /v1/assets HTTP/1.1\nHost: test\nTransfer-Encoding: chunked\n\n0\n\n${smuggled}`,
    };
    for (const [name, payload] of Object.entries(attempts)) {
      const r = await send(url, payload, { waitMs: 3_000 });
      const where = `${name}: ${JSON.stringify(r.raw.slice(0, 400))}`;
      expect(r.closed, where).toBe(true);
      // The outer request carries no key: if it is answered before its body turns out to be
      // malformed, that answer is a 401 (or a 405 for POST); then a 400 for the broken framing.
      // The smuggled request, with a valid key, would be a 200 with `usage`: never.
      expect(r.responses.length, where).toBeLessThanOrEqual(2);
      for (const res of r.responses) {
        if (res.status === 401) expectEnvelope(res, 401, 'missing_api_key');
        else if (res.status === 405) expectEnvelope(res, 405, 'method_not_allowed');
        else expectEnvelope(res, 400, 'bad_request');
      }
      expect(r.raw, where).not.toContain('"usage"');
    }
    // Nothing ran on the smuggling grant except the two /v1/me calls made here, openly.
    expect(await smuggledUsage()).toBe(before + 1);
  });

  it('path traversal and double-encoded paths: 404 route_not_found, never a file', async () => {
    const paths = [
      '/v1/../v1/assets',
      '/v1/./assets/..',
      '/v1/%2e%2e/etc/passwd',
      '/v1/%2E%2E/%2E%2E/etc/passwd',
      '/v1/assets%2f..',
      '/v1/assets%2F..%2F..%2Fpackage.json',
      '/v1/assets/..%252f..%252fetc%252fpasswd',
      '/v1/%252e%252e/%252e%252e/etc/passwd',
      '/v1/..%5c..%5cpackage.json',
      '/v1/..\\..\\package.json',
      '/../../../../etc/passwd',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/docs/../../../../etc/passwd',
      '/docs/%2e%2e/%2e%2e/package.json',
      '/charts/..%2f..%2fpackage.json',
      '/charts/charts.js/../../package.json',
      '/charts/%2e%2e/data/mds.sqlite',
      '//etc/passwd',
      '/v1/assets%00.json',
    ];
    for (const path of paths) {
      const r = await get(path);
      const where = `${path}: ${r.raw.slice(0, 300)}`;
      expectEnvelope(r.responses[0], 404, 'route_not_found');
      expect(r.raw, where).not.toMatch(/root:|"devDependencies"|SQLite format|BEGIN [A-Z ]*PRIVATE KEY/);
    }
    // Percent-encoding that is not UTF-8 cannot name any route: 400 with our envelope.
    for (const path of ['/v1/%C0%AE%C0%AE/etc/passwd', '/v1/%ZZ', '/v1/assets%', '/%FF%FE/etc/passwd']) {
      const r = await get(path);
      expectEnvelope(r.responses[0], 400, 'bad_request');
      expect(r.raw).not.toMatch(/FST_ERR|root:/);
    }
  });

  it('a 10 MB header flood over one connection: 431, bounded memory, and the server keeps serving', async () => {
    const pid = server.proc.pid!;
    // Warm up so the baseline includes the normal working set.
    for (let i = 0; i < 20; i++) await get('/v1/assets');
    const before = rssKb(pid);

    const flood = () =>
      exchange(
        url,
        (socket, track) => {
          const line = `X-Flood: ${'f'.repeat(1014)}\r\n`; // 1 KiB per header line
          const block = line.repeat(64); // 64 KiB per write
          let sent = 0;
          const pump = () => {
            while (!socket.destroyed && sent < 10 * 1024 * 1024) {
              sent += block.length;
              const more = socket.write(block, () => track(block.length));
              if (!more) return void socket.once('drain', pump);
            }
          };
          socket.write('GET /v1/assets HTTP/1.1\r\nHost: test\r\n');
          pump();
        },
        { waitMs: 10_000 },
      );
    // 8 rounds of 4 parallel floods: 320 MB of headers in all.
    const floods: Exchange[] = [];
    const rss: Array<number | null> = [];
    for (let round = 0; round < 8; round++) {
      floods.push(...(await Promise.all(Array.from({ length: 4 }, flood))));
      rss.push(rssKb(pid));
    }
    for (const r of floods) {
      // Refused after the 16 KiB header limit: the 431 envelope, then the server closes the
      // connection (it discards what is still coming for a moment, so the answer is not lost).
      expect(r.responses).toHaveLength(1);
      expectEnvelope(r.responses[0], 431, 'headers_too_large');
      expect(r.closed).toBe(true);
      expect(r.ms).toBeLessThan(5_000);
    }

    const ok = await get('/v1/assets');
    expect(ok.responses[0]?.status).toBe(200);
    const after = rssKb(pid);
    if (before === null || after === null) {
      console.log('RSS not measured: /proc/<pid>/status is not readable on this system');
      return;
    }
    console.log(`server RSS before the floods ${before} kB, after each round ${rss.join(', ')} kB`);
    expect(after - before).toBeLessThan(50 * 1024);
    // No leak: the second half of the floods does not raise the peak of the first half.
    const peak = (xs: Array<number | null>) => Math.max(...xs.map((x) => x ?? 0));
    expect(peak(rss.slice(4)) - peak(rss.slice(0, 4))).toBeLessThan(25 * 1024);
  }, 20_000);

  it('the server survived everything: still serving, never a 5xx', async () => {
    const r = await get('/v1/rates/latest?currency=EUR');
    expect(r.responses[0]?.status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
    expect(server.proc.signalCode).toBeNull();
  });
});
