/**
 * The admin API's retraction of an observation (docs/decisions.md, 105): its
 * body, one rule per field for the admin API and `mds observations retract`
 * alike (schemas/admin-check.ts), and its answer.
 */
import { type Static, Type } from '@sinclair/typebox';
import { adminAnswer, Nullable } from './admin.js';
import { AssetCode, PurityName, SourceName, Timestamp } from './common.js';

export const MAX_REASON_LENGTH = 500;

export const RetractionCreate = Type.Object(
  {
    currency: Type.Optional(AssetCode),
    source: Type.Optional(SourceName),
    purity: Type.Optional(PurityName),
    at: Type.String({
      format: 'date-time',
      description: 'The observation’s `updatedAt`, to the millisecond, with its offset',
      examples: ['2026-11-28T09:30:00.000Z'],
      errorMessage: 'must be an ISO 8601 date-time with an offset, such as 2026-11-28T09:30:00Z',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: MAX_REASON_LENGTH,
      pattern: '\\S',
      description: 'Why it is taken back: kept with the retraction and in the audit log',
      examples: ['EUR typed for GBP'],
      errorMessage: `must be 1 to ${MAX_REASON_LENGTH} characters, not blank`,
    }),
    dryRun: Type.Optional(
      Type.Boolean({
        description: 'Change nothing: say what would be retracted and what the series’ latest would become',
      }),
    ),
  },
  {
    component: 'RetractionCreate',
    additionalProperties: false,
    description: 'A rate observation (`currency` and `source`) or a gold one (`purity`), and the reason',
  },
);
export type RetractionCreate = Static<typeof RetractionCreate>;

const Amounts = {
  buy: Type.Number({ description: 'DZD' }),
  sell: Type.Number({ description: 'DZD' }),
};

export const RetractionAnswer = adminAnswer(
  Type.Object(
    {
      retraction: Type.Object({
        id: Nullable(Type.String({ examples: ['ret_k3j5h7g9f1d2s4a6'], description: 'Null on a dry run' })),
        kind: Type.Union([Type.Literal('rates'), Type.Literal('gold')]),
        code: Type.String({ description: 'The currency, or the purity for gold', examples: ['EUR'] }),
        source: Type.String({ description: 'The rate source, or `gold`', examples: ['parallel'] }),
        updatedAt: Timestamp,
        ...Amounts,
        reason: Type.String(),
        actor: Type.Object({ id: Type.String(), label: Type.String() }),
        retractedAt: Timestamp,
      }),
      latest: Nullable(
        Type.Object(
          { updatedAt: Timestamp, ...Amounts },
          { description: 'The series’ latest observation after the retraction; null: none is left' },
        ),
      ),
      dryRun: Type.Boolean(),
    },
    { component: 'Retraction' },
  ),
  'What was retracted (what it published, and why) and the series’ latest now, or with `dryRun` what ' +
    'would be and would become; nothing changed on a dry run',
  true,
);
