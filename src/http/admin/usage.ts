/**
 * /admin/v1 usage reads (docs/decisions.md 62): a grant's requests per UTC
 * day with each key's (support questions), and the month's statement of
 * every grant (invoices), as JSON or as CSV when `Accept` asks for it. Thin
 * over src/use-cases/usage.ts, which the CLI and /v1/usage/daily use too.
 */

import { adminResponses, GrantIdParams } from '../../schemas/admin.js';
import {
  DailyUsageAnswer,
  DailyUsageQuery,
  StatementAnswer,
  StatementQuery,
  statementExample,
} from '../../schemas/admin-usage.js';
import { dailyUsage, statement } from '../../use-cases/usage.js';
import { prefersCsv } from '../accept.js';
import { toCsv } from '../csv.js';
import { CSV_TYPE } from '../respond.js';
import { type AdminRoute, adminRoute, answer, unwrap } from './route.js';
import { STATEMENT_COLUMNS } from './statement-columns.js';

const tags = ['Usage'];

export const usageRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    url: '/grants/{id}/usage/daily',
    scope: 'usage:read',
    schema: {
      tags,
      operationId: 'getGrantDailyUsage',
      summary: 'A grant’s daily usage',
      description:
        'The grant’s requests per UTC day, its total and each key’s, from `from` to `to` (inclusive, ' +
        '`YYYY-MM-DD`; at most 366 days; by default the current month so far). Every day of the window is ' +
        'listed, a day without requests with 0. The counts are the units the quota counted: a request ' +
        'refused (401, 403, 429) or answered 503 is not among them.',
      params: GrantIdParams,
      querystring: DailyUsageQuery,
      response: adminResponses({ status: 200, schema: DailyUsageAnswer }, [404]),
    },
    handler: async (request, reply, { services, actor }) => {
      const query = request.query as DailyUsageQuery;
      const input = { grantId: (request.params as { id: string }).id, from: query.from, to: query.to };
      const result = await dailyUsage(services.store, actor, input, { now: services.now() });
      return answer(request, reply, unwrap(result, 'query'));
    },
  }),
  adminRoute({
    method: 'GET',
    url: '/usage/statement',
    scope: 'usage:read',
    schema: {
      tags,
      operationId: 'getUsageStatement',
      summary: 'The month’s usage statement',
      description:
        'Every grant created before the month ended, with its account and the billing system’s ids, its ' +
        'plan and provider, the requests counted in the month and its monthly limit: what an invoice ' +
        'needs. JSON, or CSV when `Accept` ranks `text/csv` above `application/json`. The month is ' +
        '`YYYY-MM` in UTC; by default the current one (still counting).',
      querystring: StatementQuery,
      response: adminResponses({
        status: 200,
        schema: StatementAnswer(STATEMENT_COLUMNS.header, toCsv(STATEMENT_COLUMNS, statementExample)),
      }),
    },
    handler: async (request, reply, { services, actor }) => {
      const query = request.query as StatementQuery;
      const result = unwrap(
        await statement(services.store, actor, { month: query.month }, { now: services.now() }),
        'query',
      );
      reply.header('vary', 'accept');
      if (prefersCsv(request.headers.accept)) {
        reply.header('content-type', CSV_TYPE);
        return toCsv(STATEMENT_COLUMNS, result.lines);
      }
      reply.code(200);
      return { data: result.lines, meta: { requestId: request.id, month: result.month } };
    },
  }),
];
