/**
 * Prometheus metrics, served on the admin port only (server.ts),
 * never on the public one. Label values are route templates, statuses and
 * fixed words: never a key, a grant id or anything a client chose.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
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

/** One labelled series of a `TallyHistogram`. */
export interface Observer {
  observe(value: number): void;
}

/**
 * The request-latency histogram, observed on every request. prom-client's
 * `observe()` validates and hashes its labels on each call: 2.5 % of a cached
 * request's CPU time in the profile. Here each (route, status) series
 * is a plain array of bucket counts, looked up once, and the exposition (the
 * same `_bucket`, `_sum` and `_count` lines) is built when the metrics are read.
 */
class TallyHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Record<L, string>; counts: number[]; sum: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series for these label values (look it up once, keep it). */
  for(labels: Record<L, string>): Observer {
    const key = JSON.stringify(labels);
    let entry = this.series.get(key);
    if (!entry) {
      // One count per bucket, not cumulative; the last is +Inf.
      entry = { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0 };
      this.series.set(key, entry);
    }
    const { buckets } = this;
    const e = entry;
    return {
      observe(value: number) {
        let i = 0;
        while (i < buckets.length && value > buckets[i]!) i++;
        e.counts[i]!++;
        e.sum += value;
      },
    };
  }

  /** What prom-client's registry reads: the lines and label sets its own Histogram's `get()` gives. */
  get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { labels, counts, sum } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i]!;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      const count = cumulative + counts[this.buckets.length]!;
      values.push(
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket` },
        { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}

/** One family's freshness as the gauges read it (runtime/freshness.ts gives it). */
export interface FreshnessSample {
  ageSeconds: number | null;
  thresholdSeconds: number;
  /** Not published (MDS_PUBLISHED_FAMILIES): no series at all, so that no rule alerts on it. */
  published: boolean;
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

  readonly duration = new TallyHistogram<'route' | 'status'>(
    'mds_http_request_duration_seconds',
    'Time from request to response, by route template and status',
    LATENCY_BUCKETS,
    this.registry,
  );

  readonly limiterDecisions: Counter<'decision'> = new Counter({
    name: 'mds_limiter_decisions_total',
    help: 'Limiter outcomes: allowed, rate_limited, quota_exceeded, unavailable',
    labelNames: ['decision'] as const,
    registers: [this.registry],
    collect: () => this.decisionTallies.flush(),
  });
  readonly decisionTallies = new Tallies(() => this.limiterDecisions);

  /** Observed once per tick under load: a tally histogram, for the reason given at `storeLatency`. */
  readonly limiterLatency = new TallyHistogram<never>(
    'mds_limiter_duration_seconds',
    'Redis check-and-consume round trips, one per batch of requests (a tick); the embedded limiter has none',
    LATENCY_BUCKETS,
    this.registry,
  ).for({});

  /**
   * Observed on every store call, among them the usage commit of every tick that
   * served a request: prom-client's `startTimer` and labelled `observe` cost
   * about 10 us per commit, 0.2 us of each /v1/rates/latest request under wrk
   * (profile, 2026-11-25), so this is a tally histogram like `duration`.
   */
  readonly storeLatency = new TallyHistogram<'operation' | 'outcome'>(
    'mds_store_operation_duration_seconds',
    'Store operation latency by operation',
    LATENCY_BUCKETS,
    this.registry,
  );

  readonly cache: Counter<'cache' | 'result'> = new Counter({
    name: 'mds_cache_lookups_total',
    help: 'Cache lookups by cache and result (hit, miss); the ratio is hit / (hit + miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
    collect: () => this.cacheTallies.flush(),
  });
  readonly cacheTallies = new Tallies(() => this.cache);

  /** Observed on every usage commit: a tally histogram, for the reason given at `storeLatency`. */
  readonly usageFlushLag = new TallyHistogram<never>(
    'mds_usage_flush_lag_seconds',
    'Time from the first unit of a usage batch to its commit',
    LATENCY_BUCKETS,
    this.registry,
  ).for({});

  /** What the freshness gauges read when scraped; none until `readFreshness`. */
  private freshness: () => Record<string, FreshnessSample> = () => ({});

  /**
   * Computed at scrape time from the snapshot and the clock (docs/decisions.md
   * 53). A family without any observation has no series here, rather than NaN,
   * which no comparison alerts on: its threshold series stays, and
   * docs/operations.md alerts on a threshold without an age. A family the
   * operator does not publish has neither (docs/decisions.md 99).
   */
  readonly dataAge: Gauge<'family'> = new Gauge({
    name: 'mds_data_age_seconds',
    help: 'Age of the newest observation of each family (parallel, official, transfer, gold), by this instance’s clock',
    labelNames: ['family'] as const,
    registers: [this.registry],
    collect: () => {
      this.dataAge.reset();
      for (const [family, { ageSeconds, published }] of Object.entries(this.freshness()))
        if (published && ageSeconds !== null) this.dataAge.set({ family }, ageSeconds);
    },
  });

  readonly staleThreshold: Gauge<'family'> = new Gauge({
    name: 'mds_data_stale_threshold_seconds',
    help: 'Age past which a family’s newest observation is stale (MDS_STALE_AFTER)',
    labelNames: ['family'] as const,
    registers: [this.registry],
    collect: () => {
      this.staleThreshold.reset();
      for (const [family, { thresholdSeconds, published }] of Object.entries(this.freshness()))
        if (published) this.staleThreshold.set({ family }, thresholdSeconds);
    },
  });

  /** Where the freshness gauges read from: the instance's own report (runtime/assemble.ts). */
  readFreshness(read: () => Record<string, FreshnessSample>): void {
    this.freshness = read;
  }

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'mds_' });
  }
}

/**
 * Wraps every method of the Store and of its repositories with a latency
 * observation, labelled with the method's name; the interface is unchanged.
 * A method's wrapper and its two series are made once per function, not per call.
 */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  type Method = (...args: unknown[]) => unknown;
  const wrappers = new WeakMap<Method, Method>();
  const wrap = (method: Method, target: object, operation: string): Method => {
    const ok = metrics.storeLatency.for({ operation, outcome: 'ok' });
    const error = metrics.storeLatency.for({ operation, outcome: 'error' });
    return (...args: unknown[]) => {
      const started = performance.now();
      const result = method.apply(target, args);
      if (result instanceof Promise) {
        return result.then(
          (v: unknown) => {
            ok.observe((performance.now() - started) / 1000);
            return v;
          },
          (err: unknown) => {
            error.observe((performance.now() - started) / 1000);
            throw err;
          },
        );
      }
      ok.observe((performance.now() - started) / 1000);
      return result;
    };
  };
  const instrumented = <T extends object>(target: T): T => {
    const repositories = new Map<PropertyKey, object>();
    return new Proxy(target, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (target === store && REPOSITORIES.has(prop) && typeof value === 'object' && value !== null) {
          let repository = repositories.get(prop);
          if (repository === undefined) {
            repository = instrumented(value);
            repositories.set(prop, repository);
          }
          return repository;
        }
        if (typeof value !== 'function' || prop === 'constructor') return value;
        // Keyed by the function, so a method replaced on the store (a test's spy) gets its own wrapper.
        const method = value as Method;
        let wrapper = wrappers.get(method);
        if (wrapper === undefined) {
          wrapper = wrap(method, target, String(prop));
          wrappers.set(method, wrapper);
        }
        return wrapper;
      },
    });
  };
  return instrumented(store);
}

const REPOSITORIES = new Set<PropertyKey>(['market', 'imports', 'access', 'usage', 'operator', 'webhooks']);
