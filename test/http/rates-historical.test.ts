/** GET /v1/rates/historical, the deprecated alias of /v1/rates/history (rates-history.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, SAMPLE_END } from '../support/harness.js';
import { type Call, expectErrorBody, keyedHarness } from '../support/openapi.js';
import { addDays, expectedRates } from '../support/sample-records.js';

/** The HTTP-date after which the alias may stop answering (docs/decisions.md 63). */
const SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT';

describe.each(sqliteOnly())('/v1/rates/historical on $name', (backend) => {
  let h: Harness;
  let key: string;
  let call: Call;
  beforeAll(async () => ({ h, key, call } = await keyedHarness(backend)));
  afterAll(async () => h?.close());

  const strip = (body: { meta: Record<string, unknown> }) => ({
    ...body,
    meta: { ...body.meta, requestId: '' },
  });

  it.each([
    'currency=EUR',
    `currency=USD&source=official&from=${addDays(SAMPLE_END, -10)}&to=${SAMPLE_END}&limit=4`,
    'currency=EUR&source=transfer&from=2001-01-01&to=2001-01-31',
  ])('answers %s exactly as /v1/rates/history, with Deprecation and Link', async (query) => {
    const a = await call(`/v1/rates/history?${query}`, key);
    const b = await call(`/v1/rates/historical?${query}`, key);
    expect(b.statusCode).toBe(200);
    expect(strip(b.json())).toEqual(strip(a.json()));
    expect(b.json().meta.requestId).toBe(b.headers['x-request-id']);
    expect(b.headers.deprecation).toBe('@1795219200'); // RFC 9745, 2026-11-21 (decisions §7)
    expect(b.headers.sunset).toBe(SUNSET); // RFC 8594 (docs/decisions.md 63)
    expect(a.headers.deprecation).toBeUndefined();
    expect(a.headers.sunset).toBeUndefined();
    // Each links to its own next page, if any (decisions §12); the alias to its successor too.
    const cursor = a.json().meta.nextCursor;
    expect(b.json().meta.nextCursor).toBe(cursor);
    const next = (path: string) => `<${path}?${query}&cursor=${cursor}>; rel="next"`;
    const successor = '</v1/rates/history>; rel="successor-version"';
    expect(b.headers.link).toBe(cursor ? `${next('/v1/rates/historical')}, ${successor}` : successor);
    expect(a.headers.link).toBe(cursor ? next('/v1/rates/history') : undefined);
  });

  it('pages with its own cursors, and answers 400 and 404 like the history', async () => {
    const base = `/v1/rates/historical?currency=EUR&from=${addDays(SAMPLE_END, -9)}&to=${SAMPLE_END}`;
    const p1 = (await call(`${base}&limit=6`, key)).json();
    const p2 = (await call(`${base}&limit=6&cursor=${encodeURIComponent(p1.meta.nextCursor)}`, key)).json();
    expect([...p1.data, ...p2.data]).toEqual(
      expectedRates('EUR', 'parallel', addDays(SAMPLE_END, -9), SAMPLE_END),
    );
    expect(p2.meta.nextCursor).toBeNull();

    const bad = await call('/v1/rates/historical?currency=EUR&limit=0', key);
    expectErrorBody(bad, 400, 'invalid_parameter', [{ parameter: 'limit', message: expect.any(String) }]);
    const missing = await call('/v1/rates/historical?currency=ZZZ', key);
    expectErrorBody(missing, 404, 'not_found');
    for (const res of [bad, missing]) {
      expect(res.headers.deprecation).toBe('@1795219200');
      expect(res.headers.sunset).toBe(SUNSET);
      expect(res.headers.link).toBe('</v1/rates/history>; rel="successor-version"');
    }
    expectErrorBody(
      await call(`${base}&cursor=${encodeURIComponent(`${p1.meta.nextCursor}x`)}`, key),
      400,
      'invalid_cursor',
      [{ parameter: 'cursor', message: expect.any(String) }],
    );
  });
  it('sends Sunset and the successor link on refusals and 304s too, as the document declares', async () => {
    const refused = await call('/v1/rates/historical?currency=EUR', undefined);
    expectErrorBody(refused, 401, 'missing_api_key');
    expect(refused.headers.sunset).toBe(SUNSET);
    expect(refused.headers.link).toBe('</v1/rates/history>; rel="successor-version"');
    const first = await call('/v1/rates/historical?currency=EUR&limit=2', key);
    const again = await call('/v1/rates/historical?currency=EUR&limit=2', key, {
      'if-none-match': String(first.headers.etag),
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers.sunset).toBe(SUNSET);
    // One successor link, after the next-page link.
    expect(String(first.headers.link).match(/successor-version/g)).toHaveLength(1);

    const doc = (await h.app.inject('/openapi.json')).json();
    const operation = doc.paths['/v1/rates/historical'].get;
    expect(operation.deprecated).toBe(true);
    expect(operation.description).toContain(`Sunset: ${SUNSET}`);
    for (const [status, response] of Object.entries<{
      headers?: Record<string, { schema: object; required?: boolean }>;
    }>(operation.responses)) {
      // The 414 is answered before any route; the 500 documents X-Request-Id only (decisions 48).
      if (status === '414' || status === '500') {
        expect(response.headers?.Sunset, status).toBeUndefined();
        continue;
      }
      expect(response.headers?.Sunset?.schema, status).toMatchObject({ type: 'string', examples: [SUNSET] });
      expect(response.headers?.Deprecation?.schema, status).toMatchObject({ examples: ['@1795219200'] });
      expect(response.headers?.Link, status).toBeDefined();
      // A stopping server's 503 comes before the route: not sent on every 503.
      if (status === '503') expect(response.headers?.Sunset?.required, status).toBe(false);
      else expect(response.headers?.Sunset?.required, status).not.toBe(false);
    }
    // The successor declares none of them.
    expect(doc.paths['/v1/rates/history'].get.responses['200'].headers.Sunset).toBeUndefined();
  });
});
