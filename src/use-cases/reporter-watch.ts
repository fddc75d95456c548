/**
 * Watching reporters (docs/decisions.md 116, 117): each reporter's quotes of
 * the last 30 days judged on their own against the consensus in force
 * (domain/reporter-watch.ts), its statistics, and whether it is flagged.
 * Behind `mds reporters stats`, GET /admin/v1/reporters/{id}/stats, the
 * `flagged` of the reporters' lists and the webhook worker's `reporter.flagged`.
 */
import {
  FLAG_SAMPLE,
  isFlagged,
  JUDGED_WITHIN_MS,
  type Judgement,
  type JudgingPoint,
  judgeQuotes,
  type ReporterStatistics,
  statisticsOf,
} from '../domain/reporter-watch.js';
import type { QuoteRecord, ReporterRecord } from '../storage/reporter-records.js';
import type { Store } from '../storage/store.js';
import type { Actor, Result } from './contract.js';
import { notFound, type OperationOptions, refusing } from './rules.js';
import { iso } from './views.js';

export const STATISTICS_DAYS = 30;
const DAY_MS = 86_400_000;

/** Each quote judged against its market's point in force; one read of points per market. */
async function judged(store: Store, quotes: readonly QuoteRecord[]): Promise<Judgement[]> {
  const ranges = new Map<string, { from: number; to: number }>();
  for (const q of quotes) {
    const t = Math.min(q.observedAt, q.receivedAt);
    const r = ranges.get(q.market);
    ranges.set(q.market, r ? { from: Math.min(r.from, t), to: Math.max(r.to, t) } : { from: t, to: t });
  }
  const points = new Map<string, JudgingPoint[]>();
  for (const [market, r] of ranges) {
    points.set(market, await store.consensus.points(market, r.from - JUDGED_WITHIN_MS, r.to));
  }
  return judgeQuotes(quotes, points);
}

export interface Flagging {
  flagged: boolean;
  /** Of its last 20 quotes (fewer when it sent fewer), how many failed. */
  failed: number;
  sample: number;
  /** Its newest quote: what the flagging was judged on. */
  newestQuoteId: string | null;
}

/** Whether the reporter is flagged now: more than 30 % of its last 20 quotes failed on their own. */
export async function flaggingOf(store: Store, reporterId: string): Promise<Flagging> {
  const recent = await store.reporters.recentQuotes(reporterId, FLAG_SAMPLE);
  const judgements = await judged(store, recent);
  return {
    flagged: isFlagged(judgements),
    failed: judgements.filter((j) => j.failed).length,
    sample: judgements.length,
    newestQuoteId: recent[0]?.id ?? null,
  };
}

export interface ReporterStatisticsView extends ReporterStatistics {
  reporterId: string;
  organisationId: string;
  status: ReporterRecord['status'];
  /** The period, the last 30 days. */
  from: string;
  to: string;
  flagged: boolean;
  lastQuotes: { sample: number; failed: number };
}

async function statisticsView(store: Store, r: ReporterRecord, now: number): Promise<ReporterStatisticsView> {
  const from = now - STATISTICS_DAYS * DAY_MS;
  const quotes = await store.reporters.quotesReceivedSince(r.id, from);
  const judgements = await judged(store, quotes);
  // The flag reads the last 20 quotes whenever they were sent, as the webhook worker does.
  const flagging =
    quotes.length >= FLAG_SAMPLE
      ? {
          flagged: isFlagged(judgements),
          failed: judgements.slice(0, FLAG_SAMPLE).filter((j) => j.failed).length,
          sample: FLAG_SAMPLE,
        }
      : await flaggingOf(store, r.id);
  return {
    reporterId: r.id,
    organisationId: r.organisationId,
    status: r.status,
    from: iso(from)!,
    to: iso(now)!,
    ...statisticsOf(judgements),
    flagged: flagging.flagged,
    lastQuotes: { sample: flagging.sample, failed: flagging.failed },
  };
}

/** One reporter's statistics over the last 30 days. */
export function reporterStatistics(
  store: Store,
  _actor: Actor,
  { id }: { id: string },
  options: OperationOptions = {},
): Promise<Result<ReporterStatisticsView>> {
  return refusing(async () => {
    const reporter = await store.reporters.getReporter(id);
    if (!reporter) throw notFound(`no reporter ${id}`);
    return statisticsView(store, reporter, options.now ?? Date.now());
  });
}
