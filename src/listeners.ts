/**
 * The operator listeners of `mds serve` (docs/decisions.md 58, 109): the
 * admin listener and the reporter listener, each on its own port and
 * Fastify instance, each refusing a non-loopback address without TLS unless
 * plain HTTP is allowed (readConfig says so first, with the fixes; this
 * holds for every caller).
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildAdminApp } from './admin-app.js';
import type { Contact } from './config.js';
import {
  adminListenerProblem,
  ConfigError,
  DEFAULT_ADMIN_HOST,
  DEFAULT_REPORT_HOST,
  reportListenerProblem,
} from './config.js';
import type { TrustProxy } from './http/client-address.js';
import { buildReportApp } from './report-app.js';
import type { Runtime } from './runtime/assemble.js';

/** What the operator listeners read of the server's options (server.ts ListenersOptions). */
export interface ListenersOptions {
  adminPort?: number;
  adminHost?: string;
  adminTlsCert?: string;
  adminTlsKey?: string;
  adminAllowPlaintext?: boolean;
  reportPort?: number;
  reportHost?: string;
  reportRateLimit?: number;
  headersTimeoutMs?: number;
  trustProxy?: TrustProxy;
  contact?: Contact;
}

/**
 * The admin listener (docs/decisions.md 58): GET /metrics, the admin API and
 * its document, on its own port and Fastify instance. It refuses a
 * non-loopback address without TLS unless plain HTTP is allowed (readConfig
 * says so first, with the fixes; this holds for every caller).
 */
export async function startAdmin(
  runtime: Runtime,
  options: ListenersOptions,
  logger: Logger,
): Promise<{ admin: FastifyInstance; adminUrl: string }> {
  const host = options.adminHost ?? DEFAULT_ADMIN_HOST;
  const { app, url } = await listen(
    buildAdminApp,
    adminListenerProblem,
    host,
    options.adminPort,
    runtime,
    options,
    logger,
  );
  return { admin: app, adminUrl: url };
}

/**
 * The reporter listener (docs/decisions.md 110): /report only, on its own
 * port, so an operator can open it to the field and keep /admin on the
 * loopback. The admin listener's TLS rule, with its certificate.
 */
export async function startReport(
  runtime: Runtime,
  options: ListenersOptions,
  logger: Logger,
): Promise<{ report: FastifyInstance; reportUrl: string }> {
  const host = options.reportHost ?? DEFAULT_REPORT_HOST;
  const { app, url } = await listen(
    buildReportApp,
    reportListenerProblem,
    host,
    options.reportPort,
    runtime,
    options,
    logger,
  );
  return { report: app, reportUrl: url };
}

/** An operator's listener: the TLS rule checked, the app built with the admin certificate, listening. */
async function listen(
  build: typeof buildAdminApp | typeof buildReportApp,
  listenerProblem: typeof adminListenerProblem,
  host: string,
  port: number | undefined,
  runtime: Runtime,
  options: ListenersOptions,
  logger: Logger,
): Promise<{ app: FastifyInstance; url: string }> {
  const tls =
    options.adminTlsCert && options.adminTlsKey
      ? { cert: readFileSync(options.adminTlsCert), key: readFileSync(options.adminTlsKey) }
      : undefined;
  const problem = listenerProblem(host, tls !== undefined, options.adminAllowPlaintext === true);
  if (problem) throw new ConfigError([problem]);
  const app = await build(runtime.services, {
    logger,
    tls,
    headersTimeoutMs: options.headersTimeoutMs,
    trustProxy: options.trustProxy,
    contact: options.contact,
    reportRateLimit: options.reportRateLimit,
  });
  await app.listen({ host, port });
  const a = app.server.address();
  const bound = typeof a === 'object' && a ? a.port : 0;
  return { app, url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}` };
}
