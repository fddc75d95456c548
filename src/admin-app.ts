/**
 * The admin listener's application (docs/decisions.md 58): a second Fastify
 * instance, never the public one (operator-listener.ts), serving `GET
 * /metrics` (keyless), its own OpenAPI document at `GET /admin/openapi.json`
 * (keyless) and the admin API under /admin/v1 (admin tokens). It serves the
 * reporter API too (report-app.ts, docs/decisions.md 110). server.ts decides
 * where it listens.
 */
import type { FastifyInstance } from 'fastify';
import { setting } from './config.js';
import { AdminAuthenticator, type VerifyAdminToken } from './http/admin/auth.js';
import { adminRouteList } from './http/admin/index.js';
import { registerAdminOpenApi, withWebhooks } from './http/admin/openapi.js';
import { cleanDocument } from './http/openapi.js';
import { JSON_TYPE } from './http/respond.js';
import { type ListenerOptions, operatorListener, storeIdempotency } from './operator-listener.js';
import { adminRoutes } from './plugins/admin.js';
import { mountReportApi, type ReportOptions } from './report-app.js';
import type { Services } from './runtime/services.js';
import { verifyAdminToken } from './use-cases/admin-tokens.js';

export interface AdminAppOptions extends ListenerOptions, ReportOptions {
  /** Tests may count or fail the store's calls; the store's own by default. */
  verifyToken?: VerifyAdminToken;
  /** The plan catalogue of new grants; MDS_PLANS_FILE (or config/plans.json) when undefined. */
  plansFile?: string;
}

export async function buildAdminApp(
  services: Services,
  options: AdminAppOptions = {},
): Promise<FastifyInstance> {
  const app = operatorListener(services, options);
  await registerAdminOpenApi(app, options.contact);

  const { registry } = services.metrics;
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  let document: string | undefined;
  app.get('/admin/openapi.json', async (_request, reply) => {
    document ??= JSON.stringify(cleanDocument(withWebhooks(app.swagger())));
    reply.header('content-type', JSON_TYPE);
    return document;
  });

  const verify =
    options.verifyToken ??
    (async (token: string) => {
      const record = await verifyAdminToken(services.store, token);
      return record && { publicId: record.publicId, label: record.label, scopes: record.scopes };
    });
  await mountReportApi(app, services, options);
  app.register(adminRoutes, {
    prefix: '/admin/v1',
    services,
    routes: adminRouteList(),
    authenticator: new AdminAuthenticator(verify),
    idempotency: options.idempotency ?? storeIdempotency(services),
    plansFile: options.plansFile ?? (setting('MDS_PLANS_FILE') || undefined),
  });
  return app;
}
