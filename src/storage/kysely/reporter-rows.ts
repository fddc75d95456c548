/**
 * Rows of the reporters' tables as records, and what the audit log keeps of a
 * reporter (kysely/reporters.ts).
 */
import type {
  MarketId,
  OrganisationRecord,
  QuoteRecord,
  ReporterRecord,
  ReporterStatus,
  ReporterTokenRecord,
} from '../reporter-records.js';
import type { Database } from '../schema.js';

const num = (v: number | null) => (v === null ? null : Number(v));
const splitMarkets = (s: string): MarketId[] => (s === '' ? [] : s.split(','));

export const toOrganisation = (r: Database['organisations']): OrganisationRecord => ({
  id: r.id,
  name: r.name,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const toReporter = (r: Database['reporters']): ReporterRecord => ({
  id: r.id,
  label: r.label,
  organisationId: r.organisation_id,
  markets: splitMarkets(r.markets),
  status: r.status as ReporterStatus,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const toToken = (r: Database['reporter_tokens']): ReporterTokenRecord => ({
  publicId: r.id,
  reporterId: r.reporter_id,
  digest: r.digest,
  createdAt: Number(r.created_at),
  expiresAt: num(r.expires_at),
  revokedAt: num(r.revoked_at),
});

export const toQuote = (r: Database['quotes']): QuoteRecord => ({
  id: r.id,
  reporterId: r.reporter_id,
  organisationId: r.organisation_id,
  market: r.market,
  buy: Number(r.buy),
  sell: Number(r.sell),
  observedAt: Number(r.observed_at),
  receivedAt: Number(r.received_at),
  place: r.place,
});

/** What the audit log records of a reporter. */
export const reporterFields = (r: ReporterRecord) => ({
  label: r.label,
  organisationId: r.organisationId,
  markets: r.markets,
  status: r.status,
});
