/**
 * Admin imports off the serving event loop (docs/decisions.md 91), on every
 * backend: while a large import runs, /healthz and /v1 keep answering; a
 * third import while two are received or run answers 429 with Retry-After,
 * and the two go on.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';
import { waitFor } from '../../support/wait.js';

/** `count` EUR parallel quotes a minute apart, in 1990 (before the sample), as NDJSON: about 100 bytes each. */
function ndjson(count: number, from = Date.UTC(1990, 0, 1)): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const updatedAt = new Date(from + i * 60_000).toISOString();
    lines.push(`{"currency":"EUR","source":"parallel","buy":250,"sell":252,"updatedAt":"${updatedAt}"}`);
  }
  return `${lines.join('\n')}\n`;
}

describe.each(backends())('admin imports on threads of their own on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let key: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token } = await h.token(['data:write']));
    ({ key } = await h.newKey());
  });
  afterAll(async () => h?.close());

  const send = (body: string | PassThrough, query = '') =>
    h.admin.inject({
      method: 'POST',
      url: `/admin/v1/data/rates${query}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      payload: body,
    });

  it('keeps /healthz and /v1 answering while a 20 MB import runs', { timeout: 60_000 }, async () => {
    const body = ndjson(205_000);
    expect(body.length).toBeGreaterThan(19_000_000);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let finished = false;
    const importing = send(body).finally(() => {
      finished = true;
    });
    // Sequential requests while the import has not answered: each needs the
    // event loop, which an import on it would hold for seconds at a time.
    let answered = 0;
    while (!finished) {
      const health = await h.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      const latest = await h.app.inject({
        method: 'GET',
        url: '/v1/rates/latest?currency=EUR',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(latest.statusCode).toBe(200);
      if (!finished) answered++;
    }
    delay.disable();
    const res = await importing;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ received: 205_000, inserted: 205_000 });
    // Reported, not asserted (latency belongs to the bench): the loop's longest delay meanwhile.
    console.log(
      `${backend.name}: ${answered} pairs answered during the import; event-loop delay max ${(delay.max / 1e6).toFixed(0)} ms`,
    );
    expect(answered).toBeGreaterThanOrEqual(50);
  });

  it('answers a third import 429 with Retry-After while two are received, and the two go on', async () => {
    const imports = h.runtime.services.imports;
    const bodies = [new PassThrough(), new PassThrough()];
    const first = ndjson(2, Date.UTC(1991, 0, 1));
    const second = ndjson(2, Date.UTC(1991, 1, 1));
    bodies[0]!.write(first);
    bodies[1]!.write(second);
    const running = bodies.map((b) => send(b));
    await waitFor(() => imports.inUse === 2, { what: 'two imports holding a place' });

    const third = await send(ndjson(1, Date.UTC(1991, 2, 1)));
    const error = expectErrorBody(third, 429, 'too_many_requests').error;
    expect(third.headers['retry-after']).toBe('5');
    expect(error.message).toContain('MDS_ADMIN_IMPORTS');

    for (const b of bodies) b.end();
    for (const res of await Promise.all(running)) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ received: 2, inserted: 2 });
    }
    await waitFor(() => imports.inUse === 0, { what: 'the places released' });
    // A place again: the refused import goes through now.
    expect((await send(ndjson(1, Date.UTC(1991, 2, 1)))).statusCode).toBe(200);
  });
});
