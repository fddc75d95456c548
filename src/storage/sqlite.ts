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
 * Longer than 300 lines because the three connections of a store (serving,
 * usage, import) and what each may wait for are one design, read together.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import { setting } from '../config/setting.js';
import { utcDay } from '../domain/dates.js';
import type { RateObservation } from '../domain/types.js';
import { classified, errorCode, type UnavailableTest } from './errors.js';
import type { ImportOutcome } from './import-records.js';
import type { Db } from './kysely/database.js';
import { type BackendParts, kyselyStore } from './kysely/store.js';
import type { ObservationBatch } from './observations.js';
import type { Database } from './schema.js';
import {
  type CheckpointerOptions,
  FALLBACK_AUTOCHECKPOINT_PAGES,
  SqliteCheckpointer,
} from './sqlite-checkpointer.js';
import { SqliteConnection } from './sqlite-connection.js';
import { importObservations } from './sqlite-import.js';
import {
  allowedOf,
  type ConsumeOutcome,
  type ConsumeRequest,
  type ImportOptions,
  type RateHistoryQuery,
  type Store,
  type UsageIncrement,
} from './store.js';
import { type BatchOutcome, type DailyIncrement, dailyOfTaken, type UsageCommit } from './usage-records.js';

/**
 * SQLite's codes for a store that cannot serve now: locked past the busy
 * timeout, not openable, an I/O error, a full disk, a read-only file.
 */
const SQLITE_UNAVAILABLE = /^(SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR.*|SQLITE_FULL|SQLITE_READONLY.*)$/;
export const isSqliteUnavailable: UnavailableTest = (err) => SQLITE_UNAVAILABLE.test(errorCode(err) ?? '');

/** The schema name of the usage file on every connection of a store. */
export const USAGE_SCHEMA = 'metering';

/** How long a statement waits for another process's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;
/** Pause before lastUsedAt values that met a busy store file are written again. */
const TOUCH_RETRY_MS = 1_000;

/**
 * The usage file beside a store: `data/mds.sqlite` → `data/mds-usage.sqlite`.
 * Not `mds.sqlite-usage`: operators delete `-wal` and `-shm` files when they
 * restore a copy, and a glob for those must not catch it.
 */
export function usageFilePath(path: string): string {
  if (path === ':memory:') return path;
  const ext = extname(path);
  return join(dirname(path), `${basename(path, ext)}-usage${ext}`);
}

/**
 * Kysely's transactions on SQLite begin IMMEDIATE: every one of them writes, and
 * a deferred transaction that reads first fails at once ("database is locked")
 * when it upgrades to a writer after another process has written meanwhile.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

export interface SqliteOpenOptions {
  readonly?: boolean;
  /**
   * For a serving process, WAL checkpoints run on a worker thread instead of
   * inside the commits of the event loop (sqlite-checkpointer.ts). One-shot
   * commands leave them to SQLite.
   */
  backgroundCheckpoints?: boolean | CheckpointerOptions;
}

/** The SQLite store, with its connection (tests count its prepared statements). */
export interface SqliteStore extends Store {
  readonly conn: SqliteConnection;
}

export const SqliteStore = {
  open(path: string, given: SqliteOpenOptions = {}): SqliteStore {
    try {
      // A full disk, simulated (tests): a file may not grow past this many pages.
      // Read once, by whichever process opens a store, for all its connections.
      const options: OpenSettings = { ...given, maxPages: setting('MDS_SQLITE_MAX_PAGES') };
      const conn = openConnection(path, options);
      const db: Db = new Kysely<Database>({
        dialect: new ImmediateSqliteDialect({ database: conn.forKysely() }),
      });
      const background = options.backgroundCheckpoints;
      let checkpointer: SqliteCheckpointer | undefined;
      if (background && !options.readonly && path !== ':memory:') {
        // The serving process writes the store file only for lastUsedAt, a page a
        // minute: the big writers there are imports, other processes whose own
        // connections checkpoint when they commit. A fallback checkpoint inside
        // a lastUsedAt commit right after a million-row import would copy its
        // whole WAL on the event loop; so none here while the thread runs (the
        // usage connection keeps its own, SqliteParts.usageDb).
        conn.db.exec('pragma main.wal_autocheckpoint = 0');
        const given = background === true ? {} : background;
        checkpointer = SqliteCheckpointer.start(path, {
          ...given,
          usagePath: usageFilePath(path),
          onError: (err) => {
            // The thread is gone: SQLite's own checkpoints take over.
            conn.db.exec(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
            given.onError?.(err);
          },
        });
      }
      const parts = new SqliteParts(path, options, conn, db, checkpointer);
      const store = kyselyStore('sqlite', db, parts, isSqliteUnavailable);
      return Object.assign(store, { conn });
    } catch (err) {
      throw classified(err, isSqliteUnavailable);
    }
  },
};

/**
 * A connection to the store file, with the usage file attached as `metering`
 * unless `attachUsage` is false (the import's connection), or the store is
 * opened read-only and has no usage file.
 */
interface OpenSettings extends SqliteOpenOptions {
  maxPages: string;
}

function openConnection(path: string, options: OpenSettings, attachUsage = true): SqliteConnection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const conn = SqliteConnection.open(path, { readonly: options.readonly ?? false });
  configure(conn, 'main', options);
  const usagePath = usageFilePath(path);
  if (attachUsage && (!options.readonly || existsSync(usagePath))) {
    conn.statement(`attach database ? as ${USAGE_SCHEMA}`).run(usagePath);
    configure(conn, USAGE_SCHEMA, options);
  }
  return conn;
}

/** The settings of one file of a connection (`main` or the attached usage file). */
function configure(conn: SqliteConnection, schema: string, options: OpenSettings): void {
  const { maxPages } = options;
  const raw = conn.db;
  if (schema === 'main') {
    raw.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
    raw.exec('pragma foreign_keys = ON');
  }
  if (!options.readonly) {
    raw.exec(`pragma ${schema}.journal_mode = WAL`);
    raw.exec(`pragma ${schema}.synchronous = NORMAL`);
  }
  if (maxPages) raw.exec(`pragma ${schema}.max_page_count = ${maxPages}`);
}

/** What SQLite runs on its raw connection, with statements prepared once. */
class SqliteParts implements BackendParts {
  private readonly raw: BetterSqlite3.Database;

  constructor(
    private readonly path: string,
    private readonly options: OpenSettings,
    private readonly conn: SqliteConnection,
    private readonly db: Db,
    private readonly checkpointer: SqliteCheckpointer | undefined,
  ) {
    this.raw = conn.db;
  }

  private usageConn?: SqliteConnection;
  private importConn?: SqliteConnection;

  /**
   * The usage file opened as a database of its own: the usage commits' BEGIN
   * IMMEDIATE then locks that file only (on a connection with it attached, it
   * would lock the store file too, and wait for an import). In memory, the one
   * connection (nothing else can open it).
   */
  private get usageDb(): BetterSqlite3.Database {
    if (this.path === ':memory:') return this.raw;
    if (!this.usageConn) {
      this.usageConn = SqliteConnection.open(usageFilePath(this.path), {
        readonly: this.options.readonly ?? false,
      });
      configure(this.usageConn, 'main', this.options);
      // Serving: the checkpointer thread moves these pages; this is its safety net.
      if (this.checkpointer) {
        this.usageConn.db.exec(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
      }
    }
    return this.usageConn.db;
  }

  private usageStatement(sql: string, mode?: 'pluck'): BetterSqlite3.Statement {
    this.usageDb;
    return (this.usageConn ?? this.conn).statement(sql, mode);
  }

  async importObservations(batch: ObservationBatch, options: ImportOptions): Promise<ImportOutcome> {
    // Its own connection, on the store file only: BEGIN IMMEDIATE locks every
    // attached file, and the usage file must stay writable by a serving process
    // for as long as the import runs (decisions 55).
    if (this.path !== ':memory:' && !this.importConn) {
      this.importConn = openConnection(this.path, this.options, false);
    }
    return importObservations(this.importConn ?? this.conn, batch, options);
  }

  async close(): Promise<void> {
    // The thread's connection first: closing the last connection checkpoints and removes the WAL.
    await this.checkpointer?.stop();
    this.importConn?.close();
    this.usageConn?.close();
    if (this.touchRetry) clearTimeout(this.touchRetry);
    await this.db.destroy();
  }

  // Prepared once, raw rows of numbers only: a history page reads up to 1 001 rows,
  // and building an object with two strings per row was most of its cost.
  private historyStmt?: BetterSqlite3.Statement;
  private historyBeforeStmt?: BetterSqlite3.Statement;

  async rateHistory(q: RateHistoryQuery): Promise<RateObservation[]> {
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

  // Prepared once: the usage commit runs on every tick that served a request.
  private usageTx?: (
    increments: readonly UsageIncrement[],
    daily: readonly DailyIncrement[],
    now: number,
  ) => void;
  private dailyUpsert?: BetterSqlite3.Statement;

  private addDaily(inc: DailyIncrement): void {
    this.dailyUpsert ??= this.usageStatement(
      `insert into usage_daily (grant_id, day, key_id, used) values (?, ?, ?, ?)
       on conflict (grant_id, day, key_id) do update set used = usage_daily.used + excluded.used`,
    );
    this.dailyUpsert.run(inc.grantId, inc.day, inc.keyId, inc.count);
  }

  /**
   * The batch id is not written here (usage-records.ts, usageBatchOutcome):
   * the commit runs in this process, so its failure is known to have rolled back.
   */
  async addUsage(
    increments: readonly UsageIncrement[],
    now: number,
    commit: UsageCommit = {},
  ): Promise<void> {
    if (increments.length === 0) return;
    if (!this.usageTx) {
      const upsert = this.usageStatement(
        `insert into usage (grant_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      );
      this.usageTx = this.usageDb.transaction(
        (list: readonly UsageIncrement[], daily: readonly DailyIncrement[], at: number) => {
          for (const inc of list) upsert.run(inc.grantId, inc.period, inc.count, at);
          for (const inc of daily) this.addDaily(inc);
        },
      );
    }
    this.usageTx(increments, commit.daily ?? [], now);
  }

  /** A SQLite commit that threw was rolled back in this process: never applied. */
  async usageBatchOutcome(): Promise<BatchOutcome> {
    return { applied: false, detail: null };
  }

  private consumeTx?: (requests: readonly ConsumeRequest[], now: number) => ConsumeOutcome[];

  /**
   * The store limiter's check-and-consume. BEGIN IMMEDIATE takes SQLite's write
   * lock before the counts are read, so another process's batch on the same
   * file cannot read them between our read and our write.
   */
  async consumeUsage(requests: readonly ConsumeRequest[], now: number): Promise<ConsumeOutcome[]> {
    if (requests.length === 0) return [];
    if (!this.consumeTx) {
      const month = this.usageStatement('select used from usage where grant_id = ? and period = ?', 'pluck');
      const minute = this.usageStatement('select window_start, used from minute_usage where grant_id = ?');
      const addMonth = this.usageStatement(
        `insert into usage (grant_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      );
      const setMinute = this.usageStatement(
        `insert into minute_usage (grant_id, window_start, used) values (?, ?, ?)
         on conflict (grant_id) do update set window_start = excluded.window_start, used = excluded.used`,
      );
      const tx = this.usageDb.transaction((list: readonly ConsumeRequest[], at: number) =>
        list.map((r) => {
          const monthUsed = Number(month.get(r.grantId, r.period) ?? 0);
          const held = minute.get(r.grantId) as { window_start: number; used: number } | undefined;
          // The window never moves backwards: see consumeUsage in postgres.ts.
          const window = held && held.window_start > r.window ? Number(held.window_start) : r.window;
          const minuteUsed = held && Number(held.window_start) === window ? Number(held.used) : 0;
          const allowed = allowedOf(
            r.count,
            r.requestsPerMinute,
            minuteUsed,
            r.monthlyRequestLimit,
            monthUsed,
          );
          if (allowed > 0) {
            addMonth.run(r.grantId, r.period, allowed, at);
            setMinute.run(r.grantId, window, minuteUsed + allowed);
            for (const inc of dailyOfTaken([r], [allowed], utcDay(at))) this.addDaily(inc);
          }
          return { window, minuteUsed, monthUsed, allowed };
        }),
      );
      this.consumeTx = (list, at) => tx.immediate(list, at);
    }
    return this.consumeTx(requests, now);
  }

  /** lastUsedAt values not yet written: the store file was busy (an import). */
  private untouched = new Map<string, number>();
  private touchRetry?: NodeJS.Timeout;
  private touchTx?: () => void;

  /**
   * Best effort, and never waits: the store file's write lock may be held for
   * seconds by an import in another process, and this runs on the event loop.
   * With the busy timeout at 0 a locked file fails at once; the values are kept
   * and written with the next call, or a second later (decisions 55).
   */
  async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    for (const u of uses) {
      const held = this.untouched.get(u.publicId);
      if (held === undefined || held < u.at) this.untouched.set(u.publicId, u.at);
    }
    if (this.untouched.size === 0) return;
    if (!this.touchTx) {
      const touch = this.conn.statement(
        'update api_keys set last_used_at = ? where public_id = ? and (last_used_at is null or last_used_at < ?)',
      );
      this.touchTx = this.raw.transaction(() => {
        for (const [publicId, at] of this.untouched) touch.run(at, publicId, at);
      });
    }
    this.raw.exec('pragma busy_timeout = 0');
    try {
      this.touchTx();
      this.untouched.clear();
    } catch (err) {
      if (!/^SQLITE_BUSY/.test(errorCode(err) ?? '')) throw err;
      this.touchRetry ??= setTimeout(() => {
        this.touchRetry = undefined;
        this.touchKeys([]).catch(() => {});
      }, TOUCH_RETRY_MS).unref();
    } finally {
      this.raw.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }
}
