/**
 * Migration 0016_quote_effective_instant (listed in migrations/index.ts; never
 * edited once released): each quote's effective instant, min(observed,
 * received) (docs/decisions.md 107), stored and indexed so that a consensus
 * computation finds each reporter's latest quote by one index seek
 * (kysely/quote-reads.ts) instead of ranking every quote of the window.
 * Additive: the previous release writes quotes without it, which only the
 * consensus reads, and that release does not run beside this one.
 */
import { type Kysely, type Migration, sql } from 'kysely';

export const quoteEffectiveInstantMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('quotes')
      .addColumn('effective_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update quotes set effective_at = case when observed_at < received_at then observed_at else received_at end`.execute(
      db,
    );
    // In the order a computation takes a reporter's latest: covering, so the seek reads no row.
    await db.schema
      .createIndex('quotes_market_reporter_effective')
      .on('quotes')
      .columns(['market', 'reporter_id', 'effective_at', 'received_at', 'observed_at', 'id'])
      .execute();
  },
};
