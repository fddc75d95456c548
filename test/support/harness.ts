/**
 * Boots the whole application for a test, on a chosen backend, with the sample
 * data set dated relative to today and helpers to make accounts, grants and
 * keys. Tests talk to it only through HTTP (`app.inject`, routed through the
 * server's request listener: see dispatch.ts) and the CLI. Every answer
 * `app.inject` returns is checked against the app's served OpenAPI document
 * (openapi.ts, `validateResponses`): a test fails on an undocumented status,
 * header or body, whatever else it asserts.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import { generateSample } from '../../src/sample/generate.js';
import type { Store } from '../../src/storage/store.js';
import { type Backend, type Database, freshDatabase } from './backends.js';
import { injectThroughServer } from './dispatch.js';
import { createAccount, createGrant, createKey, revokeKey, updateGrant } from './keys.js';
import { type OpenApiDocument, validateResponses } from './openapi.js';
import { waitFor } from './wait.js';

export const DAY = 86_400_000;
/** The sample ends yesterday (UTC), so "today" windows hold no future records. */
export const SAMPLE_END = new Date(Date.now() - DAY).toISOString().slice(0, 10);

export interface Harness {
  app: FastifyInstance;
  runtime: Runtime;
  store: Store;
  db: Database;
  /** The OpenAPI document the app serves, which every answer is checked against. */
  doc: OpenApiDocument;
  /** A key on a fresh grant; every entitlement and generous limits unless overridden. */
  newKey(
    options?: KeyOptions,
  ): Promise<{ key: string; publicId: string; grantId: string; accountId: string }>;
  /** A further key on an existing grant. */
  keyFor(
    grantId: string,
    options?: { scopes?: string[]; expiresAt?: number },
  ): Promise<{ key: string; publicId: string }>;
  revoke(publicId: string): Promise<void>;
  updateGrant(grantId: string, patch: Parameters<typeof updateGrant>[2]): Promise<void>;
  /** Forces the watcher's next poll now, instead of waiting for it. */
  refresh(): Promise<void>;
  /**
   * Resolves once the data watcher itself has completed a poll that began
   * after this call: every change written before it has been seen, and the
   * watcher will not drop the caches for it later. For tests that need the
   * watcher's own state settled (the pipeline's cache of verified keys), not
   * merely the change applied (`refresh`).
   */
  watcherCaughtUp(): Promise<void>;
  get(url: string, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface KeyOptions {
  scopes?: string[];
  grantScopes?: string[];
  rpm?: number;
  monthly?: number;
  validFrom?: number;
  validUntil?: number;
  expiresAt?: number;
}

/**
 * The OpenAPI document the application serves, read from a harness started
 * for the purpose (no data): for suites that derive their cases from it at
 * collection time, before their own harnesses exist.
 */
export async function servedOpenApi(): Promise<OpenApiDocument> {
  const h = await startHarness({ name: 'sqlite' }, { seed: false });
  try {
    return h.doc;
  } finally {
    await h.close();
  }
}

/** The run's seeded SQLite file (sample-template.ts) when its sample ends on SAMPLE_END: not when the day turned since. */
function sampleTemplate(): string | undefined {
  let template: { path: string; endDate: string } | undefined;
  try {
    template = inject('sampleTemplate');
  } catch {
    return undefined; // outside a vitest run
  }
  return template?.endDate === SAMPLE_END && existsSync(template.path) ? template.path : undefined;
}

export async function startHarness(
  backend: Backend,
  options: { seed?: boolean; now?: () => number; operations?: AppOptions['operations'] } = {},
): Promise<Harness> {
  // On SQLite, a copy of the run's seeded file (sample-template.ts) rather than seeding again.
  const template = options.seed !== false && backend.name === 'sqlite' ? sampleTemplate() : undefined;
  const db = await freshDatabase(backend.name, template);
  const store = db.open();
  await store.migrate();
  if (options.seed !== false && !template) await seedSample(store, generateSample({ endDate: SAMPLE_END }));
  // The watcher reads the change counters once per poll, and nothing else on
  // this store calls versions() once it runs (`refresh` below uses the
  // original): counting the calls counts the watcher's polls.
  const versions = store.versions.bind(store);
  let polls = 0;
  store.versions = () => {
    polls++;
    return versions();
  };
  const runtime = await assemble({
    store,
    redisUrl: backend.redisUrl,
    redisPrefix: backend.redisPrefix,
    now: options.now,
    pollMs: 100,
  });
  const app = await buildApp(runtime.services, { logger: false, operations: options.operations });
  await app.ready();
  injectThroughServer(app);
  const doc = await validateResponses(app);

  const refresh = async () => {
    const v = await versions();
    runtime.services.authenticator.invalidate();
    await runtime.services.market.refresh(v.data);
  };

  const h: Harness = {
    app,
    runtime,
    store,
    db,
    doc,
    async newKey(o = {}) {
      const account = await createAccount(store, { name: 'Test', email: 'billing@example.com' });
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: o.grantScopes ?? [...ENTITLEMENTS],
        monthlyRequestLimit: o.monthly ?? 1_000_000,
        requestsPerMinute: o.rpm ?? 100_000,
        validFrom: o.validFrom ?? Date.now() - DAY,
        validUntil: o.validUntil,
      });
      const k = await createKey(store, { grantId: grant.id, scopes: o.scopes, expiresAt: o.expiresAt });
      return { key: k.key, publicId: k.publicId, grantId: grant.id, accountId: account.id };
    },
    async keyFor(grantId, o = {}) {
      const k = await createKey(store, { grantId, scopes: o.scopes, expiresAt: o.expiresAt });
      return { key: k.key, publicId: k.publicId };
    },
    async revoke(publicId) {
      await revokeKey(store, publicId);
      await refresh();
    },
    async updateGrant(grantId, patch) {
      await updateGrant(store, grantId, patch);
      await refresh();
    },
    refresh,
    async watcherCaughtUp() {
      // Poll mark+1 began after this call, so it read every earlier change; a
      // poll starts only when the previous one has finished, so once poll
      // mark+2 has begun, mark+1 has invalidated and reloaded what it saw.
      const mark = polls;
      await waitFor(() => polls >= mark + 2, { what: 'the data watcher catching up', timeout: 5_000 });
    },
    get(url, key, headers = {}) {
      return app.inject({
        method: 'GET',
        url,
        headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers,
      });
    },
    async close() {
      await app.close();
      await runtime.close();
      await db.drop();
    },
  };
  return h;
}
