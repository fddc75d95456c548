/**
 * Durable monthly usage by group commit. Every consumed unit is added to the
 * batch of the current tick; one transaction writes the whole batch and every
 * request in it is answered only after that commit. A crash therefore loses no
 * unit that was answered, and the cost of the write is shared by the batch
 * (issue #5: one transaction per request costs as much as the request).
 */
import type { Store, UsageIncrement } from '../storage/store.js';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class UsageRecorder {
  private pending = new Map<string, UsageIncrement>();
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | null = null;
  private scheduled = false;
  private firstAt = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    /** Told how long the oldest unit of each committed batch waited. */
    private readonly onFlush?: (lagMs: number) => void,
  ) {}

  /** Resolves once the unit is committed; rejects if the commit failed (nothing was counted). */
  record(grantId: string, period: string, count = 1): Promise<void> {
    if (this.pending.size === 0) this.firstAt = performance.now();
    const key = `${grantId}\u0000${period}`;
    const entry = this.pending.get(key);
    if (entry) entry.count += count;
    else this.pending.set(key, { grantId, period, count });
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.schedule();
    return done;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Writes everything recorded so far. Safe to call at any time (shutdown). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    const waiters = this.waiters;
    const firstAt = this.firstAt;
    this.pending = new Map();
    this.waiters = [];
    this.flushing = this.store.addUsage(batch, this.now()).then(
      () => {
        this.onFlush?.(performance.now() - firstAt);
        for (const w of waiters) w.resolve();
      },
      (err: unknown) => {
        for (const w of waiters) w.reject(err);
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
      if (this.pending.size > 0) this.schedule();
    }
  }
}
