/**
 * The webhook repository's contract, on every backend (docs/decisions.md, 68):
 * subscriptions kept and audited, an event written once per dedupe key with a
 * delivery for each subscription it concerns, a due delivery claimed by one
 * claimer until its attempt is recorded, and a setting moved only from the
 * value its writer saw. (Claims beside an import's lock on SQLite:
 * test/webhooks/claims.test.ts; the events each change emits:
 * test/webhooks/events.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { keyCreated } from '../../src/domain/webhook-builders.js';
import type { ClaimedDelivery, SubscriptionRecord } from '../../src/storage/webhook-records.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const LANES = { healthy: 16, failing: 16 };

/** A key.created event concerning no account, so that every subscription to it gets it. */
const keyEvent = (publicId: string) => ({
  ...keyCreated({ publicId, grantId: 'grt_x', label: 'k', environment: 'live', expiresAt: null }, 'acc_x'),
  accountId: null,
});

const subscription = (id: string, extra: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  id,
  url: `https://hooks.example/${id}`,
  eventTypes: ['key.created'],
  accountId: null,
  filter: null,
  description: null,
  status: 'enabled',
  disabledReason: null,
  secret: `whsec_${id}`,
  previousSecret: null,
  previousSecretExpiresAt: null,
  alertActive: false,
  createdAt: T0,
  updatedAt: T0,
  ...extra,
});

describe.each(backends())('webhook repository on $name', ({ name }) => {
  const store = migratedStore(name);

  it('keeps subscriptions: created, listed, updated, its secret rotated, deleted; each change audited', async () => {
    await store.webhooks.createSubscription(subscription('whk_a'));
    await store.webhooks.createSubscription(subscription('whk_b', { createdAt: T0 + 1, accountId: 'acc_1' }));
    expect(await store.webhooks.getSubscription('whk_a')).toEqual(subscription('whk_a'));
    expect(await store.webhooks.getSubscription('whk_none')).toBeUndefined();
    const all = await store.webhooks.listSubscriptions({}, { limit: 10 });
    expect(all.map((s) => s.id)).toEqual(['whk_a', 'whk_b']);
    const ofAccount = await store.webhooks.listSubscriptions({ accountId: 'acc_1' }, { limit: 10 });
    expect(ofAccount.map((s) => s.id)).toEqual(['whk_b']);

    const updated = await store.webhooks.updateSubscription('whk_b', { description: 'billing' }, T0 + 10);
    expect(updated).toMatchObject({ description: 'billing', updatedAt: T0 + 10 });
    const rotated = await store.webhooks.rotateSecret('whk_b', 'whsec_new', T0 + 1_000, T0 + 20);
    expect(rotated).toMatchObject({
      secret: 'whsec_new',
      previousSecret: 'whsec_whk_b',
      previousSecretExpiresAt: T0 + 1_000,
    });
    expect(await store.webhooks.deleteSubscription('whk_b', T0 + 30)).toBe(true);
    expect(await store.webhooks.deleteSubscription('whk_b', T0 + 31)).toBe(false);
    expect(await store.webhooks.getSubscription('whk_b')).toBeUndefined();

    const audit = await store.operator.listAudit({ targetId: 'whk_b' }, { limit: 10 });
    expect(audit.length).toBeGreaterThanOrEqual(3);
  });

  it('writes an event once per dedupe key, a delivery per subscription, claimed by one claimer', async () => {
    const event = { ...keyEvent('k1'), dedupeKey: 'once' };
    const written = await store.webhooks.emitEvents([event], T0 + 100);
    expect(written).toHaveLength(1);
    expect(await store.webhooks.emitEvents([event], T0 + 101)).toEqual([]);

    const [claimed, ...more] = await store.webhooks.claimDeliveries(T0 + 200, 30_000, LANES);
    expect(more).toEqual([]);
    expect(claimed).toMatchObject({
      subscriptionId: 'whk_a',
      eventId: written[0],
      url: 'https://hooks.example/whk_a',
    });
    expect(claimed!.secrets).toEqual(['whsec_whk_a']);
    // Claimed: no other claimer gets it until its attempt is recorded or the claim lapses.
    expect(await store.webhooks.claimDeliveries(T0 + 300, 30_000, LANES)).toEqual([]);

    await store.webhooks.recordAttempt({
      deliveryId: claimed!.id,
      n: 1,
      at: T0 + 400,
      statusCode: 200,
      error: null,
      durationMs: 12,
      responsePrefix: 'ok',
      delivered: true,
      nextAttemptAt: null,
    });
    const [delivery] = await store.webhooks.listDeliveries('whk_a', { limit: 10 });
    expect(delivery).toMatchObject({ id: claimed!.id, status: 'delivered', attempts: 1 });
    expect(delivery!.log).toMatchObject([{ n: 1, statusCode: 200 }]);

    const again = await store.webhooks.redeliver('whk_a', claimed!.id, T0 + 500);
    expect(again).toMatchObject({ status: 'pending' });
    expect(await store.webhooks.claimDeliveries(T0 + 600, 30_000, LANES)).toHaveLength(1);
    await store.webhooks.releaseDeliveryClaims();
  });

  it('hands out a subscription’s deliveries one at a time, in order; a failing receiver’s in a lane of its own', async () => {
    for (const id of ['whk_q1', 'whk_q2']) {
      await store.webhooks.createSubscription(subscription(id, { eventTypes: ['rate.alert'] }));
    }
    // Three events for each, written in one millisecond: the order written is the order delivered.
    const events = [1, 2, 3].flatMap((n) =>
      ['whk_q1', 'whk_q2'].map((id) => ({ ...keyEvent(`${id.slice(4)}-${n}`), subscriptionId: id })),
    );
    await store.webhooks.emitEvents(events, T0 + 1_000);
    const claim = async (at: number, limits = LANES) => {
      const claimed = await store.webhooks.claimDeliveries(at, 30_000, limits);
      return claimed.filter((d) => d.subscriptionId.startsWith('whk_q'));
    };
    const keyOf = (d: ClaimedDelivery) => (JSON.parse(d.payload) as { data: { keyId: string } }).data.keyId;
    const outcome = (d: ClaimedDelivery, at: number, delivered: boolean) =>
      store.webhooks.recordAttempt({
        deliveryId: d.id,
        n: d.attempts + 1,
        at,
        statusCode: delivered ? 204 : null,
        error: delivered ? null : 'timeout after 10000 ms',
        durationMs: 1,
        responsePrefix: '',
        delivered,
        nextAttemptAt: delivered ? null : at + 10,
      });

    const heads = await claim(T0 + 1_001);
    expect(heads.map(keyOf).sort()).toEqual(['q1-1', 'q2-1']);
    expect(heads.map((d) => d.failing)).toEqual([false, false]);
    // Each subscription has its delivery in flight: nothing more of either.
    expect(await claim(T0 + 1_002)).toEqual([]);
    const [q1, q2] = heads[0]!.subscriptionId === 'whk_q1' ? heads : [heads[1]!, heads[0]!];
    await outcome(q1!, T0 + 1_003, true);
    await outcome(q2!, T0 + 1_003, false);
    // q1 moves on to its next; q2's head waits for its retry, and the rest of q2 behind it.
    expect((await claim(T0 + 1_004)).map(keyOf)).toEqual(['q1-2']);
    expect(await claim(T0 + 1_020, { healthy: 16, failing: 0 })).toEqual([]);
    const [retry] = await claim(T0 + 1_020, { healthy: 0, failing: 16 });
    expect(retry).toMatchObject({ id: q2!.id, failing: true, attempts: 1 });
  });

  it('moves a setting only from the value its writer saw, with its events', async () => {
    const event = keyEvent('k2');
    expect(await store.webhooks.putSettingIf('cursor_test', undefined, 'a', [event], T0)).toBe(true);
    expect(await store.setting('cursor_test')).toBe('a');
    expect(await store.webhooks.putSettingIf('cursor_test', undefined, 'b', [], T0)).toBe(false);
    expect(await store.webhooks.putSettingIf('cursor_test', 'a', 'b', [], T0)).toBe(true);
    expect(await store.setting('cursor_test')).toBe('b');
  });
});
