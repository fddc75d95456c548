/**
 * better-sqlite3 connections whose native objects are never garbage collected.
 *
 * Why: from Node 24 on, `node::ObjectWrap` (a header compiled into
 * the addon) removes an environment cleanup hook in its destructor, and finds
 * the environment through the isolate's current context. better-sqlite3 12
 * wraps every Database and Statement in an ObjectWrap, deleted by a V8 weak
 * callback when its JavaScript object is collected. A collection started by an
 * allocation in optimized code runs with no current context, so the destructor
 * finds no environment and Node aborts:
 * `RemoveEnvironmentCleanupHook … Assertion failed: (env) != nullptr`, under
 * `Statement::~Statement()`. Kysely prepares a new statement for every query and
 * drops it; `mds serve --first-run` ran a few hundred queries, then the sample
 * generator's optimized loops collected them, and the process died before it
 * listened. A script that opens, prepares and closes never loses a statement to
 * the collector: its objects are deleted when the thread ends, by the cleanup
 * hook itself, inside the context, which is safe.
 *
 * So this thread keeps every connection it opens, and every statement prepared
 * through it, reachable until the thread ends (even after close: a closed
 * connection's objects abort just the same when collected). Statements are
 * reused per SQL text, so what is kept stays bounded: a serving process has a
 * few dozen query shapes. `db.pragma()` prepares a statement the caller cannot
 * keep, so pragmas go through `exec` (settings) or `statement()` (reads).
 */
import BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** How a statement returns rows: objects (better-sqlite3's default), arrays, or the first column. */
export type RowMode = 'objects' | 'raw' | 'pluck';

// Every connection of this thread, open or closed, with its statements.
const kept = new Set<SqliteConnection>();

export class SqliteConnection {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  private constructor(readonly db: BetterSqlite3.Database) {}

  static open(path: string, options?: BetterSqlite3.Options): SqliteConnection {
    const connection = new SqliteConnection(new BetterSqlite3(path, options));
    kept.add(connection);
    return connection;
  }

  /**
   * The statement for this SQL text and row mode: prepared on first use, then
   * the same object. Callers must not change its mode (`raw()`, `pluck()`,
   * `expand()`): ask for the mode here instead.
   */
  statement(sql: string, mode: RowMode = 'objects'): BetterSqlite3.Statement {
    const key = `${mode}\0${sql}`;
    let stmt = this.statements.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      if (mode === 'raw') stmt.raw();
      else if (mode === 'pluck') stmt.pluck();
      this.statements.set(key, stmt);
    }
    return stmt;
  }

  /**
   * The connection as Kysely's SQLite dialect uses it: statements from the
   * cache. Not for Kysely's `stream()`: its `iterate()` makes an iterator, an
   * object of the addon the collector would free like a statement.
   */
  forKysely(): SqliteDatabase {
    return { prepare: (sql) => this.statement(sql), close: () => this.close() };
  }

  close(): void {
    this.db.close();
  }

  /** Statements kept for this connection (tests). */
  get statementCount(): number {
    return this.statements.size;
  }
}
