/**
 * The process: configuration from the environment, logging, listening, and a
 * graceful stop. SIGTERM stops accepting, lets in-flight requests finish, then
 * flushes usage and closes the store, all within a bounded time.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Contact, StaleAfter } from './config.js';
import type { TrustProxy } from './http/client-address.js';
import { assemble, type Runtime } from './runtime/assemble.js';
import { lockSqliteFile } from './runtime/single-process.js';
import { sqlitePath } from './storage/open.js';

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
  /** Admin listener for /metrics; off when undefined. Never the public port. */
  adminPort?: number;
  adminHost?: string;
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
}

const SHUTDOWN_GRACE_MS = 10_000;
const DRAIN_MS = 1_000;

/** `level`: MDS_LOG_LEVEL, checked by src/config.ts (`mds serve` passes it). */
export function createLogger(level = 'info'): Logger {
  return pino({
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
  });
}

export interface RunningServer {
  app: FastifyInstance;
  runtime: Runtime;
  url: string;
  /** The admin (metrics) URL, when enabled. */
  adminUrl?: string;
  stop(): Promise<void>;
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

  let admin: Server | undefined;
  let adminUrl: string | undefined;
  if (options.adminPort !== undefined) {
    admin = await startAdmin(runtime, options.adminHost ?? '127.0.0.1', options.adminPort);
    const a = admin.address();
    adminUrl = `http://${options.adminHost ?? '127.0.0.1'}:${typeof a === 'object' && a ? a.port : options.adminPort}`;
  }

  let stopping: Promise<void> | null = null;
  // Unbounded here: the process bounds it (stopOnSignals, SHUTDOWN_GRACE_MS).
  const stop = () => {
    stopping ??= (async () => {
      // Drain: keep answering for a moment, each response closing its connection and
      // /readyz failing, so clients and the load balancer move away before the
      // listener closes and no request is cut off mid-flight.
      runtime.services.lifecycle.draining = true;
      await new Promise((resolve) => setTimeout(resolve, options.drainMs ?? DRAIN_MS));
      await app.close();
      await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
      await runtime.close();
      lock?.release();
    })();
    return stopping;
  };
  return { app, runtime, url, adminUrl, stop };
}

/** The admin listener: Prometheus text on GET /metrics, nothing else. */
async function startAdmin(runtime: Runtime, host: string, port: number): Promise<Server> {
  const { registry } = runtime.services.metrics;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500).end();
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/**
 * The process's end (close-with-grace, issue 15: a maintained library for it).
 * SIGTERM or SIGINT stops the server gracefully and exits 0, or 1 when stopping
 * fails. A second signal while stopping, or stopping for longer than
 * SHUTDOWN_GRACE_MS, exits 1 at once. An uncaught exception or unhandled
 * rejection stops gracefully too (the usage still pending is written), then
 * exits 1. Other signals keep Node's default action.
 */
export function stopOnSignals(server: RunningServer, logger: Logger): void {
  closeWithGrace(
    {
      delay: SHUTDOWN_GRACE_MS,
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
      onTimeout: () => logger.error('shutdown took too long; exiting'),
    },
    async ({ signal, err }) => {
      if (err) logger.error({ err }, 'uncaught error; stopping');
      else logger.info({ signal }, 'stopping');
      await server.stop(); // a failure is logged by close-with-grace, and exits 1
    },
  );
}
