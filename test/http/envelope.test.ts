import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';

describe.each(sqliteOnly())('envelope on $name', (backend) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(backend);
    key = (await h.newKey()).key;
  });
  afterAll(async () => h?.close());

  it('answers 200 with data, meta and a matching X-Request-Id', async () => {
    const res = await h.get('/v1/rates/latest?currency=EUR', key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.requestId).toBe(res.headers['x-request-id']);
    expect(body.data[0].currency).toBe('EUR');
  });

  it('gives every request its own id', async () => {
    const a = await h.get('/v1/assets', key);
    const b = await h.get('/v1/assets', key);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});
