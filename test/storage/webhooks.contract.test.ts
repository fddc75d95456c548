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
import type { SubscriptionRecord } from '../../src/storage/webhook-records.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 1, 9);

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

    const [claimed, ...more] = await store.webhooks.claimDeliveries(T0 + 200, 30_000, 16);
    expect(more).toEqual([]);
    expect(claimed).toMatchObject({
      subscriptionId: 'whk_a',
      eventId: written[0],
      url: 'https://hooks.example/whk_a',
    });
    expect(claimed!.secrets).toEqual(['whsec_whk_a']);
    // Claimed: no other claimer gets it until its attempt is recorded or the claim lapses.
    expect(await store.webhooks.claimDeliveries(T0 + 300, 30_000, 16)).toEqual([]);

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
    expect(await store.webhooks.claimDeliveries(T0 + 600, 30_000, 16)).toHaveLength(1);
    await store.webhooks.releaseDeliveryClaims();
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
