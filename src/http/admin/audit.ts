/**
 * /admin/v1/audit: every change, through the CLI or this API, newest first.
 * Read only: the store writes each record in the transaction of its change.
 */

import { AuditList, AuditListQuery, adminResponses } from '../../schemas/admin.js';
import { listAudit } from '../../use-cases/audit.js';
import { type AdminRoute, adminRoute, pageAnswer } from './route.js';

export const auditRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    url: '/audit',
    scope: 'audit:read',
    schema: {
      tags: ['Audit'],
      operationId: 'listAudit',
      summary: 'Read the audit log',
      description:
        'Audit records, newest first, a page at a time: time, actor (an admin token’s public id and label, or ' +
        '`cli` with the operating-system user), action, target, the changed fields before and after, the request ' +
        'or import id. Filter by `actor`, `targetId`, `action` and a window (`from`, `to`, both inclusive).',
      querystring: AuditListQuery,
      response: adminResponses({ status: 200, schema: AuditList }),
    },
    handler: async (request, _reply, { services, actor }) =>
      pageAnswer(request, await listAudit(services.store, actor, request.query as AuditListQuery)),
  }),
];
