/** The account identity returned by /v1/me. */
import { Type } from '@sinclair/typebox';
import { Envelope, RequestMeta, Timestamp } from './common.js';
import { examples } from './examples.js';

const Scopes = Type.Array(Type.String(), { description: 'Canonical entitlements, sorted' });

export const MeResponse = Envelope(
  Type.Object(
    {
      account: Type.Object({ id: Type.String() }, { description: 'Billing contact data is omitted' }),
      grant: Type.Object({
        id: Type.String(),
        provider: Type.String(),
        plan: Type.String(),
        status: Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('cancelled')]),
        scopes: Scopes,
        validFrom: Timestamp,
        validUntil: Timestamp,
        monthlyRequestLimit: Type.Integer(),
        requestsPerMinute: Type.Integer(),
      }),
      key: Type.Object({
        publicId: Type.String(),
        prefix: Type.String({ examples: ['mds_live_a1b2c3d4e5f6'] }),
        label: Type.String(),
        environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
        scopes: Scopes,
        status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
        expiresAt: Type.Union([Timestamp, Type.Null()]),
        lastUsedAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
      }),
      usage: Type.Object({
        periodStart: Timestamp,
        resetAt: Timestamp,
        requestsUsed: Type.Integer(),
        requestsRemaining: Type.Integer(),
        requestLimit: Type.Integer(),
        requestsPerMinute: Type.Integer(),
        minuteRemaining: Type.Integer(),
        minuteResetAt: Timestamp,
      }),
    },
    // The component of the OpenAPI document (docs/decisions.md 64).
    { component: 'Identity' },
  ),
  RequestMeta,
  examples.me,
);
