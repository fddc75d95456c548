/**
 * Delivery across processes: two serving instances on one PostgreSQL
 * database deliver every event to a healthy receiver exactly once (each
 * delivery claimed FOR UPDATE SKIP LOCKED), one at a time and in order, also
 * after the receiver held an attempt (decisions 95); a SQLite server killed
 * with SIGKILL in the middle of an attempt delivers the event again, with the
 * same webhook-id, once it is started again (docs/decisions.md 68).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { type RunningServer, startServer } from '../../src/server.js';
import type { Store } from '../../src/storage/store.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../src/webhooks/settings.js';
import { TEST_ACTOR } from '../support/admin.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A store with an account, a grant to hang keys on, and an admin token for webhooks. */
async function prepared(db: Database) {
  const store = db.open();
  await store.migrate();
  const { id: accountId } = await createAccount(store, {});
  const grant = await createGrant(store, {
    accountId,
    plan: 'p',
    scopes: [...ENTITLEMENTS],
    monthlyRequestLimit: 1000,
    requestsPerMinute: 100,
  });
  const created = await createAdminToken(store, TEST_ACTOR, {
    label: 'webhooks',
    scopes: ['webhooks:write'],
  });
  if (!created.ok) throw new Error(JSON.stringify(created.error));
  return { store, grantId: grant.id, token: created.value.token };
}

async function subscribe(adminUrl: string, token: string, receiver: WebhookReceiver): Promise<void> {
  const res = await fetch(`${adminUrl}/admin/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, eventTypes: ['key.created'] }),
  });
  expect(res.status).toBe(201);
  receiver.secrets = [((await res.json()) as { data: { secret: string } }).data.secret];
}

describe.skipIf(!POSTGRES_URL)('two instances on PostgreSQL', () => {
  /** Two serving instances on one fresh database, a subscribed receiver, and the store to make keys in. */
  async function twoInstances(settings: Partial<WebhookSettings> = {}) {
    const db = await freshDatabase('postgres');
    cleanups.push(() => db.drop());
    const { store, grantId, token } = await prepared(db);
    cleanups.push(() => store.close());
    const servers: RunningServer[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await startServer({
        host: '127.0.0.1',
        port: 0,
        adminPort: 0,
        databaseUrl: db.url,
        redisUrl: REDIS_URL,
        redisPrefix: `mdstest:webhooks:${Date.now()}:`,
        logLevel: 'silent',
        drainMs: 0,
        webhooks: {
          ...DEFAULT_WEBHOOK_SETTINGS,
          policy: { allowHttp: true, allowPrivate: true },
          pollMs: 20,
          ...settings,
        },
      });
      servers.push(server);
      cleanups.push(() => server.stop());
    }
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    await subscribe(servers[0]!.adminUrl!, token, receiver);
    return { store, grantId, receiver };
  }

  it('deliver every event to a subscription exactly once', async () => {
    const { store, grantId, receiver } = await twoInstances();
    const n = 40;
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push((await createKey(store, { grantId })).publicId);
    const accepted = await receiver.waitForAccepted('key.created', n, 20_000);
    // A few more polls of both instances: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(n);
    expect(new Set(accepted.map((r) => r.id)).size).toBe(n);
    expect(new Set(accepted.map((r) => r.payload.data.keyId))).toEqual(new Set(keys));
  }, 60_000);

  it('deliver a subscription’s events one at a time, in order, also after its receiver hung', async () => {
    const { store, grantId, receiver } = await twoInstances({
      attemptTimeoutMs: 1_000,
      delaysMs: [0, 300, 300, 300, 300, 300],
    });
    // The receiver holds the first attempt; the events behind it wait in its queue.
    receiver.mode = 'hang';
    const n = 20;
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push((await createKey(store, { grantId })).publicId);
    await waitFor(() => receiver.received.length > 0, { what: 'the first attempt' });
    receiver.mode = 'ok';
    const accepted = await receiver.waitForAccepted('key.created', n, 20_000);
    // Whichever instance claims: in the order the keys were made, the held one retried first (decisions 95).
    expect(accepted.map((r) => r.payload.data.keyId)).toEqual(keys);
    const held = receiver.received.filter((r) => r.status === 0);
    expect(new Set(held.map((r) => r.payload.data.keyId))).toEqual(new Set([keys[0]]));
  }, 60_000);
});

describe('a delivering process killed mid-attempt (SQLite)', () => {
  it('delivers the event again after it is started again, with the same webhook-id', async () => {
    const db = await freshDatabase('sqlite');
    cleanups.push(() => db.drop());
    const { store, grantId, token } = await prepared(db);
    let open: Store | null = store;
    cleanups.push(async () => {
      await open?.close();
    });
    const env = {
      MDS_ADMIN_PORT: '0',
      MDS_WEBHOOK_ALLOW_HTTP: '1',
      MDS_WEBHOOK_ALLOW_PRIVATE: '1',
      MDS_WEBHOOK_POLL_MS: '20',
      MDS_WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms,200ms',
    };
    await store.close();
    open = null;
    const spawned: ServerProcess[] = [];
    cleanups.push(async () => {
      for (const s of spawned) await s.kill();
    });
    const first = await spawnServer({ db: db.url, env });
    spawned.push(first);
    const adminUrl = /Metrics: (\S+)\/metrics/.exec(first.stdout())?.[1];
    expect(adminUrl, first.stdout()).toBeDefined();

    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    await subscribe(adminUrl!, token, receiver);
    receiver.mode = 'hang';
    open = db.open();
    const { publicId } = await createKey(open, { grantId });
    await open.close();
    open = null;
    // The attempt is under way, its answer held: the process dies with its claim.
    const [held] = await waitFor(() => (receiver.received.length > 0 ? receiver.received : undefined), {
      timeout: 10_000,
      what: 'the first attempt',
    });
    await first.kill();
    receiver.mode = 'ok';

    spawned.push(await spawnServer({ db: db.url, env }));
    const [delivered] = await receiver.waitForAccepted('key.created', 1, 15_000);
    expect(delivered!.id).toBe(held!.id);
    expect(delivered!.payload.data.keyId).toBe(publicId);
  }, 60_000);
});
