/**
 * Boots the whole application for a test, on a chosen backend, with the sample
 * data set dated relative to today and helpers to make accounts, grants and
 * keys. Tests talk to it only through HTTP (`app.inject`, routed through the
 * server's request listener: see dispatch.ts) and the CLI.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createAccount, createGrant, createKey, revokeKey, updateGrant } from '../../src/access/admin.js';
import { buildApp } from '../../src/app.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import { generateSample } from '../../src/sample/generate.js';
import type { Store } from '../../src/storage/store.js';
import { type Backend, type Database, freshDatabase } from './backends.js';
import { injectThroughServer } from './dispatch.js';

export const DAY = 86_400_000;
/** The sample ends yesterday (UTC), so "today" windows hold no future records. */
export const SAMPLE_END = new Date(Date.now() - DAY).toISOString().slice(0, 10);

export interface Harness {
  app: FastifyInstance;
  runtime: Runtime;
  store: Store;
  db: Database;
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

export async function startHarness(
  backend: Backend,
  options: { seed?: boolean; now?: () => number } = {},
): Promise<Harness> {
  const db = await freshDatabase(backend.name);
  const store = db.open();
  await store.migrate();
  if (options.seed !== false) await seedSample(store, generateSample({ endDate: SAMPLE_END }));
  const runtime = await assemble({
    store,
    redisUrl: backend.redisUrl,
    redisPrefix: backend.redisPrefix,
    now: options.now,
    pollMs: 100,
  });
  const app = await buildApp(runtime.services, { logger: false });
  await app.ready();
  injectThroughServer(app);

  const refresh = async () => {
    const v = await store.versions();
    runtime.services.authenticator.invalidate();
    await runtime.services.market.refresh(v.data);
  };

  const h: Harness = {
    app,
    runtime,
    store,
    db,
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
