/**
 * The bytes of every webhook event type, as the outbox stores them and every
 * attempt sends them (docs/webhooks.md, "Events"): built from fixed records
 * on SQLite, each event's `id` masked. A change of a payload's fields, their
 * order or their formatting fails here; and each payload is one its event
 * type's schema allows (src/domain/webhook-events.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  dataImported,
  dataRetracted,
  freshnessChanged,
  keyExpiring,
  rateAlert,
  reporterFlagged,
  usageThreshold,
} from '../../src/domain/webhook-builders.js';
import { EVENT_SCHEMAS } from '../../src/domain/webhook-events.js';
import { EVENT_TYPES, type EventType } from '../../src/domain/webhooks.js';
import type { Store } from '../../src/storage/store.js';
import type { ClaimedDelivery } from '../../src/storage/webhook-records.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { newAjv } from '../support/openapi.js';

const T = Date.UTC(2026, 10, 26, 10, 0, 0);
const DAY = 86_400_000;

let db: Database;
let store: Store;

beforeAll(async () => {
  db = await freshDatabase('sqlite');
  store = db.open();
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

const key = (publicId: string, expiresAt: number | null) => ({
  publicId,
  grantId: 'grt_g',
  environment: 'live' as const,
  digest: `digest-${publicId}`,
  label: `label of ${publicId}`,
  scopes: null,
  status: 'active' as const,
  expiresAt,
  lastUsedAt: null,
  createdAt: T,
  revokedAt: null,
});

/** The payloads delivered, as stored. */
const written: string[] = [];

/** Every payload delivered, its id masked, in order of type then bytes. */
async function delivered(): Promise<string[]> {
  // One subscription's queue goes out one delivery at a time: each recorded before the next is claimed.
  const claimed: ClaimedDelivery[] = [];
  for (;;) {
    const [next] = await store.webhooks.claimDeliveries(T + 100 * DAY, 30_000, { healthy: 100, failing: 0 });
    if (!next) break;
    claimed.push(next);
    await store.webhooks.recordAttempt({
      deliveryId: next.id,
      n: 1,
      at: T + 100 * DAY,
      statusCode: 204,
      error: null,
      durationMs: 1,
      responsePrefix: '',
      delivered: true,
      nextAttemptAt: null,
    });
  }
  written.push(...claimed.map((d) => d.payload));
  return claimed
    .map((d) => {
      const payload = JSON.parse(d.payload) as { id: string };
      expect(payload.id).toBe(d.eventId);
      return d.payload.replace(d.eventId, 'evt_ID');
    })
    .sort();
}

it('every event type is written with the same bytes as before', async () => {
  await store.access.createAccount({ id: 'acc_a', name: null, email: null, createdAt: T });
  await store.access.createGrant({
    id: 'grt_g',
    accountId: 'acc_a',
    provider: 'manual',
    plan: 'pro',
    status: 'active',
    scopes: ['rates:read'],
    validFrom: T,
    validUntil: T + 365 * DAY,
    monthlyRequestLimit: 1000,
    requestsPerMinute: 60,
    createdAt: T,
    updatedAt: T,
  });
  await store.webhooks.createSubscription({
    id: 'whk_s',
    url: 'https://example.com/hook',
    eventTypes: [
      'usage.threshold',
      'key.created',
      'key.revoked',
      'key.expiring',
      'grant.updated',
      'data.imported',
      'data.retracted',
      'data.stale',
      'data.fresh',
      'rate.alert',
      'reporter.flagged',
    ],
    accountId: null,
    filter: { metric: 'rate', currency: 'EUR', source: 'parallel', side: 'sell', above: '270' },
    description: null,
    status: 'enabled',
    disabledReason: null,
    secret: 'whsec_c2VjcmV0',
    previousSecret: null,
    previousSecretExpiresAt: null,
    alertActive: false,
    createdAt: T,
    updatedAt: T,
  });
  await store.access.createKey(key('key_1', T + 10 * DAY));
  await store.access.createKey(key('key_2', null));
  await store.access.revokeKey('key_1', T + 1_000);
  await store.access.updateGrant('grt_g', { status: 'suspended', requestsPerMinute: 30 }, T + 2_000);
  await store.access.rollKey(
    'key_2',
    { ...key('key_3', null), createdAt: T + 3_000 },
    T + 7 * DAY,
    T + 3_000,
  );
  await store.webhooks.emitEvents(
    [
      dataImported({
        id: 'imp_1',
        kind: 'rates',
        received: 3,
        inserted: 1,
        updated: 1,
        unchanged: 1,
        sources: ['parallel', 'official'],
        newestUpdatedAt: T - 60_000,
      }),
      dataImported({
        id: 'imp_2',
        kind: 'gold',
        received: 1,
        inserted: 1,
        updated: 0,
        unchanged: 0,
        sources: ['gold'],
        newestUpdatedAt: null,
      }),
      dataRetracted(
        {
          id: 'ret_1',
          kind: 'rates',
          code: 'EUR',
          source: 'parallel',
          updatedAt: T - 60_000,
          buy: 270_500_000,
          sell: 272_000_000,
        },
        { updatedAt: T - DAY, buy: 250_000_000, sell: 252_000_000 },
      ),
      rateAlert(
        'whk_s',
        null,
        { metric: 'rate', currency: 'EUR', source: 'parallel', side: 'sell', above: '270' },
        { value: 271.5, observedAt: T - 30_000 },
      ),
      reporterFlagged(
        { reporterId: 'rep_r', organisationId: 'org_o', failed: 7, sample: 20, quoteId: 'quo_q' },
        'reporter.flagged:rep_r:quo_q',
      ),
      usageThreshold(
        { grantId: 'grt_g', accountId: 'acc_a', limit: 1000 },
        '2026-11',
        80,
        'usage.threshold:grt_g:2026-11:80',
      ),
      keyExpiring(
        { publicId: 'key_1', grantId: 'grt_g', accountId: 'acc_a', expiresAt: T + 6 * DAY },
        'key.expiring:key_1',
      ),
      freshnessChanged('parallel', {
        updatedAt: T - 7_200_000,
        ageSeconds: 7_200,
        thresholdSeconds: 3_600,
        stale: true,
      }),
      freshnessChanged('gold', { updatedAt: null, ageSeconds: null, thresholdSeconds: 86_400, stale: true }),
      freshnessChanged('official', {
        updatedAt: T - 60_000,
        ageSeconds: 60,
        thresholdSeconds: 3_600,
        stale: false,
      }),
    ],
    T + 4_000,
  );
  expect(await delivered()).toEqual([
    '{"type":"data.fresh","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"family":"official","updatedAt":"2026-11-26T09:59:00.000Z","ageSeconds":60,"thresholdSeconds":3600}}',
    '{"type":"data.imported","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"importId":"imp_1","kind":"rates","sources":["parallel","official"],"counts":{"received":3,"inserted":1,"updated":1,"unchanged":1},"newestUpdatedAt":"2026-11-26T09:59:00.000Z"}}',
    '{"type":"data.imported","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"importId":"imp_2","kind":"gold","sources":["gold"],"counts":{"received":1,"inserted":1,"updated":0,"unchanged":0},"newestUpdatedAt":null}}',
    '{"type":"data.retracted","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"retractionId":"ret_1","kind":"rates","code":"EUR","source":"parallel","updatedAt":"2026-11-26T09:59:00.000Z","buy":270.5,"sell":272,"latest":{"updatedAt":"2026-11-25T10:00:00.000Z","buy":250,"sell":252}}}',
    '{"type":"data.stale","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"family":"gold","updatedAt":null,"ageSeconds":null,"thresholdSeconds":86400}}',
    '{"type":"data.stale","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"family":"parallel","updatedAt":"2026-11-26T08:00:00.000Z","ageSeconds":7200,"thresholdSeconds":3600}}',
    '{"type":"grant.updated","id":"evt_ID","createdAt":"2026-11-26T10:00:02.000Z","data":{"grantId":"grt_g","accountId":"acc_a","status":"suspended","changes":{"status":{"before":"active","after":"suspended"},"requestsPerMinute":{"before":60,"after":30}}}}',
    '{"type":"key.created","id":"evt_ID","createdAt":"2026-11-26T10:00:00.000Z","data":{"keyId":"key_1","grantId":"grt_g","accountId":"acc_a","label":"label of key_1","environment":"live","expiresAt":"2026-12-06T10:00:00.000Z"}}',
    '{"type":"key.created","id":"evt_ID","createdAt":"2026-11-26T10:00:00.000Z","data":{"keyId":"key_2","grantId":"grt_g","accountId":"acc_a","label":"label of key_2","environment":"live","expiresAt":null}}',
    '{"type":"key.created","id":"evt_ID","createdAt":"2026-11-26T10:00:03.000Z","data":{"keyId":"key_3","grantId":"grt_g","accountId":"acc_a","label":"label of key_3","environment":"live","expiresAt":null}}',
    '{"type":"key.expiring","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"keyId":"key_1","grantId":"grt_g","accountId":"acc_a","expiresAt":"2026-12-02T10:00:00.000Z"}}',
    '{"type":"key.revoked","id":"evt_ID","createdAt":"2026-11-26T10:00:01.000Z","data":{"keyId":"key_1","grantId":"grt_g","accountId":"acc_a","label":"label of key_1","environment":"live","expiresAt":"2026-12-06T10:00:00.000Z","revokedAt":"2026-11-26T10:00:01.000Z"}}',
    '{"type":"rate.alert","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"subscriptionId":"whk_s","filter":{"metric":"rate","currency":"EUR","source":"parallel","side":"sell","above":"270"},"value":271.5,"observedAt":"2026-11-26T09:59:30.000Z"}}',
    '{"type":"reporter.flagged","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"reporterId":"rep_r","organisationId":"org_o","failed":7,"sample":20,"quoteId":"quo_q"}}',
    '{"type":"usage.threshold","id":"evt_ID","createdAt":"2026-11-26T10:00:04.000Z","data":{"grantId":"grt_g","accountId":"acc_a","period":"2026-11","threshold":80,"used":800,"monthlyRequestLimit":1000}}',
  ]);
});

it('writes each event as its type’s schema allows, every type among them', () => {
  const ajv = newAjv();
  const payloads = written.map((p) => JSON.parse(p) as { type: EventType });
  expect(new Set(payloads.map((p) => p.type))).toEqual(new Set(EVENT_TYPES));
  for (const payload of payloads) {
    const validate = ajv.compile(EVENT_SCHEMAS[payload.type]);
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
  }
});
