/**
 * The consensus of one street market at an instant T, method
 * `median-of-organisations` version 1 (docs/decisions.md 107).
 * A pure function of the quotes and the reporters' states at T, so that a
 * published point can be recomputed and explained from stored quotes alone.
 *
 * Arithmetic is exact. Quotes arrive in integer micro-units (domain/decimal.ts);
 * every median of an even count halves, and the method nests four of them
 * (organisation median, mid, median of mids, MAD), so values are carried as
 * BigInt in sixteenths of a micro-unit, where each of those halvings is exact.
 * Only the published values are rounded, once, half away from zero.
 */

/** Sixteenths of a micro-unit: four nested halvings stay integers. */
export const UNIT = 16n;
/** 4 decimals = 100 micro-units. */
const PUBLISHED_STEP = 100n * UNIT;

export interface ConsensusQuote {
  id: string;
  reporterId: string;
  /** The organisation the reporter belonged to when the quote was sent. */
  organisationId: string;
  /** Micro-units of DZD. */
  buy: number;
  sell: number;
  /** Epoch milliseconds. */
  observedAt: number;
  receivedAt: number;
}

export interface ConsensusSettings {
  /** W, milliseconds: quotes observed in (T − W, T] count. */
  windowMs: number;
  /** Organisations that must remain; never below 3. */
  quorum: number;
}

export type ExclusionReason = 'mid' | 'buy' | 'sell';

export interface OrganisationVerdict {
  organisationId: string;
  quoteIds: string[];
  /** The organisation's median buy and sell, micro-units (may end in .5, .25 …). */
  buy: number;
  sell: number;
  excluded: ExclusionReason | null;
}

export type ConsensusState = 'ok' | 'low_quorum' | 'disagreement';
export type Confidence = 'high' | 'medium' | 'low';

export interface Consensus {
  state: ConsensusState;
  /** Micro-units, rounded to 4 decimals; null unless the quorum holds. */
  buy: number | null;
  sell: number | null;
  /** Kept organisations, excluded organisations, quotes used (of kept organisations). */
  organisations: number;
  excluded: number;
  reporters: number;
  /** 1.4826 × MAD of the kept mids / m × 100, 2 decimals; null below two kept organisations. */
  dispersionPercent: number | null;
  confidence: Confidence | null;
  verdicts: OrganisationVerdict[];
}

/** When a quote counts: its observation, or its receipt if it was dated ahead (at most 2 minutes). */
export function effectiveInstant(q: ConsensusQuote): number {
  return Math.min(q.observedAt, q.receivedAt);
}

/**
 * Step 1: each active reporter's latest quote in (T − W, T]. Of two quotes of
 * one reporter at the same instant, the later received wins.
 */
export function quotesInWindow(
  quotes: readonly ConsensusQuote[],
  activeReporters: ReadonlySet<string>,
  at: number,
  windowMs: number,
): ConsensusQuote[] {
  const latest = new Map<string, ConsensusQuote>();
  for (const q of quotes) {
    if (!activeReporters.has(q.reporterId)) continue;
    const t = effectiveInstant(q);
    if (t <= at - windowMs || t > at) continue;
    const held = latest.get(q.reporterId);
    if (
      !held ||
      t > effectiveInstant(held) ||
      (t === effectiveInstant(held) && q.receivedAt >= held.receivedAt)
    ) {
      latest.set(q.reporterId, q);
    }
  }
  return [...latest.values()];
}

function median(values: readonly bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[mid] as bigint;
  return ((sorted[mid - 1] as bigint) + (sorted[mid] as bigint)) / 2n;
}

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * True when |value − centre| is strictly beyond max(3.5 × 1.4826 × MAD, 1.5 % × centre).
 * 3.5 × 1.4826 = 5.1891, compared in ten-thousandths; 1.5 % in thousandths.
 */
export function beyond(value: bigint, centre: bigint, mad: bigint): boolean {
  const d = abs(value - centre);
  return d * 10_000n > 51_891n * mad && d * 1_000n > 15n * centre;
}

export function spread(values: readonly bigint[]): { centre: bigint; mad: bigint } {
  const centre = median(values);
  return { centre, mad: median(values.map((v) => abs(v - centre))) };
}

/** Half away from zero (values are positive) to a multiple of `step`. */
function roundTo(value: bigint, step: bigint): bigint {
  const q = value / step;
  return (value % step) * 2n >= step ? (q + 1n) * step : q * step;
}

const toMicros = (v: bigint) => Number(v) / Number(UNIT);

interface Organisation {
  id: string;
  quoteIds: string[];
  buy: bigint;
  sell: bigint;
  mid: bigint;
}

/** Steps 2 to 5 over the quotes already selected by quotesInWindow. */
export function consensusOf(quotes: readonly ConsensusQuote[], settings: ConsensusSettings): Consensus {
  const byOrganisation = new Map<string, ConsensusQuote[]>();
  for (const q of quotes) {
    const list = byOrganisation.get(q.organisationId) ?? [];
    list.push(q);
    byOrganisation.set(q.organisationId, list);
  }
  const organisations: Organisation[] = [...byOrganisation].map(([id, list]) => {
    const buy = median(list.map((q) => BigInt(q.buy) * UNIT));
    const sell = median(list.map((q) => BigInt(q.sell) * UNIT));
    return { id, quoteIds: list.map((q) => q.id).sort(), buy, sell, mid: (buy + sell) / 2n };
  });
  organisations.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const verdict = new Map<string, ExclusionReason | null>();
  if (organisations.length > 0) {
    const mids = spread(organisations.map((o) => o.mid));
    const buys = spread(organisations.map((o) => o.buy));
    const sells = spread(organisations.map((o) => o.sell));
    for (const o of organisations) {
      const reason: ExclusionReason | null = beyond(o.mid, mids.centre, mids.mad)
        ? 'mid'
        : beyond(o.buy, buys.centre, buys.mad)
          ? 'buy'
          : beyond(o.sell, sells.centre, sells.mad)
            ? 'sell'
            : null;
      verdict.set(o.id, reason);
    }
  }

  const kept = organisations.filter((o) => verdict.get(o.id) === null);
  const quorum = Math.max(3, settings.quorum);
  const state: ConsensusState =
    kept.length >= quorum ? 'ok' : organisations.length >= quorum ? 'disagreement' : 'low_quorum';

  let dispersionPercent: number | null = null;
  if (kept.length >= 2) {
    const { centre, mad } = spread(kept.map((o) => o.mid));
    // 1.4826 × MAD / m × 100 in hundredths = 14826 × MAD / m, rounded half up.
    const num = 14_826n * mad;
    const hundredths = num / centre + ((num % centre) * 2n >= centre ? 1n : 0n);
    dispersionPercent = Number(hundredths) / 100;
  }

  const ok = state === 'ok';
  return {
    state,
    buy: ok ? toMicros(roundTo(median(kept.map((o) => o.buy)), PUBLISHED_STEP)) : null,
    sell: ok ? toMicros(roundTo(median(kept.map((o) => o.sell)), PUBLISHED_STEP)) : null,
    organisations: kept.length,
    excluded: organisations.length - kept.length,
    reporters: kept.reduce((n, o) => n + o.quoteIds.length, 0),
    dispersionPercent,
    confidence: ok ? confidenceOf(kept.length, dispersionPercent ?? 0) : null,
    verdicts: organisations.map((o) => ({
      organisationId: o.id,
      quoteIds: o.quoteIds,
      buy: toMicros(o.buy),
      sell: toMicros(o.sell),
      excluded: verdict.get(o.id) ?? null,
    })),
  };
}

/** Judged on the published (rounded) dispersion, so a reader can check it from the answer. */
function confidenceOf(organisations: number, dispersionPercent: number): Confidence {
  if (organisations >= 5 && dispersionPercent <= 0.5) return 'high';
  if (dispersionPercent <= 2) return 'medium';
  return 'low';
}

/** The whole method at T: selection, then the consensus. */
export function consensusAt(
  quotes: readonly ConsensusQuote[],
  activeReporters: ReadonlySet<string>,
  at: number,
  settings: ConsensusSettings,
): Consensus {
  return consensusOf(quotesInWindow(quotes, activeReporters, at, settings.windowMs), settings);
}

export interface Published {
  buy: number;
  sell: number;
  /** Epoch milliseconds of the published observation. */
  at: number;
}

export const HEARTBEAT_MS = 60 * 60_000;
export const MIN_SPACING_MS = 60_000;

export type PublicationDecision = { publish: true } | { publish: false; retryAt: number | null };

/**
 * Whether a consensus computed at `now` is published: on a move of at least
 * 0.1 % on either side from the last published value, or when that is older
 * than the heartbeat; the first publication, and the first after the quorum
 * returns, at once; otherwise at most one a minute per market (retryAt says
 * when a deferred move may go out).
 */
export function publicationDecision(
  consensus: Pick<Consensus, 'state' | 'buy' | 'sell'>,
  last: Published | null,
  quorumWasLost: boolean,
  now: number,
): PublicationDecision {
  if (consensus.state !== 'ok' || consensus.buy === null || consensus.sell === null) {
    return { publish: false, retryAt: null };
  }
  if (!last || quorumWasLost) return { publish: true };
  const moved = movedEnough(consensus.buy, last.buy) || movedEnough(consensus.sell, last.sell);
  const heartbeat = now - last.at >= HEARTBEAT_MS;
  if (!moved && !heartbeat) return { publish: false, retryAt: null };
  if (now - last.at < MIN_SPACING_MS) return { publish: false, retryAt: last.at + MIN_SPACING_MS };
  return { publish: true };
}

/** |new − old| ≥ 0.1 % of old, on integer micro-units scaled to be exact. */
function movedEnough(next: number, previous: number): boolean {
  const a = BigInt(Math.round(next * 16));
  const b = BigInt(Math.round(previous * 16));
  return abs(a - b) * 1_000n >= b;
}

/** 18K < 21K < 24K at one instant; a publication breaking it is held (decisions 107). */
export function goldOrderHolds(
  values: Readonly<Record<'18' | '21' | '24', { buy: number; sell: number } | null>>,
) {
  const present = (['18', '21', '24'] as const).map((p) => values[p]).filter((v) => v !== null);
  for (let i = 1; i < present.length; i++) {
    const lower = present[i - 1] as { buy: number; sell: number };
    const upper = present[i] as { buy: number; sell: number };
    if (!(lower.buy < upper.buy && lower.sell < upper.sell)) return false;
  }
  return true;
}
