/**
 * What a reporter does with its token (docs/decisions.md 110): prove who it
 * is, send quotes, read back its own and the current consensus of its
 * markets. Behind /report/v1 (http/report/); the rules of a quote are those
 * of decisions 107: sell at least buy, a market the reporter may quote,
 * observed at most 2 minutes ahead and within the window behind, and no more
 * than 50 % from the market's last published value (a typo, not a move).
 */
import { type ConsensusSettings, consensusAt } from '../domain/consensus.js';
import { MAX_AMOUNT, microsToNumber, parseMicros } from '../domain/decimal.js';
import { digestKey, digestsEqual } from '../domain/keys.js';
import type { Problem } from '../schemas/admin-check.js';
import type { QuoteInput } from '../schemas/report.js';
import type { QuoteRecord, ReporterRecord } from '../storage/reporter-records.js';
import type { Store } from '../storage/store.js';
import { reporterTokens } from './reporters.js';
import { newId } from './rules.js';
import { iso } from './views.js';

/** How far ahead of the service's clock a quote may be dated (decisions 107). */
export const MAX_AHEAD_MS = 2 * 60_000;

export type ReporterAccess =
  | { ok: true; reporter: ReporterRecord }
  | { ok: false; reason: 'invalid' | 'expired' | 'inactive'; status?: ReporterRecord['status'] };

/**
 * The reporter a presented token belongs to: its format and checksum first
 * (a guess costs no lookup), then its digest, compared in constant time. A
 * revoked token is invalid; a rolled one past its grace period expired; a
 * reporter not active is refused whatever its token.
 */
export async function verifyReporterToken(store: Store, token: string, now: number): Promise<ReporterAccess> {
  const parsed = reporterTokens.parse(token);
  if (!parsed) return { ok: false, reason: 'invalid' };
  const digest = digestKey(token);
  const record = await store.reporters.findReporterToken(digest);
  if (!record || record.publicId !== parsed.publicId || !digestsEqual(record.digest, digest))
    return { ok: false, reason: 'invalid' };
  if (record.revokedAt !== null && record.revokedAt <= now) return { ok: false, reason: 'invalid' };
  if (record.expiresAt !== null && record.expiresAt <= now) return { ok: false, reason: 'expired' };
  const reporter = await store.reporters.getReporter(record.reporterId);
  if (!reporter) return { ok: false, reason: 'invalid' };
  if (reporter.status !== 'active') return { ok: false, reason: 'inactive', status: reporter.status };
  return { ok: true, reporter };
}

export interface QuoteView {
  id: string;
  market: string;
  buy: number;
  sell: number;
  observedAt: string;
  receivedAt: string;
  place: string | null;
}

export const quoteView = (q: QuoteRecord): QuoteView => ({
  id: q.id,
  market: q.market,
  buy: microsToNumber(q.buy),
  sell: microsToNumber(q.sell),
  observedAt: iso(q.observedAt)!,
  receivedAt: iso(q.receivedAt)!,
  place: q.place,
});

export type QuotesOutcome =
  | { ok: true; quotes: QuoteView[]; markets: string[] }
  | { ok: false; problems: Problem[] };

const amount = (micros: number) => String(microsToNumber(micros));
const hours = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} hours` : `${Math.round(ms / 60_000)} minutes`;

/** A market's last published buy and sell (micro-units) and their instant, as this instance serves them. */
export type LastPublished = (market: string) => { buy: number; sell: number; at: number } | undefined;

/**
 * Stores `inputs` (already valid by their schema) as the reporter's quotes,
 * all or none: every refused item is named by its field, `prefix` + index
 * in a batch (`quotes.3.sell`), with the value and the fix.
 */
export async function submitQuotes(
  store: Store,
  reporter: ReporterRecord,
  inputs: readonly QuoteInput[],
  options: { now: number; windowMs: number; prefix: (index: number) => string; published: LastPublished },
): Promise<QuotesOutcome> {
  const { now, windowMs } = options;
  const problems: Problem[] = [];
  const records: QuoteRecord[] = [];
  inputs.forEach((input, index) => {
    const at = options.prefix(index);
    const found: Problem[] = [];
    const buy = parseMicros(input.buy);
    const sell = parseMicros(input.sell);
    if (!reporter.markets.includes(input.market)) {
      found.push({
        field: `${at}market`,
        message:
          `${JSON.stringify(input.market)} is not a market you may quote (yours: ${reporter.markets.join(', ')}): ` +
          'ask the operator to allow it',
      });
    }
    for (const [side, value] of [
      ['buy', buy],
      ['sell', sell],
    ] as const) {
      if (value === null)
        found.push({
          field: `${at}${side}`,
          message: `${side} ${JSON.stringify(input[side])} is not an amount in DZD of at most 6 decimals and at most ${MAX_AMOUNT}: correct it`,
        });
      if (value === 0)
        found.push({ field: `${at}${side}`, message: `${side} 0 must be above 0: give the amount in DZD` });
    }
    if (buy !== null && sell !== null && sell < buy) {
      found.push({
        field: `${at}sell`,
        message: `sell ${amount(sell)} is below buy ${amount(buy)}: a quote sells at or above what it buys; check the two are not swapped`,
      });
    }
    const observedAt = input.observedAt === undefined ? now : Date.parse(input.observedAt);
    if (observedAt > now + MAX_AHEAD_MS) {
      found.push({
        field: `${at}observedAt`,
        message: `${input.observedAt} is more than 2 minutes ahead of the service's clock (${iso(now)}): set the device's clock, or leave observedAt out`,
      });
    } else if (observedAt <= now - windowMs) {
      found.push({
        field: `${at}observedAt`,
        message: `${input.observedAt} is older than the consensus window (${hours(windowMs)}): it would never count; send only recent quotes`,
      });
    }
    const last = options.published(input.market);
    if (last && found.length === 0) {
      for (const [side, value, before] of [
        ['buy', buy, last.buy],
        ['sell', sell, last.sell],
      ] as const) {
        // |value − before| > 50 % of before, on integers.
        if (value !== null && Math.abs(value - before) * 2 > before) {
          found.push({
            field: `${at}${side}`,
            message:
              `${side} ${amount(value)} is more than 50 % from the last published ${side} of ${input.market}, ` +
              `${amount(before)} (${iso(last.at)}): check the amount for a typo`,
          });
        }
      }
    }
    problems.push(...found);
    if (found.length > 0 || buy === null || sell === null) return;
    records.push({
      id: newId('quo'),
      reporterId: reporter.id,
      organisationId: reporter.organisationId,
      market: input.market,
      buy,
      sell,
      observedAt,
      receivedAt: now,
      place: input.place?.trim() ?? null,
    });
  });
  if (problems.length > 0) return { ok: false, problems };
  await store.reporters.addQuotes(records);
  return { ok: true, quotes: records.map(quoteView), markets: [...new Set(records.map((q) => q.market))] };
}

export async function recentQuotes(
  store: Store,
  reporter: ReporterRecord,
  limit: number,
): Promise<QuoteView[]> {
  return (await store.reporters.recentQuotes(reporter.id, limit)).map(quoteView);
}

export interface ConsensusView {
  market: string;
  at: string;
  state: 'ok' | 'low_quorum' | 'disagreement';
  buy: number | null;
  sell: number | null;
  organisations: number;
  reporters: number;
  excluded: number;
  dispersionPercent: number | null;
  confidence: 'high' | 'medium' | 'low' | null;
}

/**
 * The consensus of each of `markets` at `now`, computed from the stored
 * quotes and the reporters' states (domain/consensus.ts): its figures, never
 * whose quotes made it.
 */
export async function currentConsensus(
  store: Store,
  markets: readonly string[],
  settings: ConsensusSettings,
  now: number,
): Promise<ConsensusView[]> {
  const states = await store.reporters.reporterStatesAt(now);
  const active = new Set(states.filter((s) => s.status === 'active').map((s) => s.reporterId));
  const out: ConsensusView[] = [];
  for (const market of markets) {
    const quotes = await store.reporters.latestQuotes(market, now - settings.windowMs, now);
    const c = consensusAt(quotes, active, now, settings);
    out.push({
      market,
      at: iso(now)!,
      state: c.state,
      buy: c.buy === null ? null : microsToNumber(c.buy),
      sell: c.sell === null ? null : microsToNumber(c.sell),
      organisations: c.organisations,
      reporters: c.reporters,
      excluded: c.excluded,
      dispersionPercent: c.dispersionPercent,
      confidence: c.confidence,
    });
  }
  return out;
}
