/**
 * The webhook worker of a serving process (docs/decisions.md, 68): every
 * `pollMs` it turns durable state into events, then makes the attempts due.
 *
 *   - imports that wrote (their records are the outbox entries of
 *     `data.imported`), and the rate alerts they make true;
 *   - grants at 80 % and 100 % of their month (`usage.threshold`), keys within
 *     7 days of their expiry (`key.expiring`), families turning stale or fresh
 *     (`data.stale`, `data.fresh`): each written once, by a dedupe key or a
 *     compare-and-set of its state, whichever instance sees it first;
 *   - reporters turning flagged (`reporter.flagged`), judged when they quote;
 *   - deliveries due, claimed and attempted by deliveries.ts: one at a time
 *     per subscription, in order, none waiting for another receiver.
 *
 * Events caused by a change of access (a key created or revoked, a grant
 * updated) are written in the change's own transaction (storage/kysely/access.ts):
 * this worker only delivers them. Nothing here runs on a request's path.
 */
import type { Logger } from 'pino';
import { STALE_FAMILIES } from '../config.js';
import type { RateObservation, Source } from '../domain/types.js';
import {
  dataImported,
  freshnessChanged,
  keyExpiring,
  rateAlert,
  reporterFlagged,
  usageThreshold,
} from '../domain/webhook-builders.js';
import type { NewEvent } from '../domain/webhook-events.js';
import {
  type AlertFilter,
  alertHolds,
  alertValue,
  KEY_EXPIRING_NOTICE_MS,
  USAGE_THRESHOLDS,
} from '../domain/webhooks.js';
import type { Freshness } from '../runtime/freshness.js';
import type { Store } from '../storage/store.js';
import { flaggingOf } from '../use-cases/reporter-watch.js';
import { Deliveries } from './deliveries.js';
import type { WebhookSettings } from './settings.js';

const IMPORTS_CURSOR = 'webhooks.imports_cursor';
const staleSetting = (family: string) => `webhooks.stale.${family}`;
const flaggedSetting = (reporterId: string) => `webhooks.flagged.${reporterId}`;
/**
 * Reporters who quoted since this far before the last look are judged again:
 * a quote stored by another instance a moment after its receipt is not missed.
 */
const QUOTES_SLACK_MS = 60_000;
/** At start, the reporters who quoted in the last day are judged again (their settings make it harmless). */
const QUOTES_LOOKBACK_MS = 86_400_000;
/** How long a stopping server waits for the attempts in flight. */
const STOP_PATIENCE_MS = 2_000;

export interface WorkerOptions {
  store: Store;
  freshness: Freshness;
  settings: WebhookSettings;
  now: () => number;
  logger?: Logger;
  /** The one process serving a SQLite file: claims left by a previous run are its own. */
  soleWorker: boolean;
  /**
   * While true, no step starts: an admin import of this process holds the
   * SQLite file's write lock, which a step's write would wait for on the
   * event loop (docs/decisions.md 91). The next poll does the work.
   */
  holdOff?: () => boolean;
}

export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Dedupe keys this process already wrote or saw written: not written again each poll. */
  private readonly seen = new Set<string>();
  /** Each family's state as this process last wrote or read it. */
  private readonly states = new Map<string, string>();
  /** Reporters who quoted after this instant are judged at the next poll. */
  private quotesSince: number | null = null;
  /** Each reporter's newest receipt when this process last judged it. */
  private readonly judgedUpTo = new Map<string, number>();
  private readonly delivery: Deliveries;

  constructor(private readonly o: WorkerOptions) {
    this.delivery = new Deliveries(o);
  }

  async start(): Promise<void> {
    if (this.o.soleWorker) {
      await this.o.store.webhooks
        .releaseDeliveryClaims()
        .catch((err: unknown) =>
          this.o.logger?.warn({ err }, 'webhooks: claims not released; they lapse instead'),
        );
    }
    this.schedule(0);
  }

  /**
   * Stops polling, and waits a moment for the attempts in flight to be
   * recorded. Not for their whole timeout: the server's stop is bounded
   * (docs/decisions.md 60), and an attempt left unrecorded is made again
   * (its claim lapses, or is dropped when a SQLite server starts).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_PATIENCE_MS);
    });
    await Promise.race([Promise.all([this.running, this.delivery.stop()]), patience]);
    clearTimeout(timer);
  }

  /** One pass, for tests and for the loop. */
  async cycle(): Promise<void> {
    const steps: Array<[string, () => Promise<void>]> = [
      ['imports', () => this.imports()],
      ['usage', () => this.usage()],
      ['keys', () => this.expiringKeys()],
      ['freshness', () => this.freshness()],
      ['reporters', () => this.reporters()],
      ['deliveries', () => this.deliveries()],
    ];
    for (const [name, step] of steps) {
      if (this.stopped && name !== 'deliveries') return;
      if (this.o.holdOff?.()) return;
      try {
        await step();
      } catch (err) {
        // The store away, say: the next poll tries again; nothing is lost, all is in the store.
        this.o.logger?.warn({ err, step: name }, 'webhooks: a step failed; retried at the next poll');
      }
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.cycle().finally(() => {
        this.running = null;
        this.schedule(this.o.settings.pollMs);
      });
    }, delay);
    this.timer.unref();
  }

  /** Imports that wrote, since the cursor: data.imported each, then the alerts. */
  private async imports(): Promise<void> {
    const { store, now } = this.o;
    const cursor = await store.setting(IMPORTS_CURSOR);
    if (cursor === undefined) {
      // The first run: events begin with the imports after it, not with the store's history.
      const [newest] = await store.imports.listImports(1);
      await store.webhooks.putSettingIf(IMPORTS_CURSOR, undefined, newest?.id ?? '', [], now());
      return;
    }
    const imports = await store.webhooks.importsAfter(cursor === '' ? null : cursor, 100);
    if (imports.length === 0) return;
    const events = imports.map(dataImported);
    await store.webhooks.emitEvents(events, now());
    await store.webhooks.putSettingIf(IMPORTS_CURSOR, cursor, imports.at(-1)!.id, [], now());
    if (imports.some((i) => i.kind === 'rates')) await this.alerts();
  }

  /** Each rate alert against the latest rates: an event when it turns true, none while it stays so. */
  private async alerts(): Promise<void> {
    const { store, now } = this.o;
    const subscriptions = await store.webhooks.alertSubscriptions();
    if (subscriptions.length === 0) return;
    const latest = new Map<string, RateObservation>();
    for (const r of await store.market.latestRates()) latest.set(`${r.currency} ${r.source}`, r);
    const lookup = (currency: string, source: Source) => latest.get(`${currency} ${source}`);
    for (const s of subscriptions) {
      const filter = s.filter as AlertFilter;
      const reading = alertValue(filter, lookup);
      const holds = reading !== null && alertHolds(filter, reading);
      if (holds === s.alertActive) continue;
      const event = holds && reading ? rateAlert(s.id, s.accountId, filter, reading) : null;
      await store.webhooks.setAlertActive(s.id, holds, event, now());
    }
  }

  private async usage(): Promise<void> {
    const { store, now } = this.o;
    const period = new Date(now()).toISOString().slice(0, 7);
    const events: NewEvent[] = [];
    for (const g of await store.webhooks.usageAtLeast(period, USAGE_THRESHOLDS[0])) {
      for (const threshold of USAGE_THRESHOLDS) {
        if (g.used * 100 < g.limit * threshold) continue;
        const dedupeKey = `usage.threshold:${g.grantId}:${period}:${threshold}`;
        if (this.seen.has(dedupeKey)) continue;
        events.push(usageThreshold(g, period, threshold, dedupeKey));
      }
    }
    await this.emitOnce(events);
  }

  private async expiringKeys(): Promise<void> {
    const { store, now } = this.o;
    const at = now();
    const events: NewEvent[] = [];
    for (const k of await store.webhooks.keysExpiring(at, at + KEY_EXPIRING_NOTICE_MS)) {
      const dedupeKey = `key.expiring:${k.publicId}:${k.expiresAt}`;
      if (this.seen.has(dedupeKey)) continue;
      events.push(keyExpiring(k, dedupeKey));
    }
    await this.emitOnce(events);
  }

  private async emitOnce(events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.o.store.webhooks.emitEvents(events, this.o.now());
    for (const e of events) this.seen.add(e.dedupeKey!);
  }

  /**
   * Each family's turn from fresh to stale and back, as /status judges it. A
   * family not published (docs/decisions.md 99) is not watched: no event, and
   * its last recorded state is left as it was.
   */
  private async freshness(): Promise<void> {
    const { store, now } = this.o;
    const report = this.o.freshness.report();
    for (const family of STALE_FAMILIES) {
      const f = report.families[family];
      if (!f.published) continue;
      const state = f.stale ? 'stale' : 'fresh';
      const name = staleSetting(family);
      // Known unchanged since this process last looked: no read per poll.
      if (this.states.get(name) === state) continue;
      const stored = await store.setting(name);
      if (stored !== state) {
        // First seen: recorded without an event (a turn is what is announced).
        const events = stored === undefined ? [] : [freshnessChanged(family, f)];
        await store.webhooks.putSettingIf(name, stored, state, events, now());
      }
      this.states.set(name, state);
    }
  }

  /**
   * Each reporter that sent a quote since the last look, judged (docs/decisions.md
   * 117): its turn to flagged writes `reporter.flagged` with the compare-and-set of
   * its setting, so one instance writes it, once per flagging; its turn back is
   * recorded without an event.
   */
  private async reporters(): Promise<void> {
    const { store, now } = this.o;
    const at = now();
    const since = this.quotesSince ?? at - QUOTES_LOOKBACK_MS;
    for (const { reporterId: id, lastReceivedAt } of await store.reporters.reportersQuotingSince(since)) {
      // Judged on the same quotes already: nothing new to say.
      if (this.judgedUpTo.get(id) === lastReceivedAt) continue;
      const f = await flaggingOf(store, id);
      const state = f.flagged ? 'flagged' : 'ok';
      const name = flaggedSetting(id);
      const stored = this.states.get(name) === state ? state : await store.setting(name);
      if (stored !== state) {
        const reporter = f.flagged ? await store.reporters.getReporter(id) : undefined;
        const events =
          reporter && f.newestQuoteId
            ? [
                reporterFlagged(
                  { reporterId: id, organisationId: reporter.organisationId, ...f, quoteId: f.newestQuoteId },
                  `reporter.flagged:${id}:${f.newestQuoteId}`,
                ),
              ]
            : [];
        await store.webhooks.putSettingIf(name, stored, state, events, now());
      }
      this.states.set(name, state);
      // Only once its state is written: a failed write is tried again at the next poll.
      this.judgedUpTo.set(id, lastReceivedAt);
    }
    this.quotesSince = at - QUOTES_SLACK_MS;
  }

  private async deliveries(): Promise<void> {
    await this.delivery.poll();
  }
}
