/**
 * Organisations, reporters, their tokens and their quotes (docs/decisions.md
 * 108). Changes to organisations, reporters and tokens append their audit
 * record in their transaction; quotes are not audited (they are the data).
 * Implemented in Kysely (kysely/reporters.ts). Tested on both backends by
 * test/storage/reporters.contract.test.ts.
 */
import type { AuditActor, KeysetPage } from '../admin-records.js';
import type {
  MarketId,
  OrganisationRecord,
  QuoteRecord,
  ReporterPatch,
  ReporterRecord,
  ReporterState,
  ReporterTokenRecord,
} from '../reporter-records.js';

export interface ReporterRepository {
  /** DuplicateError when another organisation has its name. */
  createOrganisation(organisation: OrganisationRecord, actor?: AuditActor): Promise<void>;
  getOrganisation(id: string): Promise<OrganisationRecord | undefined>;
  /** Oldest first (created time, then id). */
  listOrganisations(page: KeysetPage): Promise<OrganisationRecord[]>;

  /** With its first state and its first token, in one transaction. */
  createReporter(reporter: ReporterRecord, token: ReporterTokenRecord, actor?: AuditActor): Promise<void>;
  getReporter(id: string): Promise<ReporterRecord | undefined>;
  /** Oldest first (created time, then id); `organisationId` filters. */
  listReporters(filter: { organisationId?: string }, page: KeysetPage): Promise<ReporterRecord[]>;
  /** Appends a state when the status or the organisation changes. Undefined when there is no such reporter. */
  updateReporter(
    id: string,
    patch: ReporterPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<ReporterRecord | undefined>;
  /** Each reporter's status and organisation as they were at `at` (reporters created later are absent). */
  reporterStatesAt(at: number): Promise<ReporterState[]>;

  findReporterToken(digest: string): Promise<ReporterTokenRecord | undefined>;
  /**
   * One transaction: `next` stored, the reporter's other live tokens expiring
   * at `graceUntil` (never pushed back), one `reporter.token.roll` record.
   */
  rollReporterToken(
    reporterId: string,
    next: ReporterTokenRecord,
    graceUntil: number,
    now: number,
    actor?: AuditActor,
  ): Promise<void>;

  /** Stores quotes as given (ids chosen by the caller); all or none. */
  addQuotes(quotes: readonly QuoteRecord[]): Promise<void>;
  /**
   * Each reporter's latest quote of `market` received by `to` whose
   * effective instant, min(observed, received), lies in (from, to], as
   * step 1 of the consensus picks it (docs/decisions.md 107): the later
   * received of one instant, then the later observed, then the greater id.
   * Oldest observation first. Only these can count, so a busy window costs
   * one row per reporter, not one per quote.
   */
  latestQuotes(market: MarketId, from: number, to: number): Promise<QuoteRecord[]>;
  /** The quotes of those ids that exist, in no particular order (a published point's inputs). */
  quotesByIds(ids: readonly string[]): Promise<QuoteRecord[]>;
  /** A reporter's quotes, newest received first, at most `limit`. */
  recentQuotes(reporterId: string, limit: number): Promise<QuoteRecord[]>;
  /** A reporter's quotes received after `since`, newest received first: its statistics (decisions 116). */
  quotesReceivedSince(reporterId: string, since: number): Promise<QuoteRecord[]>;
  /** The reporters with a quote received after `since`, by id, with their newest receipt: whom the webhook worker judges again. */
  reportersQuotingSince(since: number): Promise<{ reporterId: string; lastReceivedAt: number }[]>;
}
