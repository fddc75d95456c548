/**
 * A credential header sent twice is refused (docs/decisions.md 60). Node keeps
 * the first `Authorization` and joins repeated `X-API-Key` values; a proxy in
 * front may read the last one, so the key it checks could differ from the key
 * billed. Sent over a real connection: light-my-request cannot repeat a header.
 * The raw entrance answers it, and Fastify's route when the raw entrance
 * declines it: the rule holds on both entrances.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { nextThroughFastify, rawEntranceReady, take, tookRaw } from '../support/entrance.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type LineAnswer, sendLines } from '../support/raw-http.js';

describe.each(backends())('repeated credential headers on $name', (backend) => {
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
  afterEach(() => take.mockClear());

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

  it('refuses a valid Authorization followed by another one, on both entrances', async () => {
    await rawEntranceReady(port, key);
    const twice = [`Authorization: Bearer ${key}`, 'Authorization: Bearer xxx'];
    const res = await sendLines(port, '/v1/rates/latest', twice);
    expect(take).toHaveBeenCalled();
    expect(tookRaw(), 'the raw entrance answers it').toBe(true);
    expectRefused(res);
    nextThroughFastify();
    const viaFastify = await sendLines(port, '/v1/rates/latest', twice);
    expect(tookRaw(), 'Fastify answers it').toBe(false);
    expectRefused(viaFastify);
  });

  it('refuses the same valid key twice, whatever the header spelling', async () => {
    await rawEntranceReady(port, key);
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

  it('refuses an operation the raw entrance never takes', async () => {
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
