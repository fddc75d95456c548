/**
 * /admin/v1/admin-tokens: changing what an admin token may do. Tokens are
 * made and revoked with `mds admin-tokens` (the admin API makes none, so a
 * leaked token cannot mint others); a token holding `admin-tokens:write` may
 * change another's scopes, never to one it lacks itself (403 naming it).
 * Thin over src/use-cases/admin-tokens.ts.
 */
import {
  AdminTokenAnswer,
  AdminTokenIdParams,
  AdminTokenPatch,
  adminResponses,
} from '../../schemas/admin.js';
import { updateAdminToken } from '../../use-cases/admin-tokens.js';
import { type AdminRoute, adminRoute, answer, unwrap } from './route.js';

export const adminTokenRoutes: AdminRoute[] = [
  adminRoute({
    method: 'PATCH',
    url: '/admin-tokens/{publicId}',
    scope: 'admin-tokens:write',
    schema: {
      tags: ['Admin tokens'],
      operationId: 'updateAdminToken',
      summary: 'Change an admin token’s scopes',
      description:
        'Replaces the token’s scopes with `scopes` (the whole list); its secret stays the same and its next ' +
        'request is judged by the new list. Every scope given must be one the calling token holds (403 ' +
        '`insufficient_admin_scope` naming it otherwise). A revoked token cannot change (409).',
      params: AdminTokenIdParams,
      body: AdminTokenPatch,
      response: adminResponses({ status: 200, schema: AdminTokenAnswer }, [404, 409]),
    },
    handler: async (request, reply, { services, actor }) => {
      const { publicId } = request.params as { publicId: string };
      const { scopes } = request.body as AdminTokenPatch;
      return answer(
        request,
        reply,
        unwrap(await updateAdminToken(services.store, actor, { id: publicId, scopes })),
      );
    },
  }),
];
