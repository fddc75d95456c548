/**
 * The admin API's street-rate reporters and their organisations
 * (docs/decisions.md 108): the resources, bodies and answers of
 * /admin/v1/organisations and /admin/v1/reporters. A reporter's token is in
 * the answer that makes it (a create, a roll) and in no other.
 */
import { type Static, Type } from '@sinclair/typebox';
import { PURITIES } from '../domain/types.js';
import { adminAnswer, adminList, Text } from './admin.js';
import { CursorParam, LimitParam, Timestamp } from './common.js';
import { Defaulted } from './query.js';

const Paging = { limit: Defaulted(LimitParam, 100), cursor: Type.Optional(CursorParam) };

export const REPORTER_STATUSES = ['active', 'suspended', 'removed'] as const;

export const Market = Type.String({
  pattern: `^(?:[A-Z]{3}|${PURITIES.join('|')})$`,
  description: 'A currency code for its parallel rate (EUR), or a gold purity (21K)',
  examples: ['EUR'],
  errorMessage: `must be a currency code such as EUR, or one of ${PURITIES.join(', ')}`,
});
const Markets = Type.Array(Market, {
  minItems: 1,
  maxItems: 200,
  uniqueItems: true,
  description: 'The markets the reporter may quote',
  errorMessage: 'must list at least one market, each once',
});
const OrganisationId = Type.String({ minLength: 1, maxLength: 100, examples: ['org_k3j5h7g9f1d2s4a6'] });

export const Organisation = Type.Object(
  {
    id: OrganisationId,
    name: Type.String({ examples: ['Port Said exchange desk'] }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { component: 'Organisation' },
);

export const Reporter = Type.Object(
  {
    id: Type.String({ description: 'The reporter’s pseudonym', examples: ['rep_m2x8k1p4q7w3e9r5'] }),
    label: Type.String({
      description: 'For the operator: who or what reports',
      examples: ['Desk 3, morning'],
    }),
    organisationId: OrganisationId,
    markets: Type.Array(Type.String({ examples: ['EUR'] })),
    status: Type.Union(
      REPORTER_STATUSES.map((s) => Type.Literal(s)),
      { description: 'Only an active reporter’s quotes count; removed is final' },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { component: 'Reporter' },
);

const ReporterToken = Type.String({
  description: 'The reporter’s token, `mdsrep_…`: shown this once, never again',
  examples: ['mdsrep_k3j5h7g9f1d2_4bV9sX2mQ8rT1yU6iO3pA7sD5fG0hJ9kL2zX4cV8bN1m3Qw8Er'],
});

export const OrganisationCreate = Type.Object(
  { name: Text(200, 'The organisation: one shop, desk or network, whose reporters count once') },
  { component: 'OrganisationCreate', additionalProperties: false, description: 'A new organisation' },
);

export const ReporterCreate = Type.Object(
  {
    organisationId: OrganisationId,
    label: Text(100, 'For the operator: who or what reports'),
    markets: Markets,
  },
  { component: 'ReporterCreate', additionalProperties: false, description: 'A new reporter, active at once' },
);

export const ReporterPatch = Type.Object(
  {
    label: Type.Optional(Text(100, 'For the operator: who or what reports')),
    organisationId: Type.Optional(OrganisationId),
    markets: Type.Optional(Markets),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('suspended')], {
        description: 'suspended: its quotes stop counting; active: they count again',
        errorMessage: 'must be active or suspended (removing a reporter is its own operation)',
      }),
    ),
  },
  {
    component: 'ReporterPatch',
    additionalProperties: false,
    minProperties: 1,
    description: 'The fields to change',
    errorMessage: 'nothing to change: give at least one field',
  },
);

export const ReporterRoll = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 30 * 86_400,
        description: 'How long the previous token keeps working; default one day',
        errorMessage: 'must be a whole number of seconds from 0 to 2592000 (30 days)',
      }),
    ),
  },
  { component: 'ReporterRoll', additionalProperties: false, description: 'A new token for the reporter' },
);

export const ReporterListQuery = Type.Object(
  { ...Paging, organisationId: Type.Optional(OrganisationId) },
  { additionalProperties: false },
);
export const OrganisationListQuery = Type.Object(Paging, { additionalProperties: false });

export const OrganisationAnswer = (write: boolean, description: string) =>
  adminAnswer(Organisation, description, write);
export const ReporterAnswer = (write: boolean, description: string) =>
  adminAnswer(Reporter, description, write);
export const CreatedReporterAnswer = adminAnswer(
  Type.Object({ token: ReporterToken, reporter: Reporter }, { component: 'CreatedReporter' }),
  'The new reporter and its token (`token`), shown this once',
  true,
);
export const RolledReporterAnswer = adminAnswer(
  Type.Object(
    { token: ReporterToken, reporter: Reporter, previousExpiresAt: Timestamp },
    { component: 'RolledReporterToken' },
  ),
  'The reporter’s new token, shown this once; its previous tokens work until `previousExpiresAt`',
  true,
);
export const OrganisationList = adminList(Organisation, 'A page of organisations, oldest first');
const ListedReporter = Type.Object(
  {
    ...Reporter.properties,
    flagged: Type.Boolean({
      description:
        'More than 30 % of its last 20 quotes failed the exclusion test on their own (decisions 117); ' +
        'its statistics: GET /admin/v1/reporters/{id}/stats',
    }),
  },
  { component: 'ListedReporter' },
);
export const ReporterList = adminList(
  ListedReporter,
  'A page of reporters, oldest first, each flagged or not',
);

const Percent = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
export const ReporterStatistics = Type.Object(
  {
    reporterId: Type.String({ examples: ['rep_m2x8k1p4q7w3e9r5'] }),
    organisationId: OrganisationId,
    status: Reporter.properties.status,
    from: Timestamp,
    to: Timestamp,
    quotes: Type.Integer({ minimum: 0, description: 'Quotes sent in the last 30 days' }),
    judged: Type.Integer({
      minimum: 0,
      description:
        'Of them, judged against the consensus in force at their instant (none before a first one)',
    }),
    failed: Type.Integer({
      minimum: 0,
      description: 'Judged quotes whose own mid, buy or sell failed the exclusion test',
    }),
    failedPercent: Percent('failed / judged × 100, 2 decimals; null when none was judged'),
    medianDeviationPercent: Percent(
      'The median of the judged quotes’ signed deviations from the consensus mid, percent, 2 decimals',
    ),
    flagged: Type.Boolean({ description: 'More than 30 % of its last 20 quotes failed' }),
    lastQuotes: Type.Object(
      {
        sample: Type.Integer({
          minimum: 0,
          description: 'Its last quotes looked at: 20, or fewer if it sent fewer',
        }),
        failed: Type.Integer({ minimum: 0, description: 'How many of them failed' }),
      },
      { description: 'What the flag is judged on' },
    ),
  },
  { component: 'ReporterStatistics' },
);
export const ReporterStatisticsAnswer = adminAnswer(
  ReporterStatistics,
  'The reporter’s statistics over the last 30 days',
  false,
);

export type OrganisationCreate = Static<typeof OrganisationCreate>;
export type ReporterCreate = Static<typeof ReporterCreate>;
export type ReporterPatch = Static<typeof ReporterPatch>;
export type ReporterRoll = Static<typeof ReporterRoll>;
export type ReporterListQuery = Static<typeof ReporterListQuery>;
export type OrganisationListQuery = Static<typeof OrganisationListQuery>;
