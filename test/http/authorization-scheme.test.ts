/**
 * An `Authorization` header that is not `Bearer <key>` (docs/decisions.md 63):
 * most often the key alone, without its scheme. It stays 401
 * `invalid_api_key` with the headers of every other 401 (decisions 10: the
 * RFC 6750 challenge, no quota headers), and the message says what to send.
 * The presented value is never repeated.
 *
 * Sent over a real connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { sendLines } from '../support/raw-http.js';

const FIX = /send Authorization: Bearer <key>/;

describe.each(sqliteOnly())('an Authorization header without the Bearer scheme on $name', (backend) => {
  let h: Harness;
  let key: string;
  let publicId: string;
  let port: number;

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key, publicId } = await h.newKey());
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(() => h?.close());

  /** The refusal; returns the body without its request id. */
  const expectRefused = (status: number, headers: (name: string) => string | undefined, body: string) => {
    expect(status).toBe(401);
    const parsed = JSON.parse(body);
    expect(parsed.error.code).toBe('invalid_api_key');
    expect(parsed.error.message).toMatch(FIX);
    expect(parsed.error.message).toMatch(/X-API-Key/);
    // Neither the key nor any part of it comes back.
    expect(body).not.toContain(key);
    expect(body).not.toContain(publicId);
    expect(body).not.toContain(key.slice(-12));
    expect(headers('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(headers('ratelimit-limit')).toBeUndefined();
    expect(headers('x-request-id')).toBe(parsed.meta.requestId);
    return { ...parsed, meta: { requestId: '' } };
  };

  it.each([
    ['the key alone', (k: string) => k],
    ['the key alone, padded', (k: string) => ` ${k} `],
    ['another scheme', (k: string) => `Basic ${k}`],
    ['Bearer without a key', () => 'Bearer'],
  ])('%s is 401 invalid_api_key saying to send Authorization: Bearer <key>', async (_, value) => {
    // The key itself is verified (and cached): the refusal is about the header's form.
    expect((await sendLines(port, '/v1/rates/latest', [`Authorization: Bearer ${key}`])).status).toBe(200);
    const res = await sendLines(port, '/v1/rates/latest', [`Authorization: ${value(key)}`]);
    expectRefused(res.status, (n) => res.headers.get(n), res.body);
  });

  it('refuses the key alone on /v1/me too, and beside a valid X-API-Key', async () => {
    const me = await sendLines(port, '/v1/me', [`Authorization: ${key}`]);
    expectRefused(me.status, (n) => me.headers.get(n), me.body);
    const both = await sendLines(port, '/v1/rates/latest', [`Authorization: ${key}`, `X-API-Key: ${key}`]);
    expectRefused(both.status, (n) => both.headers.get(n), both.body);
  });

  it('still serves Bearer <key>, and the key alone in X-API-Key', async () => {
    expect((await sendLines(port, '/v1/rates/latest', [`Authorization: bearer ${key}`])).status).toBe(200);
    expect((await sendLines(port, '/v1/rates/latest', [`X-API-Key: ${key}`])).status).toBe(200);
  });
});
