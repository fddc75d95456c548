/**
 * The street-rate reporters' records (docs/decisions.md 107, 108): the
 * organisations that are the unit of independence, the reporters who quote
 * for them with their own tokens, each reporter's state over time (so a
 * published point is recomputed with the reporters as they were), and the
 * quotes themselves, kept for ever.
 */

/** A market: a currency's parallel rate (`EUR`) or a gold purity (`21K`). */
export type MarketId = string;

export interface OrganisationRecord {
  /** `org_…`. */
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export type ReporterStatus = 'active' | 'suspended' | 'removed';

export interface ReporterRecord {
  /** `rep_…`, the pseudonym the operator sees; public answers name no reporter. */
  id: string;
  label: string;
  organisationId: string;
  markets: MarketId[];
  status: ReporterStatus;
  createdAt: number;
  updatedAt: number;
}

export interface ReporterPatch {
  label?: string;
  organisationId?: string;
  markets?: MarketId[];
  status?: ReporterStatus;
}

export interface ReporterTokenRecord {
  /** `rtk_…`. */
  publicId: string;
  reporterId: string;
  /** SHA-256 of the whole token, hex. */
  digest: string;
  createdAt: number;
  /** Set when the token was rolled: it works until then (the grace period). */
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface QuoteRecord {
  /** `quo_…`. */
  id: string;
  reporterId: string;
  /** The reporter's organisation when the quote was sent. */
  organisationId: string;
  market: MarketId;
  /** Micro-units of DZD. */
  buy: number;
  sell: number;
  observedAt: number;
  receivedAt: number;
  place: string | null;
}

/** A reporter's status and organisation from `at` on. */
export interface ReporterState {
  reporterId: string;
  status: ReporterStatus;
  organisationId: string;
  at: number;
}

/** Where a market's consensus stands (decisions 109): what was last published and what the last computation found. */
export interface MarketState {
  market: MarketId;
  /** Moved by every change: the compare-and-set that makes one instance's publication the only one. */
  version: number;
  state: 'ok' | 'low_quorum' | 'disagreement';
  /** The quorum failed since the last publication: the next one goes out at once. */
  quorumLost: boolean;
  last: { at: number; buy: number; sell: number } | null;
  /** A move deferred by the once-a-minute rule goes out then. */
  retryAt: number | null;
  /** Why a computation that could publish did not (gold purities out of order); null otherwise. */
  heldReason: string | null;
  computedAt: number;
}

/** A published point's values and quality, without its inputs: what public records show (decisions 114). */
export type PointQuality = Omit<ConsensusPoint, 'methodVersion' | 'inputs'>;

/** A published consensus point with its quality and inputs (decisions 107, 109). */
export interface ConsensusPoint {
  market: MarketId;
  at: number;
  methodVersion: number;
  buy: number;
  sell: number;
  organisations: number;
  reporters: number;
  excluded: number;
  dispersionPercent: number | null;
  confidence: 'high' | 'medium' | 'low';
  inputs: {
    organisationId: string;
    quoteIds: string[];
    buy: number;
    sell: number;
    excluded: string | null;
  }[];
}
