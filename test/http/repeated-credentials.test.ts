/**
 * A credential header sent twice is refused (docs/decisions.md 60). Node keeps
 * the first `Authorization` and joins repeated `X-API-Key` values; a proxy in
 * front may read the last one, so the key it checks could differ from the key
 * billed. Sent over a real connection: light-my-request cannot repeat a header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type LineAnswer, sendLines } from '../support/raw-http.js';

describe.each(sqliteOnly())('repeated credential headers on $name', (backend) => {
  let h: Harness;
  let key: string;
  let port: number;

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key } = await h.newKey());
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(() => h?.close());
  /** The key is verified (and cached): the refusal is about the headers, not the key. */
  const verified = async () =>
    expect((await sendLines(port, '/v1/rates/latest', [`Authorization: Bearer ${key}`])).status).toBe(200);

  const expectRefused = (res: LineAnswer) => {
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_api_key');
    expect(body.error.message).toMatch(/send one credential/);
    // As every other 401 of a key: the RFC 6750 challenge, no quota headers (no grant is known).
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(res.headers.has('ratelimit-limit')).toBe(false);
    expect(res.headers.get('x-request-id')).toBe(body.meta.requestId);
  };

  it('refuses a valid Authorization followed by another one', async () => {
    await verified();
    const twice = [`Authorization: Bearer ${key}`, 'Authorization: Bearer xxx'];
    expectRefused(await sendLines(port, '/v1/rates/latest', twice));
  });

  it('refuses the same valid key twice, whatever the header spelling', async () => {
    await verified();
    expectRefused(
      await sendLines(port, '/v1/rates/latest', [
        `Authorization: Bearer ${key}`,
        `authorization: Bearer ${key}`,
      ]),
    );
    expectRefused(await sendLines(port, '/v1/rates/latest', [`X-API-Key: ${key}`, `x-api-key: ${key}`]));
    expectRefused(
      await sendLines(port, '/v1/me', [
        `Authorization: Bearer ${key}`,
        `X-Api-Key: ${key}`,
        `X-Api-Key: ${key}`,
      ]),
    );
  });

  it('refuses on /v1/me too', async () => {
    expectRefused(
      await sendLines(port, '/v1/me', ['Authorization: Bearer xxx', `Authorization: Bearer ${key}`]),
    );
  });

  it('still accepts one key in Authorization and the same in X-API-Key (docs/security.md, Keys)', async () => {
    const res = await sendLines(port, '/v1/rates/latest', [
      `Authorization: Bearer ${key}`,
      `X-API-Key: ${key}`,
    ]);
    expect(res.status).toBe(200);
    const once = await sendLines(port, '/v1/rates/latest', [`X-API-Key: ${key}`]);
    expect(once.status).toBe(200);
  });
});
