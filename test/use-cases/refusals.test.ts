/**
 * One rule per input (docs/decisions.md 57, 58): each admin input is judged
 * by its schema (src/schemas/admin.ts) whichever way it comes. Every row of
 * the table is given to the admin API and to the `mds` CLI on the same
 * database: the API answers 400 naming the field with the
 * sentence of the row, the CLI exits 2 with `mds: --option: ` and the same
 * sentence. The behaviour is the operations', not the store's: SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/webhooks.js';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';
import { mdsInProcess as mds } from '../support/cli.js';
import { expectErrorBody } from '../support/openapi.js';

type Op =
  | 'createAccount'
  | 'updateAccount'
  | 'createGrant'
  | 'updateGrant'
  | 'createKey'
  | 'rollKey'
  | 'listAudit'
  | 'createWebhook'
  | 'retractObservation';
type Input = Record<string, string | number | string[] | Record<string, string>>;

interface Row {
  what: string;
  op: Op;
  input: Input;
  /** The field the API names (`scopes.1`: the second scope); the CLI names its option. */
  field: string;
  message: string;
}

const NAME = 'must be 1 to 200 characters, not blank, without control characters';
const LIMIT = 'must be an integer from 1 to 1000000000000';
const EMAIL = 'must be an email address';

/** Each row's input beside what it needs: the account, grant and key of `beforeAll` fill these in. */
const rows: Row[] = [
  { what: 'an empty name', op: 'createAccount', input: { name: '' }, field: 'name', message: NAME },
  { what: 'a blank name', op: 'createAccount', input: { name: '   ' }, field: 'name', message: NAME },
  {
    what: 'an empty name, as a change',
    op: 'updateAccount',
    input: { name: '' },
    field: 'name',
    message: NAME,
  },
  {
    what: 'a bad email',
    op: 'createAccount',
    input: { email: 'not-an-email' },
    field: 'email',
    message: EMAIL,
  },
  {
    what: 'an email with a space',
    op: 'createAccount',
    input: { email: 'a b@c.dz' },
    field: 'email',
    message: EMAIL,
  },
  {
    what: 'a bad email, as a change',
    op: 'updateAccount',
    input: { email: 'x@' },
    field: 'email',
    message: EMAIL,
  },
  {
    what: 'an externalId with surrounding spaces',
    op: 'createAccount',
    input: { externalId: ' cus_1' },
    field: 'externalId',
    message: 'must be 1 to 255 printable characters, without surrounding spaces',
  },
  {
    what: 'a monthly limit of 0',
    op: 'createGrant',
    input: { plan: 'basic', monthlyRequestLimit: 0 },
    field: 'monthlyRequestLimit',
    message: LIMIT,
  },
  {
    what: 'an rpm above the largest',
    op: 'createGrant',
    input: { plan: 'basic', requestsPerMinute: 1_000_000_000_001 },
    field: 'requestsPerMinute',
    message: LIMIT,
  },
  {
    what: 'a monthly limit of 0, as a change',
    op: 'updateGrant',
    input: { monthlyRequestLimit: 0 },
    field: 'monthlyRequestLimit',
    message: LIMIT,
  },
  {
    what: 'an rpm of 0, as a change',
    op: 'updateGrant',
    input: { requestsPerMinute: 0 },
    field: 'requestsPerMinute',
    message: LIMIT,
  },
  {
    what: 'an unknown scope',
    op: 'createGrant',
    input: { plan: 'basic', scopes: ['rates:read', 'everything'] },
    field: 'scopes.1',
    message: 'unknown scope "everything"',
  },
  {
    what: 'an unknown scope, as a change',
    op: 'updateGrant',
    input: { scopes: ['silver:read'] },
    field: 'scopes.0',
    message: 'unknown scope "silver:read"',
  },
  {
    what: 'an unknown scope of a key',
    op: 'createKey',
    input: { scopes: ['gold:spot:read'] },
    field: 'scopes.0',
    message: 'unknown scope "gold:spot:read"',
  },
  {
    what: 'a blank plan',
    op: 'createGrant',
    input: { plan: ' ' },
    field: 'plan',
    message: 'must be 1 to 100 characters, not blank, without control characters',
  },
  {
    what: 'a day the calendar lacks',
    op: 'createGrant',
    input: { plan: 'basic', validUntil: '2030-02-30T00:00:00Z' },
    field: 'validUntil',
    message: 'must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z',
  },
  {
    what: 'an unknown status',
    op: 'updateGrant',
    input: { status: 'paused' },
    field: 'status',
    message: 'must be one of active, suspended, cancelled',
  },
  {
    what: 'an unknown environment',
    op: 'createKey',
    input: { environment: 'prod' },
    field: 'environment',
    message: 'must be live or test',
  },
  {
    what: 'a grace period over 90 days',
    op: 'rollKey',
    input: { gracePeriodSeconds: 90 * 86_400 + 1 },
    field: 'gracePeriodSeconds',
    message: 'must be a whole number of seconds from 0 to 7776000 (90 days)',
  },
  {
    what: 'a start that is no instant',
    op: 'listAudit',
    input: { from: 'yesterday' },
    field: 'from',
    message: 'must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z',
  },
  {
    what: 'a page of 0',
    op: 'listAudit',
    input: { limit: 0 },
    field: 'limit',
    message: 'must be an integer from 1 to 1000',
  },
  {
    what: 'an unknown event type',
    op: 'createWebhook',
    input: { url: 'https://example.com/hook', eventTypes: ['key.created', 'key.exploded'] },
    field: 'eventTypes.1',
    message: `must be one of ${EVENT_TYPES.join(', ')}`,
  },
  {
    what: 'an empty URL',
    op: 'createWebhook',
    input: { url: '', eventTypes: ['key.created'] },
    field: 'url',
    message: 'must be a URL of 1 to 2048 characters',
  },
  {
    what: 'a blank description',
    op: 'createWebhook',
    input: { url: 'https://example.com/hook', eventTypes: ['key.created'], description: '  ' },
    field: 'description',
    message: 'must be 1 to 200 characters, not blank',
  },
  {
    what: 'an alert on an unknown metric',
    op: 'createWebhook',
    input: {
      url: 'https://example.com/hook',
      eventTypes: ['rate.alert'],
      filter: { metric: 'volume', currency: 'EUR', side: 'buy', above: '1' },
    },
    field: 'filter.metric',
    message: 'must be rate or premium',
  },
  {
    what: 'an instant without an offset',
    op: 'retractObservation',
    input: { currency: 'EUR', source: 'parallel', at: '2026-11-28T09:30', reason: 'typo' },
    field: 'at',
    message: 'must be an ISO 8601 date-time with an offset, such as 2026-11-28T09:30:00Z',
  },
  {
    what: 'an unknown rate source',
    op: 'retractObservation',
    input: { currency: 'EUR', source: 'street', at: '2026-11-28T09:30:00Z', reason: 'typo' },
    field: 'source',
    message: 'must be one of parallel, official, transfer',
  },
  {
    what: 'a blank reason',
    op: 'retractObservation',
    input: { purity: '21K', at: '2026-11-28T09:30:00Z', reason: '  ' },
    field: 'reason',
    message: 'must be 1 to 500 characters, not blank',
  },
  {
    what: 'a purity beside a currency',
    op: 'retractObservation',
    input: { currency: 'EUR', source: 'parallel', purity: '21K', at: '2026-11-28T09:30:00Z', reason: 'typo' },
    field: 'purity',
    message: 'names a gold price, which has no currency or source: give purity alone',
  },
];

/** The CLI's option for each field (a filter's: `--metric` and the like). */
const OPTION: Record<string, string> = {
  name: '--name',
  email: '--email',
  externalId: '--external-id',
  accountId: '--account',
  plan: '--plan',
  scopes: '--scopes',
  monthlyRequestLimit: '--monthly-limit',
  requestsPerMinute: '--rpm',
  validUntil: '--valid-until',
  status: '--status',
  grantId: '--grant',
  environment: '--environment',
  gracePeriodSeconds: '--grace-period',
  from: '--since',
  limit: '--limit',
  url: '--url',
  eventTypes: '--events',
  description: '--description',
  currency: '--currency',
  source: '--source',
  purity: '--purity',
  at: '--at',
  reason: '--reason',
};

const options = (input: Input): string[] =>
  Object.entries(input).flatMap(([field, v]) =>
    Array.isArray(v)
      ? [OPTION[field]!, v.join(',')]
      : typeof v === 'object'
        ? Object.entries(v).flatMap(([k, x]) => [`--${k}`, x])
        : [OPTION[field]!, String(v)],
  );
const optionOf = (field: string) =>
  field.startsWith('filter.') ? `--${field.slice(7)}` : OPTION[field.split('.')[0]!]!;

describe('each admin input has one rule, the same through the admin API and the CLI', () => {
  let h: AdminHarness;
  let token: string;
  const made = { account: '', grant: '', key: '' };

  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    ({ token } = await h.token());
    const post = async (url: string, body: unknown) =>
      (await h.call('POST', `/admin/v1${url}`, { token, body })).json().data;
    made.account = (await post('/accounts', { name: 'Refusals' })).id;
    made.grant = (await post('/grants', { accountId: made.account, plan: 'basic' })).id;
    made.key = (await post('/keys', { grantId: made.grant })).apiKey.publicId;
  });
  afterAll(async () => h?.close());

  /** The request and the command of a row. */
  function calls(row: Row): { method: string; url: string; body: Input; argv: string[] } {
    const { input } = row;
    switch (row.op) {
      case 'createAccount':
        return {
          method: 'POST',
          url: '/accounts',
          body: input,
          argv: ['accounts', 'create', ...options(input)],
        };
      case 'updateAccount':
        return {
          method: 'PATCH',
          url: `/accounts/${made.account}`,
          body: input,
          argv: ['accounts', 'update', made.account, ...options(input)],
        };
      case 'createGrant': {
        const body = { accountId: made.account, ...input };
        return { method: 'POST', url: '/grants', body, argv: ['grants', 'create', ...options(body)] };
      }
      case 'updateGrant':
        return {
          method: 'PATCH',
          url: `/grants/${made.grant}`,
          body: input,
          argv: ['grants', 'update', made.grant, ...options(input)],
        };
      case 'createKey': {
        const body = { grantId: made.grant, ...input };
        return { method: 'POST', url: '/keys', body, argv: ['keys', 'create', ...options(body)] };
      }
      case 'rollKey':
        return {
          method: 'POST',
          url: `/keys/${made.key}/roll`,
          body: input,
          argv: ['keys', 'roll', made.key, ...options(input)],
        };
      case 'createWebhook':
        return {
          method: 'POST',
          url: '/webhooks',
          body: input,
          argv: ['webhooks', 'create', ...options(input)],
        };
      case 'retractObservation':
        return {
          method: 'POST',
          url: '/data/retractions',
          body: input,
          argv: ['observations', 'retract', ...options(input)],
        };
      case 'listAudit':
        return {
          method: 'GET',
          url: `/audit?${new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)]))}`,
          body: {},
          argv: ['audit', ...options(input)],
        };
    }
  }

  it.each(rows)('$op: $what', async (row) => {
    const { method, url, body, argv } = calls(row);
    const api = await h.call(method, `/admin/v1${url}`, { token, ...(method === 'GET' ? {} : { body }) });
    // A query's field is a parameter, as on /v1; a body's, the request's.
    const code = method === 'GET' ? 'invalid_parameter' : 'invalid_request';
    expectErrorBody(api, 400, code, [{ parameter: row.field, message: row.message }]);
    const cli = await mds(argv, { db: h.db.url });
    const option = optionOf(row.field);
    expect({ status: cli.status, stdout: cli.stdout, stderr: cli.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: `mds: ${option}: ${row.message}\n`,
    });
  });
});
