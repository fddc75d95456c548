/**
 * The process: configuration from the environment, logging, listening, and a
 * graceful stop. SIGTERM stops accepting, lets in-flight requests finish, then
 * flushes usage and closes the store, all within a bounded time.
 * Longer than 300 lines because it is one sequence: every listener and
 * background worker of the process is started here and stopped here, in order.
 */
import { readFileSync } from 'node:fs';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import { defaultOf, type StaleFamily } from './config/environment.js';
import type { Contact, StaleAfter } from './config.js';
import type { ConsensusSettings } from './domain/consensus.js';
import type { TrustProxy } from './http/client-address.js';
import { startAdmin, startReport } from './listeners.js';
import { logStoreSpace } from './observability/store-space.js';
import { assemble, type Runtime } from './runtime/assemble.js';
import { lockSqliteFile } from './runtime/single-process.js';
import { CLOSE_MS, startWatchdog, WATCHDOG_GRACE_MS } from './runtime/stop-deadline.js';
import { sqlitePath } from './storage/open.js';
import type { WebhookSettings } from './webhooks/settings.js';
import { WebhookWorker } from './webhooks/worker.js';

export interface ServerOptions {
  host: string;
  port: number;
  databaseUrl?: string;
  redisUrl?: string;
  /** `MDS_REDIS_CLUSTER=1`: `redisUrl` is a seed node of a Redis Cluster. */
  redisCluster?: boolean;
  redisPrefix?: string;
  tlsCert?: string;
  tlsKey?: string;
  logLevel?: string;
  /** Admin listener (/metrics, /admin/v1, docs/decisions.md 58); off when undefined. Never the public port. */
  adminPort?: number;
  adminHost?: string;
  /** PEM files: the admin listener serves HTTPS. Needed off the loopback unless `adminAllowPlaintext`. */
  adminTlsCert?: string;
  adminTlsKey?: string;
  adminAllowPlaintext?: boolean;
  /** The reporter listener (/report only, docs/decisions.md 110), with the admin listener's TLS; off when undefined. */
  reportPort?: number;
  reportHost?: string;
  /** MDS_REPORT_RATE_LIMIT; its default when undefined. */
  reportRateLimit?: number;
  /** MDS_CONSENSUS_WINDOW and MDS_CONSENSUS_QUORUM; the defaults when undefined. */
  consensus?: ConsensusSettings;
  /** How long to keep answering (with Connection: close) after SIGTERM. */
  drainMs?: number;
  /** Header and whole-request timeouts; the app's defaults (10 s, 15 s) when undefined. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Proxies whose X-Forwarded-For names the client (MDS_TRUST_PROXY); none when undefined. */
  trustProxy?: TrustProxy;
  /** info.contact of the OpenAPI document (MDS_CONTACT_*); a name only when undefined. */
  contact?: Contact;
  /** MDS_STALE_AFTER in seconds per family (GET /status, the freshness gauges); the defaults when undefined. */
  staleAfter?: StaleAfter;
  /** MDS_PUBLISHED_FAMILIES: the families watched for freshness and shown on /charts; all when undefined. */
  publishedFamilies?: readonly StaleFamily[];
  /** MDS_WEBHOOK_*: targets, retries, polling; the defaults when undefined. */
  webhooks?: WebhookSettings;
}

const DRAIN_MS = Number(defaultOf('MDS_DRAIN_MS'));
/**
 * Log lines held while stdout is not read before new ones are dropped, and how
 * long the exit waits for such a stdout (docs/decisions.md 60): a reader that
 * stopped reading must never hold the process, before its exit or in it.
 */
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;
const EXIT_FLUSH_MS = 1_000;

/** `level`: MDS_LOG_LEVEL, checked by src/config.ts (`mds serve` passes it). */
export function createLogger(level = defaultOf('MDS_LOG_LEVEL')): Logger {
  // Written asynchronously, as pino's default, but bounded: lines beyond the
  // buffer are dropped, and the flush at exit gives up after EXIT_FLUSH_MS
  // (pino's own retries a full pipe forever, and the process never ends).
  let exitDeadline = Number.POSITIVE_INFINITY;
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: 0,
    maxLength: LOG_BUFFER_BYTES,
    retryEAGAIN: () => Date.now() < exitDeadline,
  });
  process.prependListener('exit', () => {
    exitDeadline = Date.now() + EXIT_FLUSH_MS;
    try {
      destination.flushSync();
    } catch {
      // stdout is not being read: what is left is dropped.
    }
    destination.flushSync = () => {};
  });
  return pino(
    {
      level,
      // Keys must never reach a log line, whatever a future change decides to log.
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'headers.authorization',
          'headers["x-api-key"]',
          'key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  /** The admin (metrics) URL, when enabled. */
  adminUrl?: string;
  /** The reporter listener's URL, when enabled. */
  reportUrl?: string;
  stop(): Promise<void>;
  /** How long `stop` keeps answering before it closes (MDS_DRAIN_MS). */
  drainMs: number;
  /** What `stop` is doing now, for the line logged when the deadline gives up on it. */
  stopStage(): string;
}

export async function startServer(
  options: ServerOptions,
  logger = createLogger(options.logLevel),
): Promise<RunningServer> {
  // SQLite without Redis counts limits in this process: one process per file.
  const file = options.redisUrl ? null : sqlitePath(options.databaseUrl);
  const lock = file === null ? null : lockSqliteFile(file);
  let runtime: Runtime;
  try {
    runtime = await assemble({
      databaseUrl: options.databaseUrl,
      redisUrl: options.redisUrl,
      redisCluster: options.redisCluster,
      redisPrefix: options.redisPrefix,
      staleAfter: options.staleAfter,
      publishedFamilies: options.publishedFamilies,
      webhooks: options.webhooks,
      consensus: options.consensus,
      onBackgroundError: (err) =>
        logger.error(
          { err },
          "SQLite's checkpoint thread failed; SQLite's own automatic checkpoint takes over",
        ),
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  logStoreSpace(runtime.services.store.space, logger);
  const tls =
    options.tlsCert && options.tlsKey
      ? { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) }
      : undefined;
  const app = await buildApp(runtime.services, {
    logger,
    tls,
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    trustProxy: options.trustProxy,
    contact: options.contact,
  });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `${tls ? 'https' : 'http'}://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;

  let admin: FastifyInstance | undefined;
  let adminUrl: string | undefined;
  let report: FastifyInstance | undefined;
  let reportUrl: string | undefined;
  try {
    if (options.adminPort !== undefined) ({ admin, adminUrl } = await startAdmin(runtime, options, logger));
    if (options.reportPort !== undefined)
      ({ report, reportUrl } = await startReport(runtime, options, logger));
  } catch (err) {
    await admin?.close();
    await app.close();
    await runtime.close();
    lock?.release();
    throw err;
  }

  // Webhook deliveries, from every serving process (docs/webhooks.md): on SQLite
  // this process is the file's only server, so the claims it finds are its own.
  const { services } = runtime;
  const webhooks = new WebhookWorker({
    store: services.store,
    freshness: services.freshness,
    settings: services.webhooks,
    now: services.now,
    logger,
    soleWorker: file !== null,
    holdOff: () => services.imports.writing,
  });
  await webhooks.start();
  services.consensus.start(logger); // every process: the store's compare-and-set publishes once

  let stopping: Promise<void> | null = null;
  const drainMs = options.drainMs ?? DRAIN_MS;
  let stage = 'serving';
  // Unbounded here: the process bounds it (stopOnSignals, drainMs + CLOSE_MS).
  const stop = () => {
    stopping ??= (async () => {
      // Drain: keep answering for a moment, each response closing its connection and
      // /readyz failing, so clients and the load balancer move away before the
      // listener closes and no request is cut off mid-flight.
      stage = 'draining';
      runtime.services.lifecycle.draining = true;
      await new Promise((resolve) => setTimeout(resolve, drainMs));
      stage = 'ending the admin imports still running';
      await runtime.services.imports.stop();
      stage = 'closing the listener (requests still in flight)';
      await app.close();
      stage = 'closing the admin listener';
      await admin?.close();
      stage = 'closing the reporter listener';
      await report?.close();
      stage = 'finishing the webhook attempts in flight';
      await webhooks.stop();
      stage = 'finishing the consensus pass';
      await services.consensus.stop();
      stage = 'closing the store (writing the usage still pending)';
      await runtime.close();
      lock?.release();
      stage = 'stopped';
    })();
    return stopping;
  };
  return { app, runtime, url, adminUrl, reportUrl, stop, drainMs, stopStage: () => stage };
}

/**
 * The process's end (close-with-grace: a maintained library for it).
 * SIGTERM or SIGINT stops the server gracefully and exits 0, or 1 when stopping
 * fails. A second signal while stopping, or stopping for longer than the
 * drain plus CLOSE_MS, exits 1 at once, logging what it gave up; a watchdog
 * thread kills the process if even that cannot run (runtime/stop-deadline.ts,
 * docs/decisions.md 60). An uncaught exception or unhandled
 * rejection stops gracefully too (the usage still pending is written), then
 * exits 1. Other signals keep Node's default action.
 */
export function stopOnSignals(server: RunningServer, logger: Logger): void {
  closeWithGrace(
    {
      delay: server.drainMs + CLOSE_MS,
      logger,
      skip: [
        'SIGHUP',
        'SIGQUIT',
        'SIGILL',
        'SIGTRAP',
        'SIGABRT',
        'SIGBUS',
        'SIGFPE',
        'SIGSEGV',
        'SIGUSR2',
        'beforeExit',
      ],
      onSecondSignal: (signal) => logger.error({ signal }, 'second signal while stopping; exiting'),
      onSecondError: (err) => logger.error({ err }, 'error while stopping; exiting'),
      onTimeout: (ms) =>
        logger.error(
          { gaveUp: server.stopStage(), deadlineMs: ms },
          'stopping took longer than the drain plus the bounded close; exiting without finishing',
        ),
    },
    async ({ signal, err }) => {
      startWatchdog(server.drainMs + CLOSE_MS + WATCHDOG_GRACE_MS);
      if (err) logger.error({ err }, 'uncaught error; stopping');
      else logger.info({ signal }, 'stopping');
      await server.stop(); // a failure is logged by close-with-grace, and exits 1
    },
  );
}
