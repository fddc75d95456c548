/**
 * The admin API's explanation and verification of published consensus points
 * (docs/decisions.md 107, 112, 113): the queries of
 * /admin/v1/consensus/explain and /admin/v1/consensus/verify, one rule per
 * field for the admin API and `mds consensus …` alike, and their answers.
 */
import { type Static, Type } from '@sinclair/typebox';
import { adminAnswer, Nullable } from './admin.js';
import { AssetCode, PurityName, Timestamp } from './common.js';

const Instant = (description: string) =>
  Type.String({
    format: 'date-time',
    description,
    examples: ['2026-11-28T09:30:00Z'],
    errorMessage: 'must be an ISO 8601 date-time with an offset, such as 2026-11-28T09:30:00Z',
  });

export const ExplainQuery = Type.Object(
  {
    currency: Type.Optional(AssetCode),
    purity: Type.Optional(PurityName),
    at: Type.Optional(
      Instant('The point in force at this instant (the latest at or before it); default: the latest point'),
    ),
  },
  { additionalProperties: false },
);
export type ExplainQuery = Static<typeof ExplainQuery>;

export const VerifyQuery = Type.Object(
  { since: Type.Optional(Instant('Points published at or after this instant; default: every point')) },
  { additionalProperties: false },
);
export type VerifyQuery = Static<typeof VerifyQuery>;

const Dzd = (description: string) => Type.Number({ description: `${description}, DZD` });
const Reason = Type.Union([Type.Literal('mid'), Type.Literal('buy'), Type.Literal('sell')]);

const ExplainedQuote = Type.Object(
  {
    id: Type.String({ examples: ['quo_k3j5h7g9f1d2s4a6'] }),
    reporterId: Type.String({ description: 'The reporter’s pseudonym', examples: ['rep_m2x8k1p4q7w3e9r5'] }),
    organisationId: Type.String({ examples: ['org_k3j5h7g9f1d2s4a6'] }),
    organisation: Nullable(Type.String({ description: 'The organisation’s name' })),
    buy: Dzd('Quoted buy'),
    sell: Dzd('Quoted sell'),
    observedAt: Timestamp,
    receivedAt: Timestamp,
    ageSeconds: Type.Integer({ description: 'From the instant it counts from to the point’s instant' }),
    used: Type.Boolean({ description: 'False: its organisation was excluded' }),
    excluded: Nullable(Reason),
    reason: Nullable(Type.String({ description: 'Why its organisation was excluded, in words' })),
  },
  { component: 'ExplainedQuote' },
);

const ExplainedOrganisation = Type.Object(
  {
    organisationId: Type.String(),
    organisation: Nullable(Type.String()),
    buy: Dzd('The median of its quotes’ buy'),
    sell: Dzd('The median of its quotes’ sell'),
    excluded: Nullable(Reason),
    reason: Nullable(Type.String()),
  },
  { component: 'ExplainedOrganisation' },
);

export const Explanation = Type.Object(
  {
    market: Type.String({ examples: ['EUR'] }),
    at: Timestamp,
    methodVersion: Type.Integer(),
    buy: Dzd('Published buy'),
    sell: Dzd('Published sell'),
    quality: Type.Object({
      organisations: Type.Integer(),
      reporters: Type.Integer(),
      excluded: Type.Integer(),
      dispersionPercent: Nullable(Type.Number()),
      confidence: Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]),
    }),
    organisations: Type.Array(ExplainedOrganisation),
    quotes: Type.Array(ExplainedQuote, {
      description: 'Used first, then excluded; oldest first within each',
    }),
  },
  { component: 'ConsensusExplanation' },
);

export const ExplanationAnswer = adminAnswer(
  Explanation,
  'The published point, its quality, and every quote it used or excluded',
  false,
);

export const Verification = Type.Object(
  {
    since: Nullable(Timestamp),
    checked: Type.Integer({ description: 'Points recomputed' }),
    differences: Type.Array(
      Type.Object({
        market: Type.String(),
        at: Timestamp,
        field: Type.String({ examples: ['buy'] }),
        stored: Type.String({ description: 'What the point holds, as JSON', examples: ['260.1'] }),
        recomputed: Type.String({ description: 'What the recomputation gives, as JSON', examples: ['260'] }),
      }),
      { description: 'Empty: every point recomputes to what was published' },
    ),
  },
  { component: 'ConsensusVerification' },
);

export const VerificationAnswer = adminAnswer(
  Verification,
  'Every published point since `since`, recomputed from the stored quotes; the differences found',
  false,
);
