/**
 * Durable monthly usage by group commit. Every consumed unit is added to the
 * batch of the current tick; one transaction writes the whole batch and every
 * request in it is answered only after that commit. A crash therefore loses no
 * unit that was answered, and the cost of the write is shared by the batch
 * (issue #5: one transaction per request costs as much as the request).
 */
import type { Store, UsageIncrement, UsageStore } from '../storage/store.js';

/** The batch being filled: one promise shared by every unit in it. */
interface Batch {
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failed batch is reported to every caller through `done`; this keeps the
  // promise itself from counting as an unhandled rejection.
  done.catch(() => {});
  return { done, resolve, reject };
}

/** Pause before a failed give-back is tried again when no other commit carries it. */
const RETRY_MS = 1_000;

export class UsageRecorder {
  /** By grant, then period: both keys are long-lived strings, so no key is built per unit. */
  private pending = new Map<string, Map<string, UsageIncrement>>();
  /**
   * Units given back (refunds), by `grant|period`. Unlike consumption, a
   * give-back whose commit fails is not dropped: the request it belongs to was
   * already answered with an error, so the unit must come off the count
   * eventually. It stays here and rides along with every later commit until
   * one succeeds (issue #13).
   */
  private refunds = new Map<string, UsageIncrement>();
  private refundBatch: Batch | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private batch: Batch | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private scheduled = false;
  private firstAt = 0;

  constructor(
    private readonly store: UsageStore & Pick<Store, 'dialect'>,
    private readonly now: () => number = Date.now,
    /** Told how long the oldest unit of each committed batch waited. */
    private readonly onFlush?: (lagMs: number) => void,
    /**
     * Batches committing at once. On PostgreSQL a commit waits for its WAL flush;
     * a second one in flight has its statement run and waiting by the time the
     * first is flushed. More do not flush together: a grant's batches update one
     * row, so each waits for the one before it to commit, and every waiter
     * shrinks the batches (issue #5: 4 in flight served about a fifth fewer
     * requests than 2 with PostgreSQL + Redis). SQLite commits synchronously:
     * one is enough.
     */
    private readonly maxInFlight = store.dialect === 'postgres' ? 2 : 1,
  ) {}

  /**
   * Resolves once the unit is committed; rejects if the commit failed (nothing
   * was counted). Every unit of a batch gets the same promise: no allocation per unit.
   */
  record(grantId: string, period: string, count = 1): Promise<void> {
    if (this.pending.size === 0) this.firstAt = performance.now();
    let periods = this.pending.get(grantId);
    if (!periods) {
      periods = new Map();
      this.pending.set(grantId, periods);
    }
    const entry = periods.get(period);
    if (entry) entry.count += count;
    else periods.set(period, { grantId, period, count });
    this.batch ??= newBatch();
    this.schedule();
    return this.batch.done;
  }

  /**
   * Takes `count` units off a grant's month. Resolves once that is committed;
   * rejects if this attempt failed, but the give-back stays queued and is
   * retried with every later commit (and at `flush`) until it is.
   */
  giveBack(grantId: string, period: string, count = 1): Promise<void> {
    const key = `${grantId}|${period}`;
    const entry = this.refunds.get(key);
    if (entry) entry.count -= count;
    else this.refunds.set(key, { grantId, period, count: -count });
    this.refundBatch ??= newBatch();
    this.schedule();
    return this.refundBatch.done;
  }

  /** Give-backs not yet committed (a gauge for operators, and for tests). */
  get refundsPending(): number {
    let n = 0;
    for (const r of this.refunds.values()) n -= r.count;
    return n;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight.size >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.commitPending();
    });
  }

  /** Starts committing what is pending as one batch. */
  private commitPending(): void {
    if (this.pending.size === 0 && this.refunds.size === 0) return;
    const refunds = [...this.refunds.values()];
    const merged = new Map<string, UsageIncrement>();
    for (const periods of this.pending.values())
      for (const inc of periods.values()) merged.set(`${inc.grantId}|${inc.period}`, { ...inc });
    for (const r of refunds) {
      const key = `${r.grantId}|${r.period}`;
      const inc = merged.get(key);
      if (inc) inc.count += r.count;
      else merged.set(key, { ...r });
    }
    // A fixed row order: overlapping commits then lock rows in the same order and cannot deadlock.
    const batch = [...merged.values()].sort((a, b) =>
      a.grantId === b.grantId ? (a.period < b.period ? -1 : 1) : a.grantId < b.grantId ? -1 : 1,
    );
    const waiting = this.batch;
    const waitingRefunds = this.refundBatch;
    const firstAt = this.firstAt;
    this.pending = new Map();
    this.refunds = new Map();
    this.batch = null;
    this.refundBatch = null;
    const commit = this.store.addUsage(batch, this.now()).then(
      () => {
        if (waiting) this.onFlush?.(performance.now() - firstAt);
        waiting?.resolve();
        waitingRefunds?.resolve();
      },
      (err: unknown) => {
        waiting?.reject(err);
        // Consumption that failed was never answered with success: it is dropped (its
        // requests get a 503). Give-backs go back in the queue for the next commit.
        for (const r of refunds) {
          const key = `${r.grantId}|${r.period}`;
          const queued = this.refunds.get(key);
          if (queued) queued.count += r.count;
          else this.refunds.set(key, r);
        }
        waitingRefunds?.reject(err);
        this.retryLater();
      },
    );
    this.inFlight.add(commit);
    void commit.finally(() => {
      this.inFlight.delete(commit);
      // Give-backs that just failed (queued without a batch) wait for retryLater.
      if (this.pending.size > 0 || this.refundBatch !== null) this.schedule();
    });
  }

  /** Writes everything recorded so far and waits for every commit. Safe at any time (shutdown). */
  async flush(): Promise<void> {
    this.commitPending();
    while (this.inFlight.size > 0) {
      await Promise.all(this.inFlight);
      // Give-backs that failed again are left queued, not retried in a loop here.
      if (this.pending.size > 0) this.commitPending();
    }
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
  }

  /** A failed give-back is retried on the next commit, or after a pause when traffic is idle. */
  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.refunds.size > 0) {
        this.refundBatch ??= newBatch();
        this.schedule();
      }
    }, RETRY_MS);
    this.retryTimer.unref();
  }
}
