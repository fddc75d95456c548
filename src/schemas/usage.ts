/**
 * Daily usage (docs/decisions.md 62): a grant's requests per UTC day, with
 * each key's. The customer reads their own at `GET /v1/usage/daily`; the
 * operator any grant's at `GET /admin/v1/grants/{id}/usage/daily`
 * (schemas/admin-usage.ts), the same data.
 */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_WINDOW_DAYS } from '../domain/history.js';
import { DateParam, Envelope, RequestMeta } from './common.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Day = Type.String({ format: 'date', description: 'A UTC day', examples: ['2026-11-21'] });

export const DailyUsageQuery = Type.Object(
  {
    from: Type.Optional(DateParam('First UTC day (inclusive); default the first day of `to`’s month')),
    to: Type.Optional(DateParam('Last UTC day (inclusive); default today (UTC)')),
  },
  { additionalProperties: false },
);
export type DailyUsageQuery = Static<typeof DailyUsageQuery>;

export const DailyUsage = Type.Object(
  {
    grantId: Type.String({ examples: ['grt_faf4lqzjgd4q'] }),
    from: Day,
    to: Day,
    requests: Count('Requests counted in the whole window'),
    days: Type.Array(
      Type.Object({
        day: Day,
        requests: Count('The grant’s requests that day: the sum of its keys’'),
        keys: Type.Array(
          Type.Object({
            publicId: Type.String({ description: 'The key’s public id', examples: ['aj0tishsygtj'] }),
            requests: Count('This key’s requests that day'),
          }),
          { description: 'The keys that made requests that day, by public id' },
        ),
      }),
      {
        maxItems: MAX_WINDOW_DAYS,
        description: 'Every day of the window, oldest first; a day without requests has 0 and no keys',
      },
    ),
  },
  // The component of both OpenAPI documents (docs/decisions.md 64).
  { component: 'DailyUsage' },
);

const RID = 'req_3f9k2m1x_1a';
export const dailyUsageExample = {
  grantId: 'grt_faf4lqzjgd4q',
  from: '2026-11-20',
  to: '2026-11-21',
  requests: 42,
  days: [
    { day: '2026-11-20', requests: 0, keys: [] },
    {
      day: '2026-11-21',
      requests: 42,
      keys: [
        { publicId: 'aj0tishsygtj', requests: 40 },
        { publicId: 'k8m2p4r6t8v0', requests: 2 },
      ],
    },
  ],
};

export const DailyUsageResponse = Envelope(DailyUsage, RequestMeta, {
  data: dailyUsageExample,
  meta: { requestId: RID },
});
