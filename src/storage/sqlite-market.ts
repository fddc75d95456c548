/**
 * The market repository on SQLite: history pages read on a raw prepared
 * statement, the rest as Kysely writes it (kysely/market.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { RateObservation } from '../domain/types.js';
import type { Db } from './kysely/database.js';
import { KyselyMarket } from './kysely/market.js';
import type { RateHistoryQuery } from './repositories/market.js';
import type { SqliteConnection } from './sqlite-connection.js';

export class SqliteMarket extends KyselyMarket {
  constructor(
    db: Db,
    private readonly conn: SqliteConnection,
  ) {
    super(db);
  }

  // Prepared once, raw rows of numbers only: a history page reads up to 1 001 rows,
  // and building an object with two strings per row was most of its cost.
  private historyStmt?: BetterSqlite3.Statement;
  private historyBeforeStmt?: BetterSqlite3.Statement;

  override async rateHistory(q: RateHistoryQuery): Promise<RateObservation[]> {
    const cols =
      'select updated_at, buy, sell from rates where currency = ? and source = ? and updated_at >= ? and updated_at <= ?';
    let rows: number[][];
    if (q.before === undefined) {
      this.historyStmt ??= this.conn.statement(`${cols} order by updated_at desc limit ?`, 'raw');
      rows = this.historyStmt.all(q.currency, q.source, q.from, q.to, q.limit) as number[][];
    } else {
      this.historyBeforeStmt ??= this.conn.statement(
        `${cols} and updated_at < ? order by updated_at desc limit ?`,
        'raw',
      );
      rows = this.historyBeforeStmt.all(q.currency, q.source, q.from, q.to, q.before, q.limit) as number[][];
    }
    return rows.map(([updatedAt, buy, sell]) => ({
      currency: q.currency,
      source: q.source,
      updatedAt: updatedAt!,
      buy: buy!,
      sell: sell!,
    }));
  }
}
