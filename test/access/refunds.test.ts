/**
 * A unit consumed for a request that then failed (503) is given back, and the
 * give-back is as durable as the consumption (item 9): when the
 * store refuses the give-back too, it is retried until it lands, so the client
 * is never charged for an answer it did not get.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { monthPeriod } from '../../src/domain/dates.js';
import { seedSample } from '../../src/import/seed.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import { generateSample } from '../../src/sample/generate.js';
import { StoreUnavailableError } from '../../src/storage/errors.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { injectThroughServer } from '../support/dispatch.js';
import { SAMPLE_END } from '../support/harness.js';
import { keyOnNewGrant } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { waitFor } from '../support/wait.js';

/** What a store throws when its connection drops (the backends classify it so: storage/errors.ts). */
const connectionReset = () =>
  new StoreUnavailableError(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }));

interface Variant {
  name: string;
  backend: 'sqlite' | 'postgres';
  redis: boolean;
}
const variants: Variant[] = [{ name: 'sqlite, in-process limits', backend: 'sqlite', redis: false }];
if (POSTGRES_URL) variants.push({ name: 'postgres, store limits', backend: 'postgres', redis: false });
if (POSTGRES_URL && REDIS_URL) variants.push({ name: 'postgres + redis', backend: 'postgres', redis: true });

describe.each(variants)('refunds on $name', (variant) => {
  let db: Database;
  let store: Store;
  let runtime: Runtime;
  let app: Awaited<ReturnType<typeof buildApp>>;
  // A store whose history read fails once, and whose usage commits then fail
  // until the test lets them through: the outage that took the answer takes the
  // give-back's first commit too.
  const faults = { history: false, usage: false, refused: 0 };

  const withFaults = <T extends object>(repository: T): T =>
    new Proxy(repository, {
      get(target, name) {
        if (name === 'rateHistory' && faults.history)
          return () => {
            faults.history = false;
            faults.usage = true;
            return Promise.reject(connectionReset());
          };
        if (name === 'addUsage' && faults.usage)
          return () => {
            faults.refused++;
            return Promise.reject(connectionReset());
          };
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  beforeAll(async () => {
    db = await freshDatabase(variant.backend);
    store = db.open();
    await store.migrate();
    await seedSample(store, generateSample({ endDate: SAMPLE_END, days: 30 }));
    const flaky = Object.assign(Object.create(store) as Store, {
      market: withFaults(store.market),
      usage: withFaults(store.usage),
    });
    runtime = await assemble({
      store: flaky,
      redisUrl: variant.redis ? REDIS_URL : undefined,
      redisPrefix: `mdstest:${Math.random().toString(36).slice(2)}:`,
      pollMs: 100,
    });
    app = await buildApp(runtime.services, { logger: false });
    await app.ready();
    injectThroughServer(app);
    await validateResponses(app);
  });

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await db?.drop();
  });

  it('gives back the unit of a failed answer, even when the first give-back fails', async () => {
    const { key, grantId } = await keyOnNewGrant(store, { rpm: 100, monthly: 1_000 });
    const get = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${key}` } });
    const period = monthPeriod(Date.now()).key;

    expect((await get('/v1/rates/history?currency=EUR&limit=3')).statusCode).toBe(200);
    expect(await store.usage.getUsage(grantId, period)).toBe(1);

    faults.history = true;
    const failed = await get('/v1/rates/history?currency=EUR&limit=4');
    expect(failed.statusCode).toBe(503);
    expect(failed.headers['retry-after']).toBeDefined();
    expect(failed.json().error.code).toBe('service_unavailable');

    // The give-back was tried while the store was still away …
    await waitFor(() => faults.refused > 0, { what: 'a give-back tried' });
    expect(await store.usage.getUsage(grantId, period)).toBe(2);
    // … then the store is back: nothing else is sent, yet the unit comes off the count.
    faults.usage = false;
    await waitFor(async () => (await store.usage.getUsage(grantId, period)) === 1, {
      what: 'the unit given back',
    });
    expect(await store.usage.getUsage(grantId, period)).toBe(1);
    const me = await get('/v1/me');
    expect(me.statusCode).toBe(200);
    // The failed request is not in the month's count either: 1 answered before, then /v1/me.
    expect(me.headers['x-monthly-quota-remaining']).toBe(String(1_000 - 2));
  });
});
