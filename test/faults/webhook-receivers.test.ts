/**
 * One slow receiver delays no one (docs/decisions.md, 95): 35 subscriptions
 * whose receivers never answer (real HTTP servers on 127.0.0.1 that hold
 * every request) and one healthy one, all to `key.created`, on a running
 * server on SQLite and on PostgreSQL. The healthy receiver gets every event,
 * in the order the keys were made, long before a hanging attempt times out;
 * each hanging receiver, meanwhile, has been sent its first event only (its
 * queue waits behind it). Before, the worker claimed 16 deliveries at a time
 * and waited for the whole batch, hanging attempts included.
 * (How long the healthy receiver waits: `npm run bench -- --only webhooks`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/webhooks/settings.js';
import { TEST_ACTOR } from '../support/admin.js';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HANGING = 35;
const EVENTS = 5;
/** Longer than the whole test: no hanging attempt ends while it runs. */
const ATTEMPT_TIMEOUT_MS = 60_000;

describe.each(backends())('35 hanging webhook receivers and a healthy one, on $name', (backend: Backend) => {
  let db: Database;
  let server: RunningServer;
  let token: string;
  let grantId: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    db = await freshDatabase(backend.name);
    const store = db.open();
    await store.migrate();
    const { id: accountId } = await createAccount(store, {});
    grantId = (
      await createGrant(store, {
        accountId,
        plan: 'p',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1000,
        requestsPerMinute: 100,
      })
    ).id;
    const created = await createAdminToken(store, TEST_ACTOR, {
      label: 'webhooks',
      scopes: ['webhooks:write'],
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    token = created.value.token;
    await store.close();
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      adminPort: 0,
      databaseUrl: db.url,
      redisUrl: backend.redisUrl,
      redisPrefix: backend.redisPrefix,
      logLevel: 'silent',
      drainMs: 0,
      webhooks: {
        ...DEFAULT_WEBHOOK_SETTINGS,
        policy: { allowHttp: true, allowPrivate: true },
        pollMs: 50,
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        leaseMs: ATTEMPT_TIMEOUT_MS + 20_000,
      },
    });
  }, 60_000);

  afterAll(async () => {
    // The server first: its stop waits a moment for the attempts held, then leaves them.
    await server?.stop();
    for (const r of receivers.splice(0)) await r.close();
    await db?.drop();
  });

  const subscribe = async (receiver: WebhookReceiver) => {
    const res = await fetch(`${server.adminUrl}/admin/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['key.created'] }),
    });
    expect(res.status).toBe(201);
    receiver.secrets = [((await res.json()) as { data: { secret: string } }).data.secret];
  };

  it('the healthy receiver gets every event, in order; each hanging one only its first', async () => {
    const hanging: WebhookReceiver[] = [];
    for (let i = 0; i < HANGING; i++) {
      const r = await startReceiver();
      receivers.push(r);
      r.mode = 'hang';
      hanging.push(r);
      await subscribe(r);
    }
    const healthy = await startReceiver();
    receivers.push(healthy);
    await subscribe(healthy);

    const keys: string[] = [];
    for (let i = 0; i < EVENTS; i++)
      keys.push((await createKey(server.runtime.services.store, { grantId })).publicId);

    // Well within one hanging attempt's timeout: before, the healthy receiver waited for whole batches of them.
    const accepted = await healthy.waitForAccepted('key.created', EVENTS, ATTEMPT_TIMEOUT_MS / 3);
    expect(accepted.map((r) => r.payload.data.keyId)).toEqual(keys);
    // Every hanging receiver is held on its first event; nothing else was sent to it.
    await waitFor(() => hanging.every((r) => r.received.length > 0), {
      timeout: ATTEMPT_TIMEOUT_MS / 3,
      what: () =>
        `every hanging receiver sent its first event (${hanging.filter((r) => r.received.length > 0).length} of ${HANGING})`,
    });
    for (const r of hanging) {
      expect(r.received.map((x) => x.payload.data.keyId)).toEqual([keys[0]]);
    }
  }, 90_000);
});
