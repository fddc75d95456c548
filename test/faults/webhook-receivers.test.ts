/**
 * One slow receiver delays no one (docs/decisions.md, 95): 35 subscriptions
 * whose receivers never answer (real HTTP servers on 127.0.0.1 that hold
 * every request) and one healthy one, all to `key.created`, on a running
 * server on SQLite and on PostgreSQL. The healthy receiver gets every event,
 * in the order the keys were made, long before a hanging attempt times out;
 * each hanging receiver, meanwhile, has been sent its first event only (its
 * queue waits behind it). Before, the worker claimed 16 deliveries at a time
 * and waited for the whole batch, hanging attempts included.
 * With attempts that time out quickly, each hanging receiver is retried on
 * its own schedule, its first event again and again, while the healthy one
 * gets every event. (How long the healthy receiver waits: `npm run bench --
 * --only webhooks`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../src/webhooks/settings.js';
import { TEST_ACTOR } from '../support/admin.js';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { waitFor } from '../support/wait.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const HANGING = 35;
const EVENTS = 5;
/** Longer than the whole test: no hanging attempt ends while it runs. */
const ATTEMPT_TIMEOUT_MS = 60_000;

/** A running server on a fresh store of `backend`, a grant to make keys on, and subscribed receivers. */
function setUp(backend: Backend, settings: Partial<WebhookSettings>) {
  const o = {
    db: undefined as Database | undefined,
    server: undefined as RunningServer | undefined,
    token: '',
    grantId: '',
    receivers: [] as WebhookReceiver[],
  };
  beforeAll(async () => {
    o.db = await freshDatabase(backend.name);
    const store = o.db.open();
    await store.migrate();
    const { id: accountId } = await createAccount(store, {});
    o.grantId = (
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
    o.token = created.value.token;
    await store.close();
    o.server = await startServer({
      host: '127.0.0.1',
      port: 0,
      adminPort: 0,
      databaseUrl: o.db.url,
      redisUrl: backend.redisUrl,
      redisPrefix: backend.redisPrefix,
      logLevel: 'silent',
      drainMs: 0,
      webhooks: {
        ...DEFAULT_WEBHOOK_SETTINGS,
        policy: { allowHttp: true, allowPrivate: true },
        pollMs: 50,
        ...settings,
      },
    });
  }, 60_000);
  afterAll(async () => {
    // The server first: its stop waits a moment for the attempts held, then leaves them.
    await o.server?.stop();
    for (const r of o.receivers.splice(0)) await r.close();
    await o.db?.drop();
  });

  /** 35 receivers holding every request, then a healthy one, each subscribed to key.created. */
  const receivers = async () => {
    const subscribed: WebhookReceiver[] = [];
    for (let i = 0; i <= HANGING; i++) {
      const r = await startReceiver();
      o.receivers.push(r);
      if (i < HANGING) r.mode = 'hang';
      const res = await fetch(`${o.server!.adminUrl}/admin/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: r.url, eventTypes: ['key.created'] }),
      });
      expect(res.status).toBe(201);
      r.secrets = [((await res.json()) as { data: { secret: string } }).data.secret];
      subscribed.push(r);
    }
    return { hanging: subscribed.slice(0, HANGING), healthy: subscribed[HANGING]! };
  };
  const keys = async () => {
    const made: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      made.push((await createKey(o.server!.runtime.services.store, { grantId: o.grantId })).publicId);
    }
    return made;
  };
  return { receivers, keys };
}

const keyIds = (r: WebhookReceiver) => r.received.map((x) => x.payload.data.keyId);

describe.each(backends())('35 hanging webhook receivers and a healthy one, on $name', (backend: Backend) => {
  const { receivers, keys } = setUp(backend, {
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    leaseMs: ATTEMPT_TIMEOUT_MS + 20_000,
  });

  it('the healthy receiver gets every event, in order; each hanging one only its first', async () => {
    const { hanging, healthy } = await receivers();
    const made = await keys();
    // Well within one hanging attempt's timeout: before, the healthy receiver waited for whole batches of them.
    const accepted = await healthy.waitForAccepted('key.created', EVENTS, ATTEMPT_TIMEOUT_MS / 3);
    expect(accepted.map((r) => r.payload.data.keyId)).toEqual(made);
    // Every hanging receiver is held on its first event; nothing else was sent to it.
    await waitFor(() => hanging.every((r) => r.received.length > 0), {
      timeout: ATTEMPT_TIMEOUT_MS / 3,
      what: () =>
        `every hanging receiver sent its first event (${hanging.filter((r) => r.received.length > 0).length} of ${HANGING})`,
    });
    for (const r of hanging) expect(keyIds(r)).toEqual([made[0]]);
  }, 90_000);
});

describe.each(backends())(
  '35 webhook receivers that keep timing out and a healthy one, on $name',
  (backend: Backend) => {
    // Attempts of half a second, retried 200 ms after each: each hanging receiver times out again and again.
    const { receivers, keys } = setUp(backend, {
      attemptTimeoutMs: 500,
      delaysMs: [0, ...Array<number>(11).fill(200)],
    });

    it('are retried on their own schedule, their first event only, while the healthy one gets every event', async () => {
      const { hanging, healthy } = await receivers();
      const made = await keys();
      const accepted = await healthy.waitForAccepted('key.created', EVENTS, 20_000);
      expect(accepted.map((r) => r.payload.data.keyId)).toEqual(made);
      await waitFor(() => hanging.every((r) => r.received.length >= 3), {
        timeout: 20_000,
        what: () =>
          `three attempts at each hanging receiver (${hanging.map((r) => r.received.length).join(', ')})`,
      });
      // Each retried its first event, the rest of its queue waiting behind it.
      for (const r of hanging) expect(new Set(keyIds(r))).toEqual(new Set([made[0]]));
    }, 90_000);
  },
);
