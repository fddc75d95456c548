/**
 * GET /v1/usage/daily: the caller's grant, its requests per UTC day and each
 * of its keys' (docs/decisions.md 62). Priced like /v1/me: one unit, counted
 * before the answer is read, so today's count includes this request.
 */
import { type DayWindow, dayWindow } from '../../domain/usage-window.js';
import type { Services } from '../../runtime/services.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { DailyUsageQuery, DailyUsageResponse } from '../../schemas/usage.js';
import { dailyUsage } from '../../use-cases/usage.js';
import { operation } from '../pipeline/operation.js';

type Query = QueryOf<typeof DailyUsageQuery> & { window: DayWindow };

export function usageDaily({ store, now }: Services) {
  return operation<typeof DailyUsageQuery, { window: DayWindow }>({
    url: '/usage/daily',
    schema: {
      operationId: 'getDailyUsage',
      summary: 'Daily usage of the grant',
      description:
        'The requests of the key’s grant per UTC day, the grant’s total and each key’s, from `from` to `to` ' +
        '(inclusive; at most 366 days; by default the current month so far). Every day of the window is ' +
        'listed, a day without requests with 0. Counts are the units the quota counted, this request ' +
        'included. Requires `usage:read`.',
      tags: ['Account'],
      querystring: DailyUsageQuery,
      response: responses(DailyUsageResponse, 'The grant’s daily usage', [400, 401, 403, 429, 503], false),
    },
    // Decided before a unit is consumed: a bad window is a 400 that costs nothing (decisions §6).
    refine: (q: Query, problems) => {
      if (problems.some((p) => p.parameter === 'from' || p.parameter === 'to')) return;
      const window = dayWindow(q, now(), problems);
      if (window) q.window = window;
    },
    entitlement: () => 'usage:read',
    answer: async (q: Query, { access }) => {
      const result = await dailyUsage(
        store,
        { id: 'system', label: `key ${access.key.publicId}`, requestId: null },
        { grantId: access.grant.id, ...q.window },
      );
      // The grant was just authenticated and the window checked: a refusal here is a failure of ours.
      if (!result.ok) throw new Error(`daily usage refused: ${result.error.message}`);
      return { data: result.value };
    },
  });
}
