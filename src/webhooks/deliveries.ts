/**
 * The webhook attempts of one process (docs/decisions.md, 95). Deliveries
 * are claimed as room frees up, each attempt started on its own and recorded
 * when it ends: nothing waits for a batch, and the end of one attempt claims
 * at once what is due next (the same receiver's next delivery, say).
 *
 * Two lanes bound the attempts in flight. Receivers in good standing claim in
 * the first; receivers whose last attempt failed (timed out, refused, not
 * 2xx) only in the second, so any number of failing receivers leaves the
 * healthy ones their room. A receiver that starts hanging is not known yet:
 * its attempt, still unanswered after a quarter of a second, moves to the failing lane
 * when that lane has room, and leaves its slot to the healthy. Per
 * subscription the store hands out one delivery at a time, in order, and a
 * failing receiver's queue waits for its retries: it is backed off alone.
 */
import type { Logger } from 'pino';
import type { Store } from '../storage/store.js';
import type { ClaimedDelivery, ClaimLimits } from '../storage/webhook-records.js';
import { attempt } from './attempt.js';
import { nextAttemptAt } from './schedule.js';
import type { WebhookSettings } from './settings.js';
import { signatureHeaders } from './signing.js';
import { resolveTarget } from './targets.js';

/**
 * An attempt unanswered this long is treated as a failing receiver's, for its
 * slot. At a second, 35 receivers starting to hang together held a healthy
 * one's first deliveries that long (p95 2.4 s, the webhooks bench row); a
 * receiver slower than this only counts against the second lane meanwhile.
 */
const SLOW_AFTER_MS = 250;
/** A host name's resolution, bounded: the attempt's own deadline starts after it. */
const RESOLVE_TIMEOUT_MS = 5_000;

type Lane = keyof ClaimLimits;

export interface DeliveriesOptions {
  store: Store;
  settings: WebhookSettings;
  now: () => number;
  logger?: Logger;
}

export class Deliveries {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly used: ClaimLimits = { healthy: 0, failing: 0 };
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly o: DeliveriesOptions) {}

  /** Claims what the free slots allow and starts those attempts; resolves once they are started. */
  poll(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      try {
        do {
          this.again = false;
          await this.claim();
        } while (this.again && !this.stopped);
      } finally {
        this.claiming = null;
      }
    })();
    return this.claiming;
  }

  /** No more claims; settles when the attempts in flight are recorded (the caller bounds the wait). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([this.claiming, ...this.inFlight]);
  }

  private async claim(): Promise<void> {
    if (this.stopped) return;
    const { lanes, leaseMs } = this.o.settings;
    const free = {
      healthy: Math.max(0, lanes.healthy - this.used.healthy),
      failing: Math.max(0, lanes.failing - this.used.failing),
    };
    if (free.healthy === 0 && free.failing === 0) return;
    const claimed = await this.o.store.webhooks.claimDeliveries(this.o.now(), leaseMs, free);
    for (const d of claimed) this.start(d);
  }

  /** Another claim, as soon as the current one ends: a slot freed, or a queue moved on. */
  private kick(): void {
    if (this.stopped) return;
    this.poll().catch((err: unknown) =>
      this.o.logger?.warn({ err }, 'webhooks: a claim failed; retried at the next poll'),
    );
  }

  private start(d: ClaimedDelivery): void {
    let lane: Lane = d.failing ? 'failing' : 'healthy';
    this.used[lane] += 1;
    const slow =
      lane === 'healthy'
        ? setInterval(() => {
            if (this.used.failing >= this.o.settings.lanes.failing) return;
            clearInterval(slow);
            this.used.healthy -= 1;
            this.used.failing += 1;
            lane = 'failing';
            this.kick();
          }, SLOW_AFTER_MS)
        : undefined;
    slow?.unref();
    const run = this.deliver(d)
      .catch((err: unknown) =>
        // The store away, say: the claim lapses and the attempt is made again.
        this.o.logger?.warn({ err, deliveryId: d.id }, 'webhooks: an attempt was not recorded'),
      )
      .finally(() => {
        clearInterval(slow);
        this.used[lane] -= 1;
        this.inFlight.delete(run);
        this.kick();
      });
    this.inFlight.add(run);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const { store, settings, now } = this.o;
    const n = d.attempts + 1;
    const at = now();
    const url = new URL(d.url);
    const target = await withDeadline(resolveTarget(url, settings.policy), RESOLVE_TIMEOUT_MS, {
      ok: false as const,
      problem: `resolving ${url.hostname} took longer than ${RESOLVE_TIMEOUT_MS} ms`,
    });
    const result = target.ok
      ? await attempt({
          url,
          address: target.address,
          family: target.family,
          // Signed at each attempt: its timestamp is the attempt's (Standard Webhooks).
          headers: signatureHeaders({
            id: d.eventId,
            timestamp: new Date(at),
            payload: d.payload,
            secrets: d.secrets,
          }),
          body: d.payload,
          timeoutMs: settings.attemptTimeoutMs,
        })
      : { ok: false, status: null, durationMs: 0, responsePrefix: '', error: target.problem };
    const ended = now();
    const next = result.ok ? null : nextAttemptAt(settings.delaysMs, n - d.roundStart, ended);
    await store.webhooks.recordAttempt({
      deliveryId: d.id,
      n,
      at,
      statusCode: result.status,
      error: result.error,
      durationMs: result.durationMs,
      responsePrefix: result.responsePrefix,
      delivered: result.ok,
      nextAttemptAt: next,
    });
    if (!result.ok && next === null) {
      this.o.logger?.warn(
        { subscriptionId: d.subscriptionId, deliveryId: d.id, attempts: n },
        'webhooks: a delivery failed its last attempt; the subscription is disabled',
      );
    }
  }
}

/** `work`'s value, or `late` when it has not settled within `ms` (the work is left to finish unheard). */
function withDeadline<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
