/**
 * Assembles a running instance from configuration: the store, the limiter, the
 * caches and the watcher that keeps them fresh. Used by `mds serve` and by the
 * tests, so both run exactly the same wiring.
 */
import { Gauge } from 'prom-client';
import { Authenticator } from '../access/authenticator.js';
import { KeyActivity } from '../access/key-activity.js';
import { setting } from '../config/setting.js';
import { consensusSettings, type StaleAfter, type StaleFamily } from '../config.js';
import { ConsensusPublisher } from '../consensus/publisher.js';
import type { ConsensusSettings } from '../domain/consensus.js';
import { cursorCodec } from '../domain/cursor.js';
import { ImportThreads } from '../import/threads.js';
import type { Limiter } from '../limits/limiter.js';
import { MemoryLimiter } from '../limits/memory.js';
import { StoreLimiter } from '../limits/store-limiter.js';
import { UsageRecorder } from '../limits/usage-recorder.js';
import { instrumentStore, Metrics } from '../observability/metrics.js';
import { openStore } from '../storage/open.js';
import type { Store } from '../storage/store.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks/settings.js';
import { Freshness } from './freshness.js';
import { MarketData } from './market-data.js';
import type { Services } from './services.js';
import { Watcher } from './watcher.js';

export interface AssembleOptions {
  databaseUrl?: string;
  redisUrl?: string;
  /** `MDS_REDIS_CLUSTER=1`: `redisUrl` is a seed node of a Redis Cluster. */
  redisCluster?: boolean;
  /** Prefix for every Redis key (tests use one per run). */
  redisPrefix?: string;
  now?: () => number;
  /** How often to poll the store's change counters. */
  pollMs?: number;
  /** An already-open store (tests); it is migrated and closed like an owned one. */
  store?: Store;
  /** Defaults to a fresh registry with Node's default metrics. */
  metrics?: Metrics;
  /** Told of failures of the store's background work (SQLite's checkpoint thread). */
  onBackgroundError?: (err: Error) => void;
  /** MDS_STALE_AFTER in seconds per family; the defaults when undefined (config.ts staleAfterSeconds). */
  staleAfter?: StaleAfter;
  /** MDS_PUBLISHED_FAMILIES; all of them when undefined. */
  publishedFamilies?: readonly StaleFamily[];
  /** MDS_WEBHOOK_*; the defaults when undefined. */
  webhooks?: WebhookSettings;
  /** MDS_CONSENSUS_WINDOW and MDS_CONSENSUS_QUORUM; the defaults when undefined. */
  consensus?: ConsensusSettings;
  /** Admin imports at once; MDS_ADMIN_IMPORTS when undefined. */
  maxImports?: number;
}

export interface Runtime {
  services: Services;
  recorder: UsageRecorder;
  /** Flushes usage and activity, stops polling, closes connections. */
  close(): Promise<void>;
}

/**
 * The limiter of the topology (docs/deployment.md): Redis (or a Redis Cluster)
 * when configured; without it, the store's own check-and-consume on PostgreSQL,
 * where several instances may share the store, and the in-process counters on
 * SQLite, whose single process server.ts enforces. Each is exact on the
 * topology it is chosen for.
 */
async function chooseLimiter(
  options: AssembleOptions,
  store: Store,
  recorder: UsageRecorder,
  metrics: Metrics,
): Promise<Limiter> {
  if (options.redisUrl) {
    const { RedisLimiter } = await import('../limits/redis.js');
    return RedisLimiter.connect(options.redisUrl, store.usage, recorder, {
      prefix: options.redisPrefix,
      cluster: options.redisCluster,
      // A test that moves time moves the limiter's windows too.
      clock: options.now ? 'caller' : 'redis',
      onRoundTrip: (seconds) => metrics.limiterLatency.observe(seconds),
    });
  }
  if (store.dialect === 'postgres') return new StoreLimiter(store, recorder);
  return new MemoryLimiter(store.usage, recorder);
}

export async function assemble(options: AssembleOptions = {}): Promise<Runtime> {
  const now = options.now ?? Date.now;
  const metrics = options.metrics ?? new Metrics();
  const store = instrumentStore(
    options.store ??
      openStore(options.databaseUrl, { serving: true, onBackgroundError: options.onBackgroundError }),
    metrics,
  );
  await store.migrate();
  const secret = await store.setting('cursor_secret');
  if (!secret) throw new Error('the store has no cursor secret: run `mds migrate`');

  const recorder = new UsageRecorder(store, now, (lagMs) => metrics.usageFlushLag.observe(lagMs / 1000));
  const limiter = await chooseLimiter(options, store, recorder, metrics);

  const market = new MarketData(store);
  await market.refresh();
  const hits = metrics.cacheTallies.for({ cache: 'verified_keys', result: 'hit' });
  const misses = metrics.cacheTallies.for({ cache: 'verified_keys', result: 'miss' });
  const authenticator = new Authenticator(store, undefined, (hit) => (hit ? hits : misses).inc());
  const activity = new KeyActivity(store);
  const freshness = new Freshness(market, now, options.staleAfter, options.publishedFamilies);
  metrics.readFreshness(() => freshness.report().families);
  const watcher = new Watcher(store, market, authenticator, activity, options.pollMs ?? 500);
  await watcher.start();

  const consensus = options.consensus ?? consensusSettings();
  const services: Services = {
    store,
    limiter,
    authenticator,
    market,
    freshness,
    cursors: cursorCodec(secret),
    activity,
    now,
    metrics,
    lifecycle: { draining: false },
    // A copy: a test that changes its policy changes no other runtime's.
    webhooks: { ...(options.webhooks ?? DEFAULT_WEBHOOK_SETTINGS) },
    consensusSettings: consensus,
    consensus: new ConsensusPublisher(store, consensus, now, () => market.refresh()),
    imports: new ImportThreads(options.maxImports ?? Number(setting('MDS_ADMIN_IMPORTS')), (busy) =>
      store.usage.quietCheckpoints?.(busy),
    ),
  };

  // Read when scraped: the fault tests and the bench poll it (docs/decisions.md 91).
  new Gauge({
    name: 'mds_admin_imports',
    help: 'Admin API imports being received or run by this process (at most MDS_ADMIN_IMPORTS)',
    registers: [metrics.registry],
    collect() {
      this.set(services.imports.inUse);
    },
  });

  return {
    services,
    recorder,
    async close() {
      // Their transactions roll back before the store closes.
      await services.imports.stop();
      watcher.stop();
      await services.consensus.stop();
      await recorder.flush().catch(() => {});
      await activity.flush().catch(() => {});
      await limiter.close().catch(() => {});
      await store.close();
    },
  };
}
