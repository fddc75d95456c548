/**
 * The quotes a consensus computation reads (docs/decisions.md 107, 109), as
 * Kysely writes them for either dialect: each reporter's latest, ranked in
 * the database, so a busy window costs one row per reporter.
 */
import { sql } from 'kysely';
import type { MarketId, QuoteRecord } from '../reporter-records.js';
import type { Db } from './database.js';
import { toQuote } from './reporter-rows.js';

export async function latestQuotes(
  db: Db,
  market: MarketId,
  from: number,
  to: number,
): Promise<QuoteRecord[]> {
  // Received by `to`, min(observed, received) in (from, to] ⇔ both above `from`.
  const effective = sql`case when observed_at < received_at then observed_at else received_at end`;
  const ranked = db
    .selectFrom('quotes')
    .selectAll()
    .select(
      sql<number>`row_number() over (partition by reporter_id order by ${effective} desc, received_at desc, observed_at desc, id desc)`.as(
        'rank',
      ),
    )
    .where('market', '=', market)
    .where('received_at', '>', from)
    .where('received_at', '<=', to)
    .where('observed_at', '>', from);
  const rows = await db
    .selectFrom(ranked.as('q'))
    .selectAll()
    .where('rank', '=', 1)
    .orderBy('observed_at')
    .orderBy('id')
    .execute();
  return rows.map(toQuote);
}
