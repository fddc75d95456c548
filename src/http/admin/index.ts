/**
 * Every admin route, one file per resource. A new resource: its file here
 * and its schemas in schemas/admin.ts; plugins/admin.ts mounts what this lists.
 */
import { adminError } from '../../schemas/admin.js';
import { accountRoutes } from './accounts.js';
import { adminTokenRoutes } from './admin-tokens.js';
import { auditRoutes } from './audit.js';
import { consensusRoutes } from './consensus.js';
import { dataRoutes } from './data.js';
import { grantRoutes } from './grants.js';
import { keyRoutes } from './keys.js';
import { reporterRoutes } from './reporters.js';
import { retractionRoutes } from './retractions.js';
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
    ...retractionRoutes,
    ...usageRoutes,
    ...webhookRoutes,
    ...reporterRoutes,
    ...consensusRoutes,
    ...adminTokenRoutes,
  ]
    .map(withUnsupportedEncoding)
    .map(withDiskFull);
}

/** Every write may answer 507: the store's disk is full (http/admin/errors.ts, docs/decisions.md 97). */
function withDiskFull(route: AdminRoute): AdminRoute {
  if (route.method === 'GET' || route.schema.response[507]) return route;
  return {
    ...route,
    schema: { ...route.schema, response: { ...route.schema.response, 507: adminError(507) } },
  };
}

/** Every write may answer 415: a compressed body is refused (http/admin/input.ts). */
function withUnsupportedEncoding(route: AdminRoute): AdminRoute {
  if (route.method === 'GET' || route.schema.response[415]) return route;
  // Integer keys keep their numeric order: 415 lands among the others.
  return {
    ...route,
    schema: { ...route.schema, response: { ...route.schema.response, 415: adminError(415) } },
  };
}
