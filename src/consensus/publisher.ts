/**
 * Publication of the street markets' consensus (docs/decisions.md 109): each
 * market is recomputed when a quote for it arrives and by a periodic pass
 * (quotes leaving the window, a deferred move, the heartbeat), and published
 * as an ordinary observation when the rule of decisions 107 says so. Every
 * instance runs this; the store's compare-and-set on the market's version
 * makes one computation the publication and sends the others round again.
 */
import type { Logger } from 'pino';
import {
  type Consensus,
  type ConsensusSettings,
  consensusAt,
  goldOrderHolds,
  publicationDecision,
} from '../domain/consensus.js';
import { PURITIES, type Purity } from '../domain/types.js';
import type { ConsensusPoint, MarketState } from '../storage/reporter-records.js';
import type { Store } from '../storage/store.js';

/** The method's version, kept with every point: recomputation uses the method the point was made with. */
export const METHOD_VERSION = 1;
/** The periodic pass: a deferred move waits at most this long past its minute. */
const PASS_EVERY_MS = 5_000;
/** A computation that lost the compare-and-set starts again from the new state, at most this often. */
const ATTEMPTS = 4;

const isGold = (market: string): market is Purity => (PURITIES as readonly string[]).includes(market);

export interface Recomputed {
  market: string;
  consensus: Consensus;
  /** The point published by this computation, if it was the one. */
  published: ConsensusPoint | null;
}

/** A market's computation under way, and the one queued behind it. */
interface Flight {
  running: Promise<Recomputed>;
  next: Promise<Recomputed> | null;
}

export class ConsensusPublisher {
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<void> | null = null;
  private readonly flights = new Map<string, Flight>();

  constructor(
    private readonly store: Store,
    private readonly settings: ConsensusSettings,
    private readonly now: () => number = Date.now,
    /** This process's snapshot, reloaded after a publication so its own /v1 serves it at once. */
    private readonly published: () => Promise<void> = async () => {},
  ) {}

  /** Where failures are told: the serving process's logger, once it starts the pass. */
  private logger: Logger | undefined;

  /**
   * Called by the reporter API once quotes are stored, and by the pass; resolves once a computation
   * that started after the call has run for each market. Failures are logged, the pass retries.
   */
  async quotesArrived(markets: readonly string[]): Promise<void> {
    await Promise.all(
      [...new Set(markets)].map((market) =>
        this.coalesced(market).catch((err) =>
          this.logger?.warn({ err, market }, 'consensus: a computation failed; the next pass retries it'),
        ),
      ),
    );
  }

  /**
   * One computation of a market at a time in this process: callers arriving while one runs share the
   * next, which starts when it ends and so sees every quote stored before they called. Sixteen
   * requests quoting a market at once cost two computations, not sixteen racing for the
   * compare-and-set (decisions 109).
   */
  private coalesced(market: string): Promise<Recomputed> {
    const flight = this.flights.get(market);
    if (!flight) return this.fly(market);
    flight.next ??= flight.running.then(
      () => this.fly(market),
      () => this.fly(market),
    );
    return flight.next;
  }

  private fly(market: string): Promise<Recomputed> {
    const running = this.recompute(market).then(async (r) => {
      // The watcher reloads it too within its poll: a failure here only waits for that.
      if (r.published) await this.published().catch(() => {});
      return r;
    });
    const flight: Flight = { running, next: null };
    this.flights.set(market, flight);
    const landed = () => {
      if (this.flights.get(market) === flight) this.flights.delete(market);
    };
    flight.running.then(landed, landed);
    return flight.running;
  }

  /** Every market quoted within the window or already known, recomputed once. */
  async pass(): Promise<void> {
    const now = this.now();
    const markets = await this.store.consensus.activeMarkets(now - this.settings.windowMs);
    await this.quotesArrived(markets);
  }

  start(logger?: Logger): void {
    this.logger = logger;
    if (this.timer) return;
    this.timer = setInterval(() => {
      // One pass at a time: a slow store never stacks them up.
      this.passing ??= this.pass()
        .catch((err) => this.logger?.warn({ err }, 'consensus: a pass failed; the next one retries'))
        .finally(() => {
          this.passing = null;
        });
    }, PASS_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.passing;
  }

  /** The consensus of `market` now, published if the rule says so and no other computation got there first. */
  async recompute(market: string): Promise<Recomputed> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(market, this.now());
      if (outcome || attempt >= ATTEMPTS) {
        return outcome ?? { market, consensus: await this.consensusOf(market, this.now()), published: null };
      }
    }
  }

  /** The consensus at `at` from the stored quotes and the reporters as they were then. */
  async consensusOf(market: string, at: number): Promise<Consensus> {
    const [quotes, states] = await Promise.all([
      this.store.reporters.latestQuotes(market, at - this.settings.windowMs, at),
      this.store.reporters.reporterStatesAt(at),
    ]);
    const active = new Set(states.filter((s) => s.status === 'active').map((s) => s.reporterId));
    return consensusAt(quotes, active, at, this.settings);
  }

  /** One computation; null when it lost the compare-and-set. */
  private async attempt(market: string, now: number): Promise<Recomputed | null> {
    const state = await this.store.consensus.marketState(market);
    const consensus = await this.consensusOf(market, now);
    const last = state?.last ?? null;
    const quorumLost = (state?.quorumLost ?? false) || (consensus.state !== 'ok' && last !== null);
    const decision = publicationDecision(consensus, last, state?.quorumLost ?? false, now);
    const version = state?.version ?? 0;
    const base = { market, state: consensus.state, computedAt: now };

    if (decision.publish && consensus.buy !== null && consensus.sell !== null) {
      const held = isGold(market) ? await this.goldOrderProblem(market, consensus) : null;
      if (held === null) {
        // Instants only move forward, whatever another instance's clock said.
        const at = Math.max(now, (last?.at ?? 0) + 1);
        const point = pointOf(market, at, consensus);
        const next = {
          ...base,
          quorumLost: false,
          last: { at, buy: point.buy, sell: point.sell },
          retryAt: null,
          heldReason: null,
        };
        if (!(await this.store.consensus.publish(isGold(market) ? 'gold' : 'rates', point, next, version)))
          return null;
        return { market, consensus, published: point };
      }
      return this.save(state, { ...base, quorumLost, last, retryAt: null, heldReason: held }, consensus);
    }
    const retryAt = decision.publish ? null : decision.retryAt;
    return this.save(state, { ...base, quorumLost, last, retryAt, heldReason: null }, consensus);
  }

  /** Writes the state only when something but the computation's time changed: a quote costs no write otherwise. */
  private async save(
    state: MarketState | undefined,
    next: Omit<MarketState, 'version'>,
    consensus: Consensus,
  ): Promise<Recomputed | null> {
    const same =
      state !== undefined &&
      state.state === next.state &&
      state.quorumLost === next.quorumLost &&
      state.retryAt === next.retryAt &&
      state.heldReason === next.heldReason;
    if (!same && !(await this.store.consensus.saveState(next, state?.version ?? 0))) return null;
    return { market: next.market, consensus, published: null };
  }

  /**
   * 18K < 21K < 24K against what the other purities serve at this instant:
   * a reason to hold the publication, or null.
   */
  private async goldOrderProblem(purity: Purity, consensus: Consensus): Promise<string | null> {
    const served = await this.store.market.latestGold();
    const values = { '18': null, '21': null, '24': null } as Record<
      '18' | '21' | '24',
      { buy: number; sell: number } | null
    >;
    for (const g of served) values[g.purity.slice(0, 2) as '18' | '21' | '24'] = { buy: g.buy, sell: g.sell };
    values[purity.slice(0, 2) as '18' | '21' | '24'] = { buy: consensus.buy ?? 0, sell: consensus.sell ?? 0 };
    return goldOrderHolds(values) ? null : `would break 18K < 21K < 24K against the gold served now`;
  }
}

function pointOf(market: string, at: number, c: Consensus): ConsensusPoint {
  return {
    market,
    at,
    methodVersion: METHOD_VERSION,
    buy: c.buy ?? 0,
    sell: c.sell ?? 0,
    organisations: c.organisations,
    reporters: c.reporters,
    excluded: c.excluded,
    dispersionPercent: c.dispersionPercent,
    confidence: c.confidence ?? 'low',
    inputs: c.verdicts.map((v) => ({
      organisationId: v.organisationId,
      quoteIds: v.quoteIds,
      buy: v.buy,
      sell: v.sell,
      excluded: v.excluded,
    })),
  };
}
