/**
 * Durable usage by group commit. Every consumed unit is added to the batch of
 * the current tick; one transaction writes the whole batch (the months, and
 * the same units by key and UTC day) and every request in it is answered only
 * after that commit. A crash therefore loses no unit that was answered, and
 * the cost of the write is shared by the batch (decisions §5).
 *
 * A commit that fails after it was sent may still have been applied (its reply
 * was lost). Each batch carries an id written in its transaction; the store is
 * asked about it before the requests are answered: applied, they are answered
 * as consumed; not applied, they get a 503 and their units go back. If no
 * answer comes within ANSWER_DEADLINE_MS they get the 503 anyway, and when the
 * answer does come, an applied batch's units are given back in the store, so
 * the store never counts a unit that was answered 503 (docs/decisions.md, 59).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Store, UsageIncrement } from '../storage/store.js';
import { type DailyIncrement, wasNotSent } from '../storage/usage-records.js';
import { ANSWER_DEADLINE_MS, askOutcome, within } from './batch-outcome.js';
import { type Added, add, addAll, type Batch, byText, newBatch, type Tally } from './usage-tally.js';

/** Pause before a failed give-back is tried again when no other commit carries it. */
const RETRY_MS = 1_000;

export class UsageRecorder {
  private pending: Tally = new Map();
  /** Where the last unit recorded went in `pending`. */
  private lastAdded: Added | null = null;
  /**
   * Units given back (refunds). Unlike consumption, a give-back whose commit
   * fails is not dropped: the request it belongs to was already answered with
   * an error, so the unit must come off the count eventually. It stays here and
   * rides along with every later commit until one succeeds.
   */
  private refunds: Tally = new Map();
  private refundBatch: Batch | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private batch: Batch | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Failed commits whose outcome is being asked, until it is known and acted on. */
  private readonly asking = new Set<Promise<unknown>>();
  private scheduled = false;
  private firstAt = 0;
  /** Batch ids: this recorder's random prefix and a sequence. */
  private readonly instance = randomBytes(8).toString('hex');
  private seq = 0;

  constructor(
    private readonly store: Pick<Store, 'dialect' | 'usage'>,
    private readonly now: () => number = Date.now,
    /** Told how long the oldest unit of each committed batch waited. */
    private readonly onFlush?: (lagMs: number) => void,
    /**
     * Batches committing at once. On PostgreSQL a commit waits for its WAL flush;
     * a second one in flight has its statement run and waiting by the time the
     * first is flushed. More do not flush together: a grant's batches update one
     * row, so each waits for the one before it to commit, and every waiter
     * shrinks the batches (measured, docs/performance-notes.md: 4 in flight served about a fifth fewer
     * requests than 2 with PostgreSQL + Redis). SQLite commits synchronously:
     * one is enough.
     */
    private readonly maxInFlight = store.dialect === 'postgres' ? 2 : 1,
    /** How long requests wait for the store's answer about a failed commit. */
    private readonly answerDeadlineMs = ANSWER_DEADLINE_MS,
  ) {}

  /**
   * Resolves once the unit is committed; rejects if it was not (nothing is
   * counted). `day` is the UTC day of the decision (`YYYY-MM-DD`), in `period`;
   * `keyId` the key that spent it. Every unit of a batch gets the same promise.
   */
  record(grantId: string, period: string, day: string, keyId: string, count = 1): Promise<void> {
    return this.added(grantId, period, day, keyId, count).done;
  }

  private added(grantId: string, period: string, day: string, keyId: string, count: number): Batch {
    if (this.pending.size === 0) this.firstAt = performance.now();
    const last = this.lastAdded;
    // The same grant, month, day and key as the unit before (a client's run of requests):
    // its counts, without four map lookups.
    if (
      last !== null &&
      last.daily.keyId === keyId &&
      last.daily.grantId === grantId &&
      last.daily.day === day &&
      last.period === period
    ) {
      last.month.count += count;
      last.daily.count += count;
    } else this.lastAdded = add(this.pending, grantId, period, day, keyId, count);
    this.batch ??= newBatch();
    this.schedule();
    return this.batch;
  }

  /**
   * Takes `count` units off a grant's month and the key's day. Resolves once
   * that is committed; rejects if this attempt failed, but the give-back stays
   * queued and is retried with every later commit (and at `flush`) until it is.
   */
  giveBack(grantId: string, period: string, day: string, keyId: string, count = 1): Promise<void> {
    add(this.refunds, grantId, period, day, keyId, -count);
    this.refundBatch ??= newBatch();
    this.schedule();
    return this.refundBatch.done;
  }

  /**
   * An answer about a failed commit made elsewhere (the store limiter's own
   * transaction) whose handling may still give units back here: `flush` waits
   * for it as for the answers about this recorder's commits, up to the same
   * deadline, then writes the give-backs it queued (docs/decisions.md, 59).
   */
  awaitOutcome(handled: Promise<unknown>): void {
    const settled = handled.then(
      () => {},
      () => {},
    );
    this.asking.add(settled);
    void settled.finally(() => this.asking.delete(settled));
  }

  /** Give-backs not yet committed (a gauge for operators, and for tests). */
  get refundsPending(): number {
    let n = 0;
    for (const periods of this.refunds.values()) for (const m of periods.values()) n -= m.month.count;
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
    const consumed = this.pending;
    const refunds = this.refunds;
    // Most ticks have no give-back: their tally is the batch as it is, not a copy.
    let merged = consumed;
    if (refunds.size > 0) {
      merged = new Map();
      addAll(merged, consumed);
      addAll(merged, refunds);
    }
    const months: UsageIncrement[] = [];
    const daily: DailyIncrement[] = [];
    for (const periods of merged.values())
      for (const m of periods.values()) {
        months.push(m.month);
        for (const keys of m.days.values()) for (const d of keys.values()) daily.push(d);
      }
    // A fixed row order: overlapping commits then lock rows in the same order and cannot deadlock.
    months.sort((a, b) => byText(a.grantId, b.grantId) || byText(a.period, b.period));
    daily.sort((a, b) => byText(a.grantId, b.grantId) || byText(a.day, b.day) || byText(a.keyId, b.keyId));
    const waiting = this.batch;
    const waitingRefunds = this.refundBatch;
    const firstAt = this.firstAt;
    this.pending = new Map();
    this.lastAdded = null;
    this.refunds = new Map();
    this.batch = null;
    this.refundBatch = null;
    const batchId = `${this.instance}.${++this.seq}`;
    const sentAt = performance.now();
    const commit = this.store.usage.addUsage(months, this.now(), { batchId, daily }).then(
      () => {
        if (waiting) this.onFlush?.(performance.now() - firstAt);
        waiting?.resolve();
        waitingRefunds?.resolve();
      },
      (err: unknown) => {
        const notApplied = () => {
          waiting?.reject(err);
          // Consumption that failed was never answered with success: it is dropped (its
          // requests get a 503). Give-backs go back in the queue for the next commit.
          addAll(this.refunds, refunds);
          waitingRefunds?.reject(err);
          this.retryLater();
        };
        if (wasNotSent(err)) return notApplied();
        this.askAbout(batchId, sentAt, consumed, err, waiting, waitingRefunds, notApplied);
      },
    );
    this.inFlight.add(commit);
    void commit.finally(() => {
      this.inFlight.delete(commit);
      // Give-backs that just failed (queued without a batch) wait for retryLater.
      if (this.pending.size > 0 || this.refundBatch !== null) this.schedule();
    });
  }

  /**
   * A sent commit failed: was it applied? The requests wait for the answer up
   * to the deadline; an answer after it is still acted on.
   */
  private askAbout(
    batchId: string,
    sentAt: number,
    consumed: Tally,
    err: unknown,
    waiting: Batch | null,
    waitingRefunds: Batch | null,
    notApplied: () => void,
  ): void {
    const answer = askOutcome(this.store.usage, batchId, this.now, sentAt);
    let answered = false;
    void within(answer, this.answerDeadlineMs, 'late' as const).then(
      (outcome) => {
        if (outcome !== 'late') return;
        answered = true;
        waiting?.reject(err);
        waitingRefunds?.reject(err);
      },
      () => {},
    );
    const acted = answer.then(
      (outcome) => {
        // Not applied (and now never will be): as any failure. Rejecting again after the deadline is a no-op.
        if (!outcome.applied) return notApplied();
        if (!answered) {
          waiting?.resolve();
          waitingRefunds?.resolve();
          return;
        }
        // Applied, but its requests were answered 503: their units come off again.
        addAll(this.refunds, consumed, -1);
        this.refundBatch ??= newBatch();
        this.schedule();
      },
      () => {
        // No answer for good (USAGE_LOOKUP_GIVE_UP_MS): whatever that batch held stays as it is.
        if (!answered) {
          waiting?.reject(err);
          waitingRefunds?.reject(err);
        }
      },
    );
    this.asking.add(acted);
    void acted.finally(() => this.asking.delete(acted));
  }

  /**
   * Writes everything recorded so far and waits for every commit, and for the
   * answers about failed ones up to ANSWER_DEADLINE_MS (a store that does not
   * answer must not hold a shutdown). Safe at any time.
   */
  async flush(): Promise<void> {
    this.commitPending();
    const until = performance.now() + this.answerDeadlineMs;
    while (this.inFlight.size > 0 || this.asking.size > 0) {
      const left = until - performance.now();
      if (this.inFlight.size === 0 && left <= 0) break;
      await Promise.all([...this.inFlight, within(Promise.all(this.asking), Math.max(0, left), null)]);
      // Units recorded meanwhile, and give-backs of a batch found applied late, are
      // written too; give-backs that failed again stay queued (no loop here).
      if (this.pending.size > 0 || this.refundBatch !== null) this.commitPending();
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
