/**
 * The limiter of N instances on PostgreSQL without Redis (docs/deployment.md). Counting
 * in each process, as the embedded default does, would let every instance
 * through its own full window: two instances served 20 requests of a grant
 * limited to 10. Here the store decides: each tick's requests are grouped by
 * grant and one statement checks and consumes them against the durable
 * counts (Store.consumeUsage: on PostgreSQL one function call, one round
 * trip), locking the grant's rows so that instances take turns. That commit is also the durable usage record, so a request is still
 * answered only once its unit is committed, as with every other limiter.
 *
 * Windows are named by the instances' clocks, but the stored window never
 * moves backwards: an instance whose clock is behind counts in the window
 * another instance already opened. Keep the instances' clocks in sync (NTP),
 * as the Redis limiter does not need (it takes Redis's time).
 */

import { randomBytes } from 'node:crypto';
import { MINUTE_MS, minuteStart, monthPeriod, utcDay } from '../domain/dates.js';
import type { ConsumeOutcome, ConsumeRequest, Store } from '../storage/store.js';
import { wasNotSent } from '../storage/usage-records.js';
import { ANSWER_DEADLINE_MS, askOutcome, within } from './batch-outcome.js';
import {
  allowedAt,
  type GrantLimits,
  type LimitDecision,
  type Limiter,
  LimiterUnavailableError,
  type LimitState,
  limitState,
  refusedAt,
  rethrowLimiterFailure,
} from './limiter.js';
import type { UsageRecorder } from './usage-recorder.js';

/** A request waiting for its batch: settled once. */
interface Waiter {
  keyId: string;
  resolve: (decision: LimitDecision) => void;
  reject: (err: LimiterUnavailableError) => void;
}

interface Group {
  grant: GrantLimits;
  waiting: Waiter[];
}

/** Grants per transaction: bounds how long one commit holds its row locks. */
const MAX_BATCH = 256;
/**
 * Transactions in flight. A grant's transactions queue on its row locks, so
 * more in flight would only shrink the batches and take pool connections that
 * reads need (the same reasoning, and measurement, as UsageRecorder's two).
 */
const MAX_IN_FLIGHT = 2;

export class StoreLimiter implements Limiter {
  readonly kind = 'store' as const;
  private queue = new Map<string, Group>();
  private queueNow = 0;
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Batch ids: this limiter's random prefix and a sequence. */
  private readonly instance = randomBytes(8).toString('hex');
  private seq = 0;

  constructor(
    private readonly store: Pick<Store, 'usage' | 'ping'>,
    /** Carries give-backs (refunds) durably; consumption is committed here directly. */
    private readonly recorder: UsageRecorder,
  ) {}

  /** Queues the request in its tick's batch; settles when the batch is decided. */
  consume(grant: GrantLimits, now: number, keyId = ''): Promise<LimitDecision> {
    return new Promise((resolve, reject) => this.enqueue(grant, now, { keyId, resolve, reject }));
  }

  private enqueue(grant: GrantLimits, now: number, waiter: Waiter): void {
    let group = this.queue.get(grant.id);
    if (!group) {
      if (this.queue.size === 0) {
        this.queueNow = now;
        this.schedule();
      } else if (this.queue.size >= MAX_BATCH && this.inFlight.size < MAX_IN_FLIGHT) this.sendBatch();
      group = { grant, waiting: [] };
      this.queue.set(grant.id, group);
    }
    group.waiting.push(waiter);
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight.size >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sendBatch();
    });
  }

  private sendBatch(): void {
    if (this.queue.size === 0) return;
    const groups = [...this.queue.values()];
    // One instant for the batch: its first request's (the others came after it,
    // within a tick or while the transactions before it were committing).
    const now = this.queueNow;
    this.queue = new Map();
    const window = minuteStart(now);
    const period = monthPeriod(now).key;
    const requests: ConsumeRequest[] = groups.map((g) => ({
      grantId: g.grant.id,
      period,
      window,
      requestsPerMinute: g.grant.requestsPerMinute,
      monthlyRequestLimit: g.grant.monthlyRequestLimit,
      count: g.waiting.length,
      keyIds: g.waiting.map((w) => w.keyId),
    }));
    const batchId = `${this.instance}.${++this.seq}`;
    const sentAt = performance.now();
    const done = this.store.usage.consumeUsage(requests, now, batchId).then(
      (outcomes) => this.settle(groups, outcomes, now),
      (err: unknown) => {
        const fail = () => {
          const unavailable = new LimiterUnavailableError(err);
          for (const g of groups) for (const w of g.waiting) w.reject(unavailable);
        };
        // Never sent: nothing was committed, so nothing was counted.
        if (wasNotSent(err)) return fail();
        // Sent, and its reply lost: the store says whether it was applied, and
        // how each grant's requests were decided (docs/decisions.md, 59).
        const answer = askOutcome(this.store.usage, batchId, Date.now, sentAt);
        const acted = within(answer, ANSWER_DEADLINE_MS, 'late' as const).then((outcome) => {
          if (outcome !== 'late' && outcome.applied && outcome.detail !== null) {
            return this.settle(groups, JSON.parse(outcome.detail) as ConsumeOutcome[], now);
          }
          fail();
          if (outcome !== 'late') return;
          // Answered 503 before the store could say: if it was applied, the units come off again.
          return answer.then(
            (late) => {
              if (late.applied && late.detail !== null)
                this.giveBackAll(groups, JSON.parse(late.detail) as ConsumeOutcome[], period, now);
            },
            () => {},
          );
        }, fail);
        // Until the answer is acted on, the recorder's flush (a shutdown's, a test's)
        // waits for it, boundedly: a late give-back is then written, not lost.
        this.recorder.awaitOutcome(acted);
      },
    );
    this.inFlight.add(done);
    void done.finally(() => {
      this.inFlight.delete(done);
      // What queued up meanwhile goes as the next batch, however many requests it holds.
      if (this.queue.size > 0) this.schedule();
    });
  }

  /** Each grant's requests answered as the store decided them. */
  private settle(groups: readonly Group[], outcomes: readonly ConsumeOutcome[], now: number): void {
    for (let j = 0; j < groups.length; j++) {
      const { grant, waiting } = groups[j]!;
      const o = outcomes[j]!;
      // The window counted may be a later one another instance opened.
      const at = Math.max(now, o.window);
      const mAfter = o.minuteUsed + o.allowed;
      for (let i = 0; i < o.allowed; i++)
        waiting[i]!.resolve(allowedAt(grant, at, o.minuteUsed + i + 1, o.monthUsed + i + 1));
      if (o.allowed < waiting.length) {
        const refusal = refusedAt(grant, at, mAfter, o.monthUsed + o.allowed, o.window + MINUTE_MS);
        for (let i = o.allowed; i < waiting.length; i++) waiting[i]!.resolve(refusal);
      }
    }
  }

  /** A batch applied after its requests were answered 503: every unit it took goes back. */
  private giveBackAll(
    groups: readonly Group[],
    outcomes: readonly ConsumeOutcome[],
    period: string,
    now: number,
  ): void {
    const day = utcDay(now);
    for (let j = 0; j < groups.length; j++) {
      const { grant, waiting } = groups[j]!;
      const o = outcomes[j]!;
      if (o.allowed === 0) continue;
      for (let i = 0; i < o.allowed; i++)
        this.recorder.giveBack(grant.id, period, day, waiting[i]!.keyId).catch(() => {});
      this.store.usage.releaseMinute(grant.id, o.window, o.allowed).catch(() => {});
    }
  }

  async peek(grant: GrantLimits, now: number): Promise<LimitState> {
    const period = monthPeriod(now).key;
    try {
      const [minute, month] = await Promise.all([
        this.store.usage.getMinuteUsage(grant.id, minuteStart(now)),
        this.store.usage.getUsage(grant.id, period),
      ]);
      return limitState(grant, now, minute, month);
    } catch (err) {
      throw new LimiterUnavailableError(err);
    }
  }

  async refund(grant: GrantLimits, consumed: LimitState, keyId = ''): Promise<void> {
    const durable = this.recorder.giveBack(grant.id, consumed.period, utcDay(consumed.at), keyId);
    // The minute unit is worth less than a round trip's wait: best effort.
    await this.store.usage.releaseMinute(grant.id, consumed.window, 1).catch(() => {});
    await durable.catch(rethrowLimiterFailure);
  }

  async ping(): Promise<void> {
    await this.store.ping().catch(rethrowLimiterFailure);
  }

  async close(): Promise<void> {
    this.sendBatch();
    await Promise.all(this.inFlight);
    await this.recorder.flush().catch(() => {});
  }
}
