/**
 * Each webhook event type has one schema (src/domain/webhook-events.ts): every
 * event its builder makes validates against it, the schemas refuse what the
 * service does not send, and the admin OpenAPI document's `webhooks` lists
 * every type with that schema as its body. The events storage builds in the
 * transaction of their cause are checked against the same schemas in
 * payloads.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdminOpenApiDocument } from '../../scripts/admin-client-codegen.js';
import {
  dataImported,
  dataRetracted,
  freshnessChanged,
  grantUpdated,
  keyCreated,
  keyExpiring,
  keyRevoked,
  rateAlert,
  reporterFlagged,
  usageThreshold,
} from '../../src/domain/webhook-builders.js';
import { EVENT_SCHEMAS, eventPayload, type NewEvent, WebhookEvent } from '../../src/domain/webhook-events.js';
import { EVENT_TYPES, type EventType } from '../../src/domain/webhooks.js';
import { newAjv } from '../support/openapi.js';

const T = Date.UTC(2026, 10, 26, 10, 0, 0);
const key = {
  publicId: 'a1b2c3d4e5f6',
  grantId: 'grt_g',
  label: 'billing',
  environment: 'test' as const,
  expiresAt: null,
};
const freshness = { updatedAt: T - 60_000, ageSeconds: 60, thresholdSeconds: 3_600 };

/** Every builder, with each of its variants (nulls, the optional filter fields). */
const EVENTS: NewEvent[] = [
  usageThreshold({ grantId: 'grt_g', accountId: 'acc_a', limit: 1000 }, '2026-11', 100, 'k1'),
  keyCreated(key, 'acc_a'),
  keyCreated({ ...key, environment: 'live', expiresAt: T + 86_400_000 }, 'acc_a'),
  keyRevoked({ ...key, revokedAt: T }, 'acc_a'),
  keyExpiring({ publicId: 'a1b2c3d4e5f6', grantId: 'grt_g', accountId: 'acc_a', expiresAt: T }, 'k2'),
  grantUpdated(
    { id: 'grt_g', accountId: 'acc_a', status: 'cancelled' },
    { status: { before: 'active', after: 'cancelled' }, scopes: { before: ['a'], after: null } },
  ),
  grantUpdated({ id: 'grt_g', accountId: 'acc_a', status: 'active' }, {}),
  dataImported({
    id: 'imp_1',
    kind: 'gold',
    sources: ['gold'],
    received: 2,
    inserted: 0,
    updated: 1,
    unchanged: 1,
    newestUpdatedAt: null,
  }),
  dataRetracted(
    {
      id: 'ret_1',
      kind: 'rates',
      code: 'EUR',
      source: 'parallel',
      updatedAt: T,
      buy: 250_500_000,
      sell: 252_000_000,
    },
    { updatedAt: T - 3_600_000, buy: 249_000_000, sell: 251_000_000 },
  ),
  dataRetracted(
    { id: 'ret_2', kind: 'gold', code: '21K', source: 'gold', updatedAt: T, buy: 1, sell: 2 },
    null,
  ),
  freshnessChanged('transfer', { ...freshness, stale: false }),
  freshnessChanged('gold', { updatedAt: null, ageSeconds: null, thresholdSeconds: 60, stale: true }),
  reporterFlagged(
    { reporterId: 'rep_r', organisationId: 'org_o', failed: 7, sample: 20, quoteId: 'quo_q' },
    'reporter.flagged:rep_r:quo_q',
  ),
  rateAlert(
    'whk_s',
    'acc_a',
    { metric: 'premium', currency: 'EUR', side: 'buy', below: '-2.5' },
    { value: -3.1, observedAt: T },
  ),
  rateAlert(
    'whk_s',
    null,
    { metric: 'rate', currency: 'USD', source: 'official', side: 'sell', above: '140' },
    { value: 140.25, observedAt: T },
  ),
];
const payloads = EVENTS.map((e) => JSON.parse(eventPayload('evt_0mhf3k2a1Qx8Yb2cTr9p', e, T)));

const ajv = newAjv();
const byType = Object.fromEntries(EVENT_TYPES.map((t) => [t, ajv.compile(EVENT_SCHEMAS[t])])) as Record<
  EventType,
  ReturnType<typeof ajv.compile>
>;
const anyEvent = ajv.compile(WebhookEvent);

describe('the schema of each webhook event type', () => {
  it('has a builder for every type', () => {
    expect(new Set(EVENTS.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));
  });

  it.each(payloads.map((p) => [p.type, p]))('allows the %s event its builder makes', (type, payload) => {
    const validate = byType[type as EventType];
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    expect(anyEvent(payload)).toBe(true);
    // And no other type's schema: the type names the schema.
    for (const other of EVENT_TYPES) if (other !== type) expect(byType[other](payload)).toBe(false);
  });

  it('types an event by its schema: TypeScript refuses a data its type does not allow', () => {
    const data = { grantId: 'g', accountId: 'a', period: '2026-11', threshold: 80 as const, used: 1 };
    const events: NewEvent[] = [
      { type: 'usage.threshold', accountId: null, data: { ...data, monthlyRequestLimit: 2 } },
      // @ts-expect-error: a field the schema does not have
      { type: 'usage.threshold', accountId: null, data: { ...data, monthlyRequestLimit: 2, extra: 1 } },
      // @ts-expect-error: a field missing
      { type: 'usage.threshold', accountId: null, data },
      // @ts-expect-error: another type's data
      { type: 'key.expiring', accountId: null, data: { ...data, monthlyRequestLimit: 2 } },
    ];
    expect(events).toHaveLength(4);
  });

  it('refuses a field the service does not send, one it always sends missing, or a wrong format', () => {
    const [threshold] = payloads;
    const check = byType['usage.threshold'];
    expect(check(threshold)).toBe(true);
    expect(check({ ...threshold, data: { ...threshold.data, extra: 1 } })).toBe(false);
    const { used: _, ...withoutUsed } = threshold.data;
    expect(check({ ...threshold, data: withoutUsed })).toBe(false);
    expect(check({ ...threshold, data: { ...threshold.data, threshold: 90 } })).toBe(false);
    expect(check({ ...threshold, createdAt: 'yesterday' })).toBe(false);
    expect(check({ ...threshold, more: true })).toBe(false);
  });
});

/** A webhook of the document, as far as these tests read it. */
interface Post {
  tags: string[];
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, unknown>;
}

describe('the admin OpenAPI document’s webhooks', () => {
  let doc: { openapi: string; webhooks?: Record<string, { post: Post }> };
  beforeAll(async () => {
    doc = (await loadAdminOpenApiDocument()) as unknown as typeof doc;
  }, 60_000);

  it('lists every event type, in the order of EVENT_TYPES, each a POST of its schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks ?? {})).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks![type]!.post;
      expect(post.tags).toEqual(['Webhooks']);
      expect(post.parameters.map((p) => `${p.in} ${p.name} ${p.required}`)).toEqual([
        'header webhook-id true',
        'header webhook-timestamp true',
        'header webhook-signature true',
      ]);
      expect(Object.keys(post.responses)).toContain('2XX');
      const schema = post.requestBody.content['application/json']!.schema;
      expect(schema.properties).toMatchObject({ type: { type: 'string', enum: [type] } });
    }
  });

  it('documents for each type a body that allows exactly that type’s events', () => {
    const documented = Object.fromEntries(
      EVENT_TYPES.map((t) => {
        const post = doc.webhooks![t]!.post;
        return [t, newAjv().compile(post.requestBody.content['application/json']!.schema)];
      }),
    );
    for (const payload of payloads) {
      for (const type of EVENT_TYPES) {
        const validate = documented[type]!;
        expect(validate(payload), `${payload.type} against ${type}: ${JSON.stringify(validate.errors)}`).toBe(
          type === payload.type,
        );
      }
    }
  });
});
