/**
 * The quotes a consensus computation reads (docs/decisions.md 107, 109), as
 * Kysely writes them for either dialect: each reporter's latest, ranked in
 * the database, so a busy window costs one row per reporter.
 */
import { sql } from 'kysely';
import type { MarketId, QuoteRecord } from '../reporter-records.js';
import type { Database } from '../schema.js';
import type { Db } from './database.js';
import { toQuote } from './reporter-rows.js';

export async function latestQuotes(
  db: Db,
  market: MarketId,
  from: number,
  to: number,
): Promise<QuoteRecord[]> {
  // For each reporter with a quote of the market effective after `from`, one seek of
  // quotes_market_reporter_effective for its latest received by `to` (the order of
  // decisions 107: effective, then received, then observed, then id).
  const { rows } = await sql<Database['quotes']>`
    select q.* from quotes q where q.id in (
      select (
        select l.id from quotes l
        where l.market = r.market and l.reporter_id = r.reporter_id
          and l.effective_at > ${from} and l.effective_at <= ${to} and l.received_at <= ${to}
        order by l.effective_at desc, l.received_at desc, l.observed_at desc, l.id desc
        limit 1
      )
      from (select distinct market, reporter_id from quotes where market = ${market} and effective_at > ${from}) r
    )
    order by q.observed_at, q.id`.execute(db);
  return rows.map(toQuote);
}
