/**
 * Embedded default: one SQLite file in WAL mode. WAL with synchronous=NORMAL
 * makes a committed transaction survive a crash of the process (kill -9); only a
 * power loss can take the last commits, which the embedded mode accepts.
 *
 * Two files (decisions 55): the store (`mds.sqlite`) and, beside it, the usage
 * file (`mds-usage.sqlite`, usageFilePath) holding the two tables a serving
 * process writes on every tick, `usage` and `minute_usage`. SQLite locks per
 * file, so an import holding the store's write lock for seconds never makes a
 * usage commit wait. Every connection ATTACHes the usage file as `metering`;
 * the tables exist there only, so unqualified names (the Kysely queries) find
 * them. The usage commits run on a connection of their own opened on the usage
 * file, and imports on one opened on the store without the attachment: BEGIN
 * IMMEDIATE takes the write lock of every attached file.
 *
 * Writes that the server performs while serving (usage, lastUsedAt) and the bulk
 * import (sqlite-import.ts) go straight to better-sqlite3: they are synchronous,
 * so they cannot interleave with Kysely's queued queries on the shared connection.
 * The one write the serving process still makes on the store file, lastUsedAt,
 * is best effort: it never waits for the lock (touchKeys).
 *
 * The files and how a connection opens them: sqlite-files.ts. The parts each
 * connection runs: sqlite-usage.ts (usage commits), sqlite-import.ts (bulk
 * import), sqlite-access.ts (lastUsedAt), sqlite-market.ts (history pages).
 */
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import { setting } from '../config/setting.js';
import { classified, errorCode, type UnavailableTest } from './errors.js';
import { KyselyConsensus } from './kysely/consensus.js';
import type { Db } from './kysely/database.js';
import { KyselyOperator } from './kysely/operator.js';
import { KyselyReporters } from './kysely/reporters.js';
import { assembleStore } from './kysely/store.js';
import { KyselyWebhooks } from './kysely/webhook-sources.js';
import type { Database } from './schema.js';
import { SqliteAccess } from './sqlite-access.js';
import { SERVING_AUTOCHECKPOINT_PAGES, SqliteCheckpointer } from './sqlite-checkpointer.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { type OpenSettings, openConnection, type SqliteOpenOptions, usageFilePath } from './sqlite-files.js';
import { SqliteImports } from './sqlite-import.js';
import { SqliteMarket } from './sqlite-market.js';
import { probeSqliteFile } from './sqlite-space.js';
import { SqliteUsage } from './sqlite-usage.js';
import type { Store } from './store.js';

/**
 * SQLite's codes for a store that cannot serve now: locked past the busy
 * timeout, not openable, an I/O error, a full disk, a read-only file.
 */
const SQLITE_UNAVAILABLE = /^(SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR.*|SQLITE_FULL|SQLITE_READONLY.*)$/;
export const isSqliteUnavailable: UnavailableTest = (err) => SQLITE_UNAVAILABLE.test(errorCode(err) ?? '');

/**
 * Kysely's transactions on SQLite begin IMMEDIATE: every one of them writes, and
 * a deferred transaction that reads first fails at once ("database is locked")
 * when it upgrades to a writer after another process has written meanwhile.
 *
 * And they roll back only what is still open: on SQLITE_FULL (and an I/O error)
 * SQLite may have rolled the transaction back already, and Kysely's second
 * ROLLBACK then failed with "cannot rollback - no transaction is active", an
 * error that replaced the real one in the log and the answer.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly conn: SqliteConnection) {
    super({ database: conn.forKysely() });
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      if (this.conn.db.inTransaction) await rollback(connection);
    };
    return driver;
  }
}

/**
 * The SQLite store, with its connection (tests count its prepared statements)
 * and the usage file's (tests cap each file's pages, a full disk).
 */
export interface SqliteStore extends Store {
  readonly conn: SqliteConnection;
  usageConnection(): SqliteConnection;
}

export const SqliteStore = {
  open(path: string, given: SqliteOpenOptions = {}): SqliteStore {
    try {
      // A full disk, simulated (tests): a file may not grow past this many pages.
      // Read once, by whichever process opens a store, for all its connections.
      const options: OpenSettings = { ...given, maxPages: setting('MDS_SQLITE_MAX_PAGES') };
      const conn = openConnection(path, options);
      const db: Db = new Kysely<Database>({
        dialect: new ImmediateSqliteDialect(conn),
      });
      const background = options.backgroundCheckpoints;
      let checkpointer: SqliteCheckpointer | undefined;
      if (background && !options.readonly && path !== ':memory:') {
        // The serving process writes the store file only for lastUsedAt, a page a
        // minute: the big writers there are imports, other processes whose own
        // connections checkpoint when they commit. A fallback checkpoint inside
        // a lastUsedAt commit right after a million-row import would copy its
        // whole WAL on the event loop; so none here while the thread runs (the
        // usage connection keeps its own, SqliteUsage.usageDb). Between sparse
        // writes the thread copies everything, so the next write restarts the WAL.
        conn.db.exec('pragma main.wal_autocheckpoint = 0');
        const given = background === true ? {} : background;
        checkpointer = SqliteCheckpointer.start(path, {
          ...given,
          usagePath: usageFilePath(path),
          onError: (err) => {
            // The thread is gone: SQLite's own checkpoints take over.
            conn.db.exec(`pragma wal_autocheckpoint = ${SERVING_AUTOCHECKPOINT_PAGES}`);
            given.onError?.(err);
          },
        });
      }
      const usage = new SqliteUsage(db, path, options, conn, checkpointer !== undefined);
      const access = new SqliteAccess(db, conn);
      // Its own connection, on the store file only: BEGIN IMMEDIATE locks every
      // attached file, and the usage file must stay writable by a serving process
      // for as long as the import runs (decisions 55).
      const imports = new SqliteImports(
        db,
        conn,
        path === ':memory:' ? undefined : () => openConnection(path, options, false),
      );
      const repositories = {
        market: new SqliteMarket(db, conn),
        imports,
        access,
        usage,
        operator: new KyselyOperator(db),
        reporters: new KyselyReporters(db),
        consensus: new KyselyConsensus(db),
        webhooks: new KyselyWebhooks(db, 'sqlite'),
      };
      const close = async () => {
        // The thread's connection first: closing the last connection checkpoints and removes the WAL.
        await checkpointer?.stop();
        imports.closeConnection();
        usage.closeConnection();
        access.stopRetries();
        await db.destroy();
      };
      const probeSpace = async () => {
        probeSqliteFile(conn.db, path);
        usage.probeSpace();
      };
      const store = assembleStore('sqlite', path, db, repositories, close, isSqliteUnavailable, probeSpace);
      return Object.assign(store, { conn, usageConnection: () => usage.connection() });
    } catch (err) {
      throw classified(err, isSqliteUnavailable);
    }
  },
};
