/**
 * Webhook subscriptions (docs/decisions.md, 68; docs/webhooks.md), the same
 * from the CLI and the admin API. A subscription's secret is returned by the
 * operations that make it (createWebhook, rotateWebhookSecret), once; no view
 * holds it. A URL passes the target policy (webhooks/targets.ts) when it is
 * set; a rate alert's filter is checked against the asset directory, and its
 * state starts as what the latest rates say, so that only a crossing after
 * the change fires.
 *
 * Longer than 300 lines because it is a subscription's whole life, its rules,
 * views and eight operations, read together as both callers use them.
 */
import {
  type AlertFilter,
  alertHolds,
  alertValue,
  type EventType,
  filterProblems,
  newSubscriptionId,
} from '../domain/webhooks.js';
import { WebhookCreate, WebhookPatch } from '../schemas/admin-webhooks.js';
import type { Store } from '../storage/store.js';
import type { DeliveryRecord, SubscriptionPatch, SubscriptionRecord } from '../storage/webhook-records.js';
import { newSecret } from '../webhooks/signing.js';
import { checkUrl, type TargetPolicy } from '../webhooks/targets.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import { checked, invalid, keysetOf, notFound, type OperationOptions, pageOf, refusing } from './rules.js';
import { iso } from './views.js';

/** How long the secret before a rotation keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookOptions extends OperationOptions {
  /** Where deliveries may go: services.webhooks.policy (MDS_WEBHOOK_ALLOW_HTTP, MDS_WEBHOOK_ALLOW_PRIVATE). */
  policy: TargetPolicy;
}

export interface WebhookInput {
  url: string;
  eventTypes: string[];
  accountId?: string;
  /** Required with `rate.alert`, refused without it. */
  filter?: AlertFilter;
  description?: string;
}

export interface WebhookUpdateInput {
  id: string;
  url?: string;
  eventTypes?: string[];
  accountId?: string | null;
  filter?: AlertFilter | null;
  description?: string | null;
  /** false: disabled, by the actor; true: enabled again. */
  enabled?: boolean;
}

export interface WebhookListInput extends ListOptions {
  accountId?: string;
}

export interface WebhookView {
  id: string;
  url: string;
  eventTypes: EventType[];
  accountId: string | null;
  filter: AlertFilter | null;
  description: string | null;
  status: SubscriptionRecord['status'];
  disabledReason: string | null;
  alertActive: boolean;
  /** Set while the secret before the last rotation still signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A subscription as made or rotated: its secret, shown this once. */
export interface WebhookWithSecret extends WebhookView {
  secret: string;
}

export interface AttemptView {
  n: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responsePrefix: string;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryRecord['status'];
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  log: AttemptView[];
}

export const webhookView = (s: SubscriptionRecord, now: number): WebhookView => ({
  id: s.id,
  url: s.url,
  eventTypes: s.eventTypes,
  accountId: s.accountId,
  filter: s.filter,
  description: s.description,
  status: s.status,
  disabledReason: s.disabledReason,
  alertActive: s.alertActive,
  previousSecretExpiresAt:
    s.previousSecretExpiresAt !== null && s.previousSecretExpiresAt > now
      ? iso(s.previousSecretExpiresAt)
      : null,
  createdAt: iso(s.createdAt)!,
  updatedAt: iso(s.updatedAt)!,
});

export const deliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: iso(d.nextAttemptAt),
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: iso(d.createdAt)!,
  updatedAt: iso(d.updatedAt)!,
  log: d.log.map((a) => ({ ...a, at: iso(a.at)! })),
});

/** A URL of the schema's form, where the target policy lets deliveries go. */
function checkTarget(url: string, policy: TargetPolicy): string {
  const target = checkUrl(url, policy);
  if (!target.ok) throw invalid('url', target.problem);
  return url;
}

/**
 * A filter of the schema's shape: what no schema says (filterProblems: the
 * source with the metric, exactly one of above and below, a decimal) and a
 * currency of the asset directory.
 */
async function checkFilter(store: Store, filter: AlertFilter): Promise<AlertFilter> {
  const problems = filterProblems(filter);
  if (problems.length > 0) throw invalid('filter', problems.join('; '));
  const currencies = (await store.market.listAssets())
    .filter((a) => a.type === 'currency')
    .map((a) => a.code);
  if (!currencies.includes(filter.currency)) {
    throw invalid(
      'filter',
      `filter.currency "${filter.currency}" is not a currency of the asset directory: one of ${currencies.join(', ')}`,
    );
  }
  return filter;
}

/** Whether the condition holds on the latest rates now: what an alert's state starts as. */
async function holdsNow(store: Store, filter: AlertFilter): Promise<boolean> {
  const latest = new Map((await store.market.latestRates()).map((r) => [`${r.currency}:${r.source}`, r]));
  const reading = alertValue(filter, (currency, source) => latest.get(`${currency}:${source}`));
  return reading !== null && alertHolds(filter, reading);
}

async function checkAccount(store: Store, accountId: string): Promise<void> {
  if (!(await store.access.getAccount(accountId))) throw invalid('accountId', `no account ${accountId}`);
}

/** `filter` goes with `rate.alert`, and only with it. */
function checkFilterFits(eventTypes: EventType[], filter: AlertFilter | null, patching: boolean): void {
  const alert = eventTypes.includes('rate.alert');
  if (alert && filter === null)
    throw invalid('filter', 'is required with rate.alert: metric, currency, side, and above or below');
  if (!alert && filter !== null)
    throw invalid(
      'filter',
      patching
        ? 'is only for rate.alert: add rate.alert to eventTypes, or clear it with filter: null'
        : 'is only for rate.alert: add rate.alert to eventTypes, or remove the filter',
    );
}

export function createWebhook(
  store: Store,
  actor: Actor,
  input: WebhookInput,
  options: WebhookOptions,
): Promise<Result<WebhookWithSecret>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const given = checked(WebhookCreate, input);
    const url = checkTarget(given.url, options.policy);
    const eventTypes = given.eventTypes as EventType[];
    const filter = given.filter === undefined ? null : await checkFilter(store, given.filter as AlertFilter);
    checkFilterFits(eventTypes, filter, false);
    const accountId = given.accountId ?? null;
    if (accountId !== null) await checkAccount(store, accountId);
    const record: SubscriptionRecord = {
      id: newSubscriptionId(),
      url,
      eventTypes,
      accountId,
      filter,
      description: given.description ?? null,
      status: 'enabled',
      disabledReason: null,
      secret: newSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      alertActive: filter !== null && (await holdsNow(store, filter)),
      createdAt: now,
      updatedAt: now,
    };
    await store.webhooks.createSubscription(record, actor);
    return { ...webhookView(record, now), secret: record.secret };
  });
}

async function subscription(store: Store, id: string): Promise<SubscriptionRecord> {
  const found = await store.webhooks.getSubscription(id);
  if (!found) throw notFound(`no webhook subscription ${id}`);
  return found;
}

export function getWebhook(
  store: Store,
  _actor: Actor,
  { id }: { id: string },
  options: OperationOptions = {},
): Promise<Result<WebhookView>> {
  return refusing(async () => webhookView(await subscription(store, id), options.now ?? Date.now()));
}

export function listWebhooks(
  store: Store,
  _actor: Actor,
  input: WebhookListInput = {},
  options: OperationOptions = {},
): Promise<Result<Page<WebhookView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const now = options.now ?? Date.now();
    const filter = input.accountId === undefined ? {} : { accountId: input.accountId };
    const rows = await store.webhooks.listSubscriptions(filter, page);
    return pageOf(
      rows,
      page,
      (s) => ({ at: s.createdAt, id: s.id }),
      (s) => webhookView(s, now),
    );
  });
}

export function updateWebhook(
  store: Store,
  actor: Actor,
  input: WebhookUpdateInput,
  options: WebhookOptions,
): Promise<Result<WebhookView>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const { id: _, ...fields } = input;
    const given = checked(WebhookPatch, fields);
    const patch: SubscriptionPatch = {};
    if (given.url !== undefined) patch.url = checkTarget(given.url, options.policy);
    if (given.eventTypes !== undefined) patch.eventTypes = given.eventTypes as EventType[];
    if (given.filter !== undefined)
      patch.filter = given.filter === null ? null : await checkFilter(store, given.filter as AlertFilter);
    if (given.accountId !== undefined) {
      patch.accountId = given.accountId;
      if (patch.accountId !== null) await checkAccount(store, patch.accountId);
    }
    if (given.description !== undefined) patch.description = given.description;
    if (given.enabled === true)
      patch.status = 'enabled'; // the store clears disabledReason
    else if (given.enabled === false) {
      patch.status = 'disabled';
      patch.disabledReason = `disabled by ${actor.label} (${actor.id})`;
    }
    const before = await subscription(store, input.id);
    const filter = patch.filter === undefined ? before.filter : patch.filter;
    checkFilterFits(patch.eventTypes ?? before.eventTypes, filter, true);
    const updated = await store.webhooks.updateSubscription(input.id, patch, now, actor);
    if (!updated) throw notFound(`no webhook subscription ${input.id}`);
    // A new condition, or one not evaluated while disabled, starts from what holds now.
    const rebase = patch.filter !== undefined || (patch.status === 'enabled' && before.status === 'disabled');
    if (rebase) {
      const active = updated.filter !== null && (await holdsNow(store, updated.filter));
      if (
        active !== updated.alertActive &&
        (await store.webhooks.setAlertActive(updated.id, active, null, now))
      )
        updated.alertActive = active;
    }
    return webhookView(updated, now);
  });
}

export function deleteWebhook(
  store: Store,
  actor: Actor,
  { id }: { id: string },
  options: OperationOptions = {},
): Promise<Result<{ id: string }>> {
  return refusing(async () => {
    if (!(await store.webhooks.deleteSubscription(id, options.now ?? Date.now(), actor)))
      throw notFound(`no webhook subscription ${id}`);
    return { id };
  });
}

/**
 * A new secret, signing from now; the current one keeps signing beside it for
 * `oldSecretExpiresInSeconds` (SECRET_OVERLAP_MS unless given; 0 ends it at once, for a leaked secret).
 */
export function rotateWebhookSecret(
  store: Store,
  actor: Actor,
  { id, oldSecretExpiresInSeconds }: { id: string; oldSecretExpiresInSeconds?: number },
  options: OperationOptions = {},
): Promise<Result<WebhookWithSecret>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const overlap =
      oldSecretExpiresInSeconds === undefined ? SECRET_OVERLAP_MS : oldSecretExpiresInSeconds * 1_000;
    const rotated = await store.webhooks.rotateSecret(id, newSecret(), now + overlap, now, actor);
    if (!rotated) throw notFound(`no webhook subscription ${id}`);
    return { ...webhookView(rotated, now), secret: rotated.secret };
  });
}

export function listWebhookDeliveries(
  store: Store,
  _actor: Actor,
  input: ListOptions & { id: string },
): Promise<Result<Page<DeliveryView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    await subscription(store, input.id);
    const rows = await store.webhooks.listDeliveries(input.id, page);
    return pageOf(rows, page, (d) => ({ at: d.createdAt, id: d.id }), deliveryView);
  });
}

/** Queued again now, its schedule starting over; a disabled subscription's waits until it is enabled. */
export function redeliverWebhook(
  store: Store,
  actor: Actor,
  { id, deliveryId }: { id: string; deliveryId: string },
  options: OperationOptions = {},
): Promise<Result<DeliveryView>> {
  return refusing(async () => {
    await subscription(store, id);
    const delivery = await store.webhooks.redeliver(id, deliveryId, options.now ?? Date.now(), actor);
    if (!delivery) throw notFound(`no delivery ${deliveryId} of webhook subscription ${id}`);
    return deliveryView(delivery);
  });
}
