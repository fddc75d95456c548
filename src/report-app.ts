/**
 * The reporter API (/report/v1 and /report/openapi.json, docs/decisions.md
 * 109) on an operator listener: mounted beside /admin by the admin listener
 * (admin-app.ts), and alone on the reporter listener (`MDS_REPORT_PORT`,
 * `buildReportApp`), which serves /report and nothing else, so the field
 * reaches it without reaching /admin. Never on the public listener.
 */
import type { FastifyInstance } from 'fastify';
import { defaultOf } from './config/environment.js';
import { ReporterAuthenticator, type VerifyReporterToken } from './http/report/auth.js';
import { REPORT_PREFIX, registerReportOpenApi } from './http/report/openapi.js';
import { reportPage } from './http/report/page.js';
import { reportRoutes as reportRouteList } from './http/report/routes.js';
import { type ListenerOptions, operatorListener, storeIdempotency } from './operator-listener.js';
import { reportRoutes } from './plugins/report.js';
import type { Services } from './runtime/services.js';
import { verifyReporterToken } from './use-cases/quotes.js';

export interface ReportOptions {
  /** MDS_REPORT_RATE_LIMIT: requests per reporter per UTC minute; its default when undefined. */
  reportRateLimit?: number;
  /** Tests may count or fail the store's calls; the store's own by default. */
  verifyReporterToken?: VerifyReporterToken;
}

/** The reporter API, its document and its page (/report/) on `app`, an operator listener. */
export async function mountReportApi(
  app: FastifyInstance,
  services: Services,
  options: ListenerOptions & ReportOptions,
): Promise<void> {
  await registerReportOpenApi(app, options.contact);
  reportPage(app);
  const verify =
    options.verifyReporterToken ??
    ((token: string, now: number) => verifyReporterToken(services.store, token, now));
  app.register(reportRoutes, {
    prefix: REPORT_PREFIX,
    services,
    routes: reportRouteList,
    authenticator: new ReporterAuthenticator(verify),
    idempotency: options.idempotency ?? storeIdempotency(services),
    requestsPerMinute: options.reportRateLimit ?? Number(defaultOf('MDS_REPORT_RATE_LIMIT')),
  });
}

/** The reporter listener's application: /report only. */
export async function buildReportApp(
  services: Services,
  options: ListenerOptions & ReportOptions = {},
): Promise<FastifyInstance> {
  const app = operatorListener(services, options);
  await mountReportApi(app, services, options);
  return app;
}
