/**
 * Behind a reverse proxy (decisions 18a, docs/deployment.md "Behind a reverse
 * proxy"). With MDS_TRUST_PROXY the client address is read from
 * X-Forwarded-For as far as the trusted proxies vouch for it; without it the
 * header is ignored. That address is what the failed-authentication throttle
 * counts and what the access log shows. Whatever an address's failures, a key
 * that verifies is served.
 */
import { randomInt } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { generateKey } from '../../src/domain/keys.js';
import { openStore } from '../../src/storage/open.js';
import { backends } from '../support/backends.js';
import { mds } from '../support/cli.js';
import { injectThroughServer } from '../support/dispatch.js';
import { type Harness, startHarness } from '../support/harness.js';
import { keyOnNewGrant } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor, withinOneMinute } from '../support/wait.js';

/** The load balancer, as the instance sees it: the peer of every proxied connection. */
const BALANCER = '127.0.0.1';

/** A well-formed key with a valid checksum for a public id nobody was issued. */
const unknownKey = () => generateKey('live').key;
/** A documentation address (RFC 5737) per client, so no two tests share a throttle count. */
let clientCounter = 0;
const newClient = () => `198.51.${100 + (++clientCounter >> 8)}.${clientCounter & 255}`;

describe.each(backends())('behind a reverse proxy on $name', (backend) => {
  let h: Harness;
  /** The throttle counts per UTC minute: the tests run mid-minute on this clock. */
  let clock = Date.now();
  /** An instance behind a load balancer at 127.0.0.1, trusting it (MDS_TRUST_PROXY=127.0.0.1). */
  let trusted: FastifyInstance;
  /** The same instance without MDS_TRUST_PROXY. */
  let direct: FastifyInstance;
  let log: Array<Record<string, unknown>> = [];

  const get = (
    app: FastifyInstance,
    options: { key?: string; forwardedFor?: string; peer?: string; url?: string },
  ): Promise<LightMyRequestResponse> =>
    app.inject({
      method: 'GET',
      url: options.url ?? '/v1/assets',
      headers: {
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
      },
      remoteAddress: options.peer ?? BALANCER,
    });

  const expectInvalid = (res: LightMyRequestResponse) => {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
  };
  const expectThrottled = (res: LightMyRequestResponse) => {
    expect(res.statusCode, res.body).toBe(429);
    expect(res.json().error.code).toBe('too_many_requests');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  };
  const midMinute = () => {
    clock = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
  };
  /** The access line of one answered request. */
  const lineOf = (res: LightMyRequestResponse) => {
    const line = log.find((l) => l.requestId === res.headers['x-request-id']);
    expect(line, `an access line for ${res.headers['x-request-id']}`).toBeDefined();
    return line!;
  };

  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
    const logger = pino({ level: 'info' }, { write: (line: string) => log.push(JSON.parse(line)) });
    trusted = await buildApp(h.runtime.services, { logger, trustProxy: BALANCER });
    direct = await buildApp(h.runtime.services, { logger });
    for (const app of [trusted, direct]) {
      await app.ready();
      injectThroughServer(app);
      await validateResponses(app);
    }
  });
  afterAll(async () => {
    await trusted?.close();
    await direct?.close();
    await h?.close();
  });
  afterEach(() => {
    log = [];
  });

  it('a guessing client is throttled by its forwarded address; new and known keys are served from any address, its own included', async () => {
    midMinute();
    const known = await h.newKey();
    const someone = newClient();
    expect((await get(trusted, { key: known.key, forwardedFor: someone })).statusCode).toBe(200);

    const guesser = newClient();
    for (let i = 0; i < 30; i++) {
      const key = i % 3 === 0 ? generateKey('live', known.publicId).key : unknownKey();
      expectInvalid(await get(trusted, { key, forwardedFor: guesser }));
    }
    expectThrottled(await get(trusted, { key: unknownKey(), forwardedFor: guesser }));
    // The guesser cannot shed its count by claiming another address in front of
    // the one the balancer appended: only the balancer is trusted.
    expectThrottled(await get(trusted, { key: unknownKey(), forwardedFor: `203.0.113.9, ${guesser}` }));

    // Keys the instance has never seen (created now, so not in any cache) and a known one.
    const fresh = [await h.newKey(), await h.newKey()];
    const neighbour = newClient();
    expectInvalid(await get(trusted, { key: unknownKey(), forwardedFor: neighbour }));
    expect((await get(trusted, { key: fresh[0]!.key, forwardedFor: neighbour })).statusCode).toBe(200);
    expect((await get(trusted, { key: known.key, forwardedFor: neighbour })).statusCode).toBe(200);
    // From the guesser's own address too: a key that verifies is always served.
    expect((await get(trusted, { key: fresh[1]!.key, forwardedFor: guesser })).statusCode).toBe(200);
    expect((await get(trusted, { key: known.key, forwardedFor: guesser })).statusCode).toBe(200);
    expectThrottled(await get(trusted, { key: unknownKey(), forwardedFor: guesser }));

    // Next minute the guesser's failures are forgotten.
    clock += 60_000;
    expectInvalid(await get(trusted, { key: unknownKey(), forwardedFor: guesser }));
  });

  it('without trust, X-Forwarded-For is ignored: rotating it does not escape the throttle', async () => {
    midMinute();
    const peer = `192.0.2.${randomInt(1, 255)}`;
    const forged = () => `203.0.113.${randomInt(1, 255)}, 10.${randomInt(256)}.0.1`;
    for (let i = 0; i < 30; i++)
      expectInvalid(await get(direct, { key: unknownKey(), forwardedFor: forged(), peer }));
    for (let i = 0; i < 5; i++)
      expectThrottled(await get(direct, { key: unknownKey(), forwardedFor: forged(), peer }));
    // Nor does a peer that is not the trusted proxy get believed by the trusting instance.
    for (let i = 0; i < 5; i++)
      expectThrottled(await get(trusted, { key: unknownKey(), forwardedFor: forged(), peer }));
    // A key that verifies is still served from that peer.
    const fresh = await h.newKey();
    expect((await get(direct, { key: fresh.key, forwardedFor: forged(), peer })).statusCode).toBe(200);
  });

  it('the access line names the client address: the forwarded one when trusted', async () => {
    midMinute();
    const { key } = await h.newKey();
    const client = newClient();
    expect((await get(trusted, { key, forwardedFor: client, url: '/v1/me' })).statusCode).toBe(200);

    const fast = await get(trusted, { key, forwardedFor: `10.1.2.3, ${client}` });
    expect(fast.statusCode).toBe(200);
    expect(lineOf(fast)).toMatchObject({ status: 200, ip: client });

    const refused = await get(trusted, { key: unknownKey(), forwardedFor: client });
    expect(lineOf(refused)).toMatchObject({ status: 401, ip: client });
    const unmatched = await get(trusted, { key, forwardedFor: client, url: '/v1/nothing' });
    expect(lineOf(unmatched)).toMatchObject({ status: 404, ip: client });

    // Without trust: the peer's address, whatever the header claims.
    const peer = '192.0.2.77';
    const plain = await get(direct, { key, forwardedFor: client, peer });
    expect(lineOf(plain)).toMatchObject({ status: 200, ip: peer });
    expect(lineOf(await get(direct, { forwardedFor: client, peer }))).toMatchObject({
      status: 401,
      ip: peer,
    });
  });
});

describe('MDS_TRUST_PROXY', () => {
  let dir: string;
  let db: string;
  let key: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-proxy-'));
    db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    key = (await keyOnNewGrant(store)).key;
    await store.close();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const expected =
    'expected true, false, a hop count (0 to 999) or a comma-separated list of addresses and CIDRs';
  it.each([
    ['yes', 'invalid IP address: yes'],
    ['300.1.1.1', 'invalid IP address: 300.1.1.1'],
    ['10.0.0.0/40', 'invalid range on address: 10.0.0.0/40'],
    ['127.0.0.1,,10.0.0.1', 'an empty entry in the list'],
    ['-1', 'invalid IP address: -1'],
    ['1000', 'a hop count must be 0 to 999'],
  ])('refuses %j with exit code 2 before starting', async (value, problem) => {
    const res = await mds(['serve', '--port', '0'], { db, env: { MDS_TRUST_PROXY: value } });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`mds: MDS_TRUST_PROXY: ${problem}; ${expected}\n`);
  });

  /** Starts `mds serve` with this MDS_TRUST_PROXY and the access log on; returns its client address for a request. */
  let copies = 0;
  const addressSeen = async (value: string | undefined) => {
    // One serving process per SQLite file (limits are counted in it): each server gets a copy.
    const own = join(dir, `serve-${++copies}.sqlite`);
    copyFileSync(db, own);
    const server = await spawnServer({
      db: own,
      env: { MDS_LOG_LEVEL: 'info', ...(value === undefined ? {} : { MDS_TRUST_PROXY: value }) },
    });
    servers.push(server);
    let out = '';
    server.proc.stdout!.on('data', (d) => {
      out += d;
    });
    const res = await fetch(`${server.url}/v1/me`, {
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.50, 198.51.100.50' },
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    // The log is written asynchronously, after the answer.
    const line = await waitFor(() => out.split('\n').find((l) => l.includes(`"requestId":"${id}"`)), {
      what: `the access line of ${id}`,
    });
    return { server, ip: JSON.parse(line!).ip as string };
  };

  it('accepts true, false, a hop count and address lists, and the server honours them', async () => {
    const seen = await Promise.all(
      [undefined, 'false', '0', 'loopback', '127.0.0.1, 10.0.0.0/8', '1', '2', 'true'].map(addressSeen),
    );
    await Promise.all(seen.map((s) => s.server.stop()));
    expect(seen.map((s) => s.ip)).toEqual([
      '127.0.0.1', // unset: the header is ignored
      '127.0.0.1',
      '127.0.0.1',
      '198.51.100.50', // the peer is trusted; the address it appended is the client
      '198.51.100.50',
      '198.51.100.50', // one hop trusted
      '203.0.113.50', // two hops trusted
      '203.0.113.50', // everything trusted: the left-most claim
    ]);
  });

  it('the spawned server throttles by the forwarded address', async () => {
    const { server } = await addressSeen('loopback');
    const send = (forwardedFor: string, k: string) =>
      fetch(`${server.url}/v1/me`, {
        headers: { authorization: `Bearer ${k}`, 'x-forwarded-for': forwardedFor },
      });
    // Close to a minute's end the 30 failures could straddle two windows: wait it out.
    await withinOneMinute(5_000);
    for (let i = 0; i < 30; i++) expect((await send('198.51.100.60', unknownKey())).status).toBe(401);
    expect((await send('198.51.100.60', unknownKey())).status).toBe(429);
    expect((await send('198.51.100.61', unknownKey())).status).toBe(401);
    expect((await send('198.51.100.60', key)).status).toBe(200);
  }, 90_000);
});
