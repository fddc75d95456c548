/**
 * Prometheus metrics (issue #7), served on the admin port only (server.ts),
 * never on the public one. Label values are route templates, statuses and
 * fixed words: never a key, a grant id or anything a client chose.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Store } from '../storage/store.js';

/** One labelled count of a hot path; see `Tallies`. */
export interface Tally {
  inc(): void;
}

/**
 * Counts taken on the hot path. prom-client's `inc()` validates and hashes its
 * labels on every call: with the three counters a request touches, that was
 * about a tenth of a cached request's CPU time (measured A/B under wrk). A tally
 * is a plain number, added to its counter when the metrics are read.
 */
class Tallies<L extends string> {
  private readonly entries = new Map<string, { labels: Partial<Record<L, string>>; n: number }>();

  constructor(private readonly counter: () => Counter<L>) {}

  /** The tally for these label values (look it up once, keep it). */
  for(labels: Partial<Record<L, string>>): Tally {
    const key = JSON.stringify(labels);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { labels, n: 0 };
      this.entries.set(key, entry);
    }
    const e = entry;
    return {
      inc: () => {
        e.n++;
      },
    };
  }

  /** Called by the counter's `collect`, before every read. */
  flush(): void {
    for (const e of this.entries.values()) {
      if (e.n === 0) continue;
      this.counter().inc(e.labels, e.n);
      e.n = 0;
    }
  }
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Metrics {
  readonly registry = new Registry();

  readonly requests: Counter<'route' | 'status'> = new Counter({
    name: 'mds_http_requests_total',
    help: 'HTTP responses by route template and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
    collect: () => this.requestTallies.flush(),
  });
  readonly requestTallies = new Tallies(() => this.requests);

  readonly duration = new Histogram({
    name: 'mds_http_request_duration_seconds',
    help: 'Time from request to response, by route template and status',
    labelNames: ['route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly limiterDecisions: Counter<'decision'> = new Counter({
    name: 'mds_limiter_decisions_total',
    help: 'Limiter outcomes: allowed, rate_limited, quota_exceeded, unavailable',
    labelNames: ['decision'] as const,
    registers: [this.registry],
    collect: () => this.decisionTallies.flush(),
  });
  readonly decisionTallies = new Tallies(() => this.limiterDecisions);

  readonly limiterLatency = new Histogram({
    name: 'mds_limiter_duration_seconds',
    help: 'Redis check-and-consume round trips, one per batch of requests (a tick); the embedded limiter has none',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly storeLatency = new Histogram({
    name: 'mds_store_operation_duration_seconds',
    help: 'Store operation latency by operation',
    labelNames: ['operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly cache: Counter<'cache' | 'result'> = new Counter({
    name: 'mds_cache_lookups_total',
    help: 'Cache lookups by cache and result (hit, miss); the ratio is hit / (hit + miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
    collect: () => this.cacheTallies.flush(),
  });
  readonly cacheTallies = new Tallies(() => this.cache);

  readonly usageFlushLag = new Histogram({
    name: 'mds_usage_flush_lag_seconds',
    help: 'Time from the first unit of a usage batch to its commit',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'mds_' });
  }
}

/** Wraps every Store method with a latency observation; the interface is unchanged. */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'constructor') return value;
      const operation = String(prop);
      return (...args: unknown[]) => {
        const end = metrics.storeLatency.startTimer({ operation });
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) {
          return result.then(
            (v) => {
              end({ outcome: 'ok' });
              return v;
            },
            (err: unknown) => {
              end({ outcome: 'error' });
              throw err;
            },
          );
        }
        end({ outcome: 'ok' });
        return result;
      };
    },
  });
}
