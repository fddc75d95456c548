/**
 * Authentication abuse (part 3):
 * - brute force with random keys costs the store nothing: a bad checksum is
 *   refused before any lookup, and an unknown public id is looked up once, then
 *   remembered (negative cache);
 * - failed attempts are throttled per client address (429 too_many_requests
 *   with Retry-After for its failing keys), without locking out other
 *   addresses, nor any key that verifies, from the blocked address too;
 * - a flood of unknown public ids does not evict the keys verified;
 * - a wrong secret takes as long, and reads the same, whether the public id
 *   exists or not;
 * - a key never appears in logs, error bodies or metrics.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, parseKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { backends } from '../support/backends.js';
import { type Harness, SAMPLE_END, startHarness } from '../support/harness.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { spawnServer } from '../support/server-process.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');

/** Well-formed (`mds_live_<12>_<49>`) with a random checksum: never one we could have issued. */
function badChecksumKey(): string {
  for (;;) {
    const key = `mds_live_${pick(ID_ALPHABET, 12)}_${pick(BASE62, 49)}`;
    if (parseKey(key) === null) return key;
  }
}

/** The secret part of a key (everything after the public id). */
const secretOf = (key: string) => key.split('_')[3]!;

let addressCounter = 0;
/** A fresh client address, so the per-address throttle does not interfere. */
const freshAddress = () => {
  const n = ++addressCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

describe.each(backends())('authentication abuse on $name', (backend) => {
  let h: Harness;
  /** A controllable clock: the throttle counts per UTC minute. */
  let clock = Date.now();
  let valid: { key: string; publicId: string; grantId: string };
  const responses: LightMyRequestResponse[] = [];
  const presented: string[] = [];

  const call = async (key: string | undefined, address: string, url = '/v1/assets', header = 'bearer') => {
    if (key) presented.push(key);
    const headers: Record<string, string> = {};
    if (key && header === 'bearer') headers.authorization = `Bearer ${key}`;
    if (key && header === 'x-api-key') headers['x-api-key'] = key;
    const res = await h.app.inject({ method: 'GET', url, headers, remoteAddress: address });
    responses.push(res);
    return res;
  };

  /** getKey / getGrant calls the store has served, from the store latency histogram. */
  const storeCalls = async (operation: string) => {
    const metric = h.runtime.services.metrics.registry.getSingleMetric(
      'mds_store_operation_duration_seconds',
    );
    const data = await metric!.get();
    return (data.values as Array<{ metricName?: string; labels: Record<string, unknown>; value: number }>)
      .filter(
        (v) =>
          v.metricName === 'mds_store_operation_duration_seconds_count' && v.labels.operation === operation,
      )
      .reduce((sum, v) => sum + v.value, 0);
  };

  const expectInvalid = (res: LightMyRequestResponse) => {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  };

  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
    valid = await h.newKey();
    // Let the watcher see the last access change, so no cache is dropped mid-test.
    await h.watcherCaughtUp();
  });
  afterAll(async () => h?.close());

  it('bad-checksum keys never reach the store; an unknown public id reaches it at most once', async () => {
    const keysBefore = await storeCalls('getKey');
    const grantsBefore = await storeCalls('getGrant');
    for (let i = 0; i < 500; i++) {
      const key = badChecksumKey();
      expectInvalid(await call(key, freshAddress(), '/v1/assets', i % 2 ? 'bearer' : 'x-api-key'));
    }
    expect(await storeCalls('getKey')).toBe(keysBefore);

    // Valid checksums for public ids that were never issued: one lookup each, however often tried.
    const unknown = Array.from({ length: 40 }, () => generateKey('live').publicId);
    for (let round = 0; round < 5; round++) {
      for (const id of unknown) expectInvalid(await call(generateKey('live', id).key, freshAddress()));
    }
    const lookups = (await storeCalls('getKey')) - keysBefore;
    expect(lookups).toBeGreaterThan(0); // the metric does count lookups
    expect(lookups).toBeLessThanOrEqual(unknown.length);
    expect(await storeCalls('getGrant')).toBe(grantsBefore);

    // A wrong secret for an existing public id: its record is cached, so no further lookups either.
    const existingBefore = await storeCalls('getKey');
    for (let i = 0; i < 50; i++)
      expectInvalid(await call(generateKey('live', valid.publicId).key, freshAddress()));
    expect((await storeCalls('getKey')) - existingBefore).toBeLessThanOrEqual(1);
  });

  it('after 30 failures in a minute one address gets 429 too_many_requests for failing keys; others and valid keys are unaffected', async () => {
    // Mid-minute, so the 31st attempt falls in the same UTC minute.
    clock = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
    const attacker = '203.0.113.7';
    const neighbour = '203.0.113.8';
    const fresh = await h.keyFor(valid.grantId); // valid, but not yet verified by this instance
    await h.watcherCaughtUp(); // the watcher drops the caches once for the new key; let it settle
    // A key already verified from the attacker's address (a NAT shared with an honest client).
    expect((await call(valid.key, attacker)).statusCode).toBe(200);

    const attempts = [
      () => badChecksumKey(),
      () => generateKey('live').key,
      () => generateKey('live', valid.publicId).key,
      () => `not-a-key-${randomBytes(8).toString('hex')}`,
    ];
    for (let i = 0; i < 30; i++) expectInvalid(await call(attempts[i % attempts.length]!(), attacker));

    const blocked = await call(generateKey('live').key, attacker);
    expect(blocked.statusCode, blocked.body).toBe(429);
    expect(blocked.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = blocked.json();
    expect(body).toEqual({
      data: null,
      error: {
        status: 429,
        code: 'too_many_requests',
        message: 'Too many invalid attempts from this address.',
      },
      meta: { requestId: blocked.headers['x-request-id'] },
    });
    // 55 seconds until the next UTC minute.
    expect(blocked.headers['retry-after']).toBe('55');
    for (const name of ['ratelimit-limit', 'x-monthly-quota-remaining']) {
      expect(blocked.headers[name], name).toBeUndefined();
    }
    // Every kind of failing key is refused the same way now. Those judged without the
    // store cost no read: malformed, a bad checksum, a wrong secret for a known id.
    const keysBefore = await storeCalls('getKey');
    for (const make of [attempts[0]!, attempts[2]!, attempts[3]!]) {
      expect((await call(make(), attacker)).statusCode).toBe(429);
    }
    expect(await storeCalls('getKey')).toBe(keysBefore);
    // A public id never seen before is read once (it could be a key created a moment
    // ago), then remembered as unknown: repeating it costs the store nothing.
    const guess = attempts[1]!();
    for (let i = 0; i < 5; i++) expect((await call(guess, attacker)).statusCode).toBe(429);
    expect((await storeCalls('getKey')) - keysBefore).toBe(1);

    // A key that verifies is served from that address: one verified earlier, and one
    // this instance has never seen.
    expect((await call(valid.key, attacker)).statusCode).toBe(200);
    expect((await call(valid.key, attacker, '/v1/me', 'x-api-key')).statusCode).toBe(200);
    expect((await call(fresh.key, attacker)).statusCode).toBe(200);

    // Another address is unaffected, for bad keys and good ones.
    expectInvalid(await call(badChecksumKey(), neighbour));
    expect((await call(fresh.key, neighbour)).statusCode).toBe(200);

    // Next minute: the address may try again.
    clock += 60_000;
    expectInvalid(await call(badChecksumKey(), attacker));
    expect((await call(fresh.key, attacker)).statusCode).toBe(200);
  });

  it('failed keys never lock out a valid one: 40 random keys from 127.0.0.1, then a new key from it answers 200', async () => {
    clock = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
    const local = '127.0.0.1'; // what every client looks like behind a proxy that is not trusted
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await call(generateKey('live').key, local)).statusCode);
    expect(statuses).toEqual([...Array(30).fill(401), ...Array(10).fill(429)]);
    const created = await h.keyFor(valid.grantId);
    expect((await call(created.key, local)).statusCode).toBe(200);
    expect((await call(created.key, local, '/v1/me', 'x-api-key')).statusCode).toBe(200);
    expect((await call(generateKey('live').key, local)).statusCode).toBe(429);
  });

  it('a flood of unknown public ids does not evict the keys verified on the instance', async () => {
    const known = await h.newKey();
    await h.watcherCaughtUp(); // the watcher drops the caches once for the new key; let it settle
    expect((await call(known.key, freshAddress())).statusCode).toBe(200);
    // More unknown ids than the negative cache holds, each from its own address.
    // Not through `call`: the leak check below compares every response with every key presented.
    const guess = () =>
      h.app.inject({
        method: 'GET',
        url: '/v1/assets',
        headers: { authorization: `Bearer ${generateKey('live').key}` },
        remoteAddress: freshAddress(),
      });
    for (let sent = 0; sent < 10_100; sent += 50) {
      for (const res of await Promise.all(Array.from({ length: 50 }, guess)))
        expect(res.statusCode).toBe(401);
    }
    const before = await storeCalls('getKey');
    expect((await call(known.key, freshAddress())).statusCode).toBe(200);
    expect(await storeCalls('getKey')).toBe(before);
  }, 60_000);

  it('a wrong secret costs the same and reads the same whether the public id exists or not', async () => {
    // Unknown ids: a fixed set, looked up once (warm), then remembered like the existing one.
    const unknownIds = Array.from({ length: 20 }, () => generateKey('live').publicId);
    for (const id of unknownIds) expectInvalid(await call(generateKey('live', id).key, freshAddress()));
    expectInvalid(await call(generateKey('live', valid.publicId).key, freshAddress()));
    for (let i = 0; i < 100; i++) await call(valid.key, freshAddress()); // warm the JIT on the path

    const existing: number[] = [];
    const unknown: number[] = [];
    const time = async (key: string, into: number[]) => {
      const t0 = performance.now();
      const res = await h.app.inject({
        method: 'GET',
        url: '/v1/assets',
        headers: { authorization: `Bearer ${key}` },
        remoteAddress: freshAddress(),
      });
      into.push(performance.now() - t0);
      return res;
    };
    let a: LightMyRequestResponse | undefined;
    let b: LightMyRequestResponse | undefined;
    // Interleaved, alternating which goes first, so machine noise falls on both alike.
    for (let i = 0; i < 200; i++) {
      const k1 = generateKey('live', valid.publicId).key;
      const k2 = generateKey('live', unknownIds[i % unknownIds.length]).key;
      if (i % 2) {
        a = await time(k1, existing);
        b = await time(k2, unknown);
      } else {
        b = await time(k2, unknown);
        a = await time(k1, existing);
      }
      expectInvalid(a);
      expectInvalid(b);
    }
    // The same answer, byte for byte, apart from the request id.
    const strip = (res: LightMyRequestResponse) => ({
      status: res.statusCode,
      headers: { ...res.headers, 'x-request-id': undefined, date: undefined },
      body: res.body.replace(res.headers['x-request-id'] as string, ''),
    });
    expect(strip(a!)).toEqual(strip(b!));

    const mExisting = median(existing);
    const mUnknown = median(unknown);
    console.log(
      `wrong secret on ${backend.name}: median ${mExisting.toFixed(3)} ms for an existing public id, ${mUnknown.toFixed(3)} ms for an unknown one`,
    );
    // Generous bound for a noisy 2-core machine; both paths do the same work (a cached
    // lookup, one SHA-256 and one constant-time compare), so the medians are close.
    expect(Math.max(mExisting, mUnknown) / Math.min(mExisting, mUnknown)).toBeLessThan(3);
  });

  it('keys appear in no error body and no metric', async () => {
    // A few more shapes: a valid key in both headers, a mismatch, a key in the URL.
    const other = generateKey('live', valid.publicId).key;
    await h.app.inject({
      method: 'GET',
      url: '/v1/assets',
      headers: { authorization: `Bearer ${valid.key}`, 'x-api-key': other },
      remoteAddress: freshAddress(),
    });
    presented.push(other);
    responses.push(await call(valid.key, freshAddress(), `/v1/assets?key=${other}`));
    responses.push(await call(valid.key, freshAddress(), `/v1/${other}`));
    responses.push(await call(undefined, freshAddress(), `/v1/rates/history?currency=EUR&cursor=${other}`));
    expect(responses.length).toBeGreaterThan(800);
    const secrets = [...new Set([...presented, valid.key])].map(secretOf);
    const leaking = responses.filter((res) =>
      secrets.some((s) => res.body.includes(s) || JSON.stringify(res.headers).includes(s)),
    );
    expect(leaking.map((res) => res.body)).toEqual([]);
    const text = await h.runtime.services.metrics.registry.metrics();
    expect(text).toContain('mds_http_requests_total');
    const found = [...new Set([...presented, valid.key])].filter(
      // Neither the secret nor the public prefix `mds_live_<publicId>` is a label value.
      (key) => text.includes(secretOf(key)) || text.includes(key.slice(0, 21)),
    );
    expect(found).toEqual([]);
    expect(text.includes(valid.grantId)).toBe(false);
  });
});

describe('keys never reach the log', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mds-logs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('at trace level, valid and invalid keys in either header, in the URL or mismatched, appear in no log line', async () => {
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: SAMPLE_END, days: 10 }));
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'p',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 1_000_000,
    });
    const good = await createKey(store, { grantId: grant.id });
    const revoked = await createKey(store, { grantId: grant.id });
    await store.close();
    const revokeStore = openStore(db);
    const { revokeKey } = await import('../support/keys.js');
    await revokeKey(revokeStore, revoked.publicId);
    await revokeStore.close();

    const server = await spawnServer({ db, env: { MDS_LOG_LEVEL: 'trace' } });
    let log = '';
    server.proc.stdout!.on('data', (d) => {
      log += d;
    });
    server.proc.stderr!.on('data', (d) => {
      log += d;
    });

    const wrongSecret = generateKey('live', good.publicId).key;
    const unknown = generateKey('test').key;
    const badChecksum = badChecksumKey();
    const keys = [good.key, revoked.key, wrongSecret, unknown, badChecksum];
    const ids: string[] = [];
    const request = async (path: string, headers: Record<string, string>) => {
      const res = await fetch(`${server.url}${path}`, { headers });
      ids.push(res.headers.get('x-request-id')!);
      await res.arrayBuffer();
      return res.status;
    };
    for (const key of keys) {
      await request('/v1/assets', { authorization: `Bearer ${key}` });
      await request('/v1/me', { 'x-api-key': key });
      await request('/v1/rates/latest?currency=EUR', { authorization: `bearer ${key}`, 'x-api-key': key });
      await request('/v1/assets', {
        authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
      });
      await request('/v1/assets', { authorization: `Bearer ${key}`, 'x-api-key': good.key });
      // Mistakes a client may make: the key in the query string or the path.
      await request(`/v1/assets?api_key=${key}`, { authorization: `Bearer ${good.key}` });
      await request(`/v1/assets?api_key=${key}`, {});
      await request(`/v1/${key}`, { 'x-api-key': good.key });
      await request(`/v1/rates/history?currency=EUR&cursor=${key}`, { authorization: `Bearer ${good.key}` });
    }
    expect(await request('/v1/me', { authorization: `Bearer ${good.key}` })).toBe(200);
    await server.stop();

    const lines = log.split('\n').filter((l) => l.startsWith('{'));
    // The access log was on: one line per request, naming the key's public id, never the key.
    expect(ids.filter((id) => !log.includes(`"requestId":"${id}"`))).toEqual([]);
    expect(log).toContain(`"keyId":"${good.publicId}"`);
    expect(lines.length).toBeGreaterThanOrEqual(ids.length);
    const leaks = lines.filter((line) =>
      keys.some(
        (key) => line.includes(secretOf(key)) || line.includes(Buffer.from(`user:${key}`).toString('base64')),
      ),
    );
    expect(leaks).toEqual([]);
  }, 30_000);
});
