/**
 * Prometheus metrics (issue #7), served on the admin port only (server.ts),
 * never on the public one. Label values are route templates, statuses and
 * fixed words: never a key, a grant id or anything a client chose.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Store } from '../storage/store.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'mds_http_requests_total',
    help: 'HTTP responses by route template and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  readonly duration = new Histogram({
    name: 'mds_http_request_duration_seconds',
    help: 'Time from request to response, by route template and status',
    labelNames: ['route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly limiterDecisions = new Counter({
    name: 'mds_limiter_decisions_total',
    help: 'Limiter outcomes: allowed, rate_limited, quota_exceeded, unavailable',
    labelNames: ['decision'] as const,
    registers: [this.registry],
  });

  readonly limiterLatency = new Histogram({
    name: 'mds_limiter_duration_seconds',
    help: 'Check-and-consume time, including the durable usage commit',
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

  readonly cache = new Counter({
    name: 'mds_cache_lookups_total',
    help: 'Cache lookups by cache and result (hit, miss); the ratio is hit / (hit + miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
  });

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
