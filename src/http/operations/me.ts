import { keyPrefix } from '../../domain/keys.js';
import type { Services } from '../../runtime/services.js';
import { MeResponse } from '../../schemas/me.js';
import { NoQuery } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import { operation } from '../pipeline/operation.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function me({ activity }: Services) {
  return operation({
    url: '/me',
    schema: {
      operationId: 'getMe',
      summary: 'Account identity and usage',
      description:
        'The key, its grant and the usage of the current month, after this request. Never returns the key ' +
        'secret or billing contact data. Requires `usage:read`.',
      tags: ['Account'],
      querystring: NoQuery,
      response: responses(MeResponse, 'The caller', [401, 403, 429, 503], false),
    },
    entitlement: () => 'usage:read',
    answer: (_query, { access, limits }) => {
      const { key, grant, keyScopes, grantScopes } = access;
      return {
        data: {
          account: { id: grant.accountId },
          grant: {
            id: grant.id,
            provider: grant.provider,
            plan: grant.plan,
            status: grant.status,
            scopes: [...grantScopes],
            validFrom: iso(grant.validFrom),
            validUntil: iso(grant.validUntil),
            monthlyRequestLimit: grant.monthlyRequestLimit,
            requestsPerMinute: grant.requestsPerMinute,
          },
          key: {
            publicId: key.publicId,
            prefix: keyPrefix(key.environment, key.publicId),
            label: key.label,
            environment: key.environment,
            scopes: [...keyScopes],
            status: key.status,
            expiresAt: key.expiresAt === null ? null : iso(key.expiresAt),
            lastUsedAt: ((t) => (t === null ? null : iso(t)))(
              activity.lastUsedAt(key.publicId, key.lastUsedAt),
            ),
          },
          usage: {
            periodStart: iso(limits.monthStart),
            resetAt: iso(limits.monthResetAt),
            requestsUsed: limits.monthUsed,
            requestsRemaining: limits.monthRemaining,
            requestLimit: limits.monthLimit,
            requestsPerMinute: limits.minuteLimit,
            minuteRemaining: limits.minuteRemaining,
            minuteResetAt: iso(limits.minuteResetAt),
          },
        },
      };
    },
  });
}
