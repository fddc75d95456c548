/**
 * Every admin route, one file per resource. A new resource: its file here
 * and its schemas in schemas/admin.ts; plugins/admin.ts mounts what this lists.
 */
import { accountRoutes } from './accounts.js';
import { auditRoutes } from './audit.js';
import { dataRoutes } from './data.js';
import { grantRoutes } from './grants.js';
import { keyRoutes } from './keys.js';
import type { AdminRoute } from './route.js';
import { usageRoutes } from './usage.js';
import { webhookRoutes } from './webhooks.js';

export function adminRouteList(): AdminRoute[] {
  return [
    ...accountRoutes,
    ...grantRoutes,
    ...keyRoutes,
    ...auditRoutes,
    ...dataRoutes,
    ...usageRoutes,
    ...webhookRoutes,
  ];
}
