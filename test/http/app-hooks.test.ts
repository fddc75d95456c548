/**
 * An app-level hook cannot be skipped: the raw entrance, which answers
 * hot /v1 requests without Fastify's hooks, is on only while the app's hooks
 * are the known set. Adding one (a header, CORS, tracing) turns it off, and
 * the hook then runs on every /v1 answer, the hot ones included.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { RawEntrance } from '../../src/http/v1/entrance.js';
import { backends } from '../support/backends.js';
import { injectThroughServer } from '../support/dispatch.js';
import { type Harness, startHarness } from '../support/harness.js';

const take = vi.spyOn(RawEntrance.prototype, 'take');

describe.each(backends())('app-level hooks on $name', (backend) => {
  let h: Harness;
  let hooked: FastifyInstance;
  let key: string;
  let urls: string[];

  beforeAll(async () => {
    h = await startHarness(backend);
    hooked = await buildApp(h.runtime.services, { logger: false });
    // What a later plugin would do: a header on every answer.
    hooked.addHook('onRequest', (_request, reply, done) => {
      reply.header('x-added-by-hook', 'yes');
      done();
    });
    await hooked.ready();
    injectThroughServer(hooked);
    ({ key } = await h.newKey());
    // Every /v1 operation the served document lists, with its required parameters.
    const doc = (await h.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        { get: { parameters?: Array<{ name: string; in: string; required?: boolean }> } }
      >;
    };
    urls = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .map(([path, item]) => {
        const required = (item.get.parameters ?? []).filter((p) => p.in === 'query' && p.required);
        return required.length === 0 ? path : `${path}?${required.map((p) => `${p.name}=EUR`).join('&')}`;
      });
  });
  afterAll(async () => {
    await hooked?.close();
    await h?.close();
  });

  it('lists every /v1 operation', () => {
    expect(urls).toEqual(
      expect.arrayContaining([
        '/v1/assets',
        '/v1/rates/latest',
        '/v1/rates/history?currency=EUR',
        '/v1/market/premium',
        '/v1/market/premium/history?currency=EUR',
        '/v1/gold/latest',
        '/v1/gold/history',
        '/v1/me',
      ]),
    );
  });

  it('the hook runs on every /v1 answer, hot routes included', async () => {
    for (const url of urls) {
      // The first answer verifies the key and prepares the page; the second is a hot one.
      for (let i = 0; i < 3; i++) {
        take.mockClear();
        const res = await hooked.inject({ url, headers: { authorization: `Bearer ${key}` } });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['x-added-by-hook'], url).toBe('yes');
        expect(take.mock.results.at(-1)?.value, url).toBe(false);
      }
    }
  });

  it('without it, the same requests are answered by the raw entrance, without the header', async () => {
    const get = () => h.app.inject({ url: '/v1/rates/latest', headers: { authorization: `Bearer ${key}` } });
    // The watcher drops verified keys when access data changes (the new key above):
    // Fastify then verifies it again, and the next request is a hot one.
    const res = await vi.waitFor(
      async () => {
        take.mockClear();
        const answer = await get();
        expect(take.mock.results.at(-1)?.value).toBe(true);
        return answer;
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-added-by-hook']).toBeUndefined();
  });
});
