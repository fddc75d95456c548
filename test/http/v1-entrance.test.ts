/**
 * The /v1 entrance (src/http/pipeline/entrance.ts) answers every request whose path
 * is under /v1, however its target is spelled, and leaves every other path to
 * Fastify's router; what it answers is counted against the limits, and a
 * failure while answering gives the unit back.
 */
import { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { V1Entrance } from '../../src/http/pipeline/entrance.js';
import { backends } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { withinOneMinute } from '../support/wait.js';

const take = vi.spyOn(V1Entrance.prototype, 'take');
/** Whether the last request was answered by the /v1 entrance. */
const tookV1 = (): boolean => take.mock.results.at(-1)?.value as boolean;

describe.each(backends())('the /v1 entrance on $name', (backend) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key } = await h.newKey());
    expect((await h.get('/v1/me', key)).statusCode).toBe(200); // verifies the key
  });
  afterAll(() => h?.close());
  afterEach(() => take.mockClear());

  it('answers every request under /v1, whatever its method, headers or spelling, and nothing else', async () => {
    const { key: unseen } = await h.newKey();
    const bearer = { authorization: `Bearer ${key}` };
    const cases: Array<[string, Record<string, string>, boolean, number, string?]> = [
      ['/v1/rates/latest', { authorization: `Bearer ${unseen}` }, true, 200], // not verified yet
      ['/v1/rates/latest', { ...bearer, 'if-none-match': '*' }, true, 304],
      ['/v1/rates/latest?currency=eur', bearer, true, 400],
      ['/v1/rates/historical?currency=EUR', bearer, true, 200], // the alias, with its own headers
      ['/v1/me', bearer, true, 200],
      ['/v1/rates/latest', {}, true, 401],
      ['/v1/rates/latest', bearer, true, 200, 'HEAD'],
      ['/v1/rates/latest/', bearer, true, 404],
      ['/v1/nothing', bearer, true, 404],
      ['/v1/rates/latest', bearer, true, 405, 'POST'],
      ['/v1/rates/latest', bearer, true, 405, 'OPTIONS'],
      [`/v1/rates/latest?currency=${'A'.repeat(5000)}`, bearer, true, 414],
      ['/v1/rates/%6Catest', bearer, true, 200], // percent-encoded, as the router decodes it
      ['/%761/assets', bearer, true, 200],
      ['http://localhost/v1/assets', bearer, true, 200], // absolute-form
      ['/v1/%C0%AE', bearer, true, 400], // not UTF-8
      ['/v1', bearer, false, 404],
      ['/V1/assets', bearer, false, 404],
      ['//v1/assets', bearer, false, 404],
      ['/healthz', {}, false, 200],
      ['/openapi.json', {}, false, 200],
    ];
    for (const [url, headers, v1, status, method = 'GET'] of cases) {
      const res = await h.app.inject({ method: method as 'GET', url, headers });
      const where = `${method} ${url.slice(0, 60)} ${JSON.stringify(headers)}`;
      expect(tookV1(), where).toBe(v1);
      expect(res.statusCode, where).toBe(status);
    }
  });

  it('counts every request it answers against the limits, and refuses the (L+1)th with 429', async () => {
    await withinOneMinute();
    const a = await h.newKey({ rpm: 2 });
    expect((await h.get('/v1/me', a.key)).statusCode).toBe(200); // verifies a; uses 1 of 2
    await h.watcherCaughtUp(); // the watcher has seen the new key: no cache drop below
    const ok = await h.get('/v1/rates/latest', a.key);
    expect(ok.headers['ratelimit-remaining']).toBe('0');
    const refused = await h.get('/v1/rates/latest', a.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    // Answered units are committed before the answer is sent: nothing to wait for.
    const period = new Date().toISOString().slice(0, 7);
    expect(await h.store.usage.getUsage(a.grantId, period)).toBe(2); // /v1/me and one 200: a 429 does not count
  });

  it('a failure while answering is a 500 without quota headers, the unit given back', async () => {
    const k = await h.newKey();
    await h.watcherCaughtUp(); // the watcher has seen the new key
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200); // verifies the key
    const first = await h.get('/v1/gold/latest', k.key);
    const period = new Date().toISOString().slice(0, 7);
    const used = await h.store.usage.getUsage(k.grantId, period);
    // The 200's head fails to go out once (an invalid header, a socket error…).
    const writeHead = vi.spyOn(ServerResponse.prototype, 'writeHead').mockImplementationOnce(() => {
      throw new Error('the head could not be written');
    });
    try {
      const failed = await h.get('/v1/gold/latest', k.key);
      expect(failed.statusCode).toBe(500);
      expect(failed.json().error.code).toBe('internal_error');
      expect(failed.json().meta.requestId).toBe(failed.headers['x-request-id']);
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'x-monthly-quota-remaining']) {
        expect(failed.headers[name], name).toBeUndefined();
      }
    } finally {
      writeHead.mockRestore();
    }
    // The unit it consumed is given back: usage is as before it.
    await vi.waitFor(async () => expect(await h.store.usage.getUsage(k.grantId, period)).toBe(used), {
      timeout: 3_000,
    });
    expect(first.statusCode).toBe(200);
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200); // and it keeps serving
  });

  it('stops serving a revoked key at once', async () => {
    const k = await h.newKey();
    await h.watcherCaughtUp(); // the watcher has seen the new key
    await h.get('/v1/gold/latest', k.key);
    expect((await h.get('/v1/gold/latest', k.key)).statusCode).toBe(200);
    await h.revoke(k.publicId);
    const res = await h.get('/v1/gold/latest', k.key);
    expect(res.statusCode).toBe(401);
  });
});
