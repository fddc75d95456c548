/**
 * Embedded default: one SQLite file in WAL mode. WAL with synchronous=NORMAL
 * makes a committed transaction survive a crash of the process (kill -9); only a
 * power loss can take the last commits, which the embedded mode accepts.
 *
 * Writes that the server performs while serving (usage, lastUsedAt) and the bulk
 * import (sqlite-import.ts) go straight to better-sqlite3: they are synchronous,
 * so they cannot interleave with Kysely's queued queries on the shared connection.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import { setting } from '../config/setting.js';
import type { RateObservation } from '../domain/types.js';
import { classified, errorCode, type UnavailableTest } from './errors.js';
import type { Db } from './kysely/database.js';
import { type BackendParts, kyselyStore } from './kysely/store.js';
import type { ImportOutcome } from './import-records.js';
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
  open(path: string, options: SqliteOpenOptions = {}): SqliteStore {
    try {
      const conn = openConnection(path, options);
      const db: Db = new Kysely<Database>({
        dialect: new ImmediateSqliteDialect({ database: conn.forKysely() }),
      });
      const background = options.backgroundCheckpoints;
      let checkpointer: SqliteCheckpointer | undefined;
      if (background && !options.readonly && path !== ':memory:') {
        conn.db.exec(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
        checkpointer = SqliteCheckpointer.start(path, background === true ? {} : background);
      }
      const store = kyselyStore('sqlite', db, new SqliteParts(conn, db, checkpointer), isSqliteUnavailable);
      return Object.assign(store, { conn });
    } catch (err) {
      throw classified(err, isSqliteUnavailable);
    }
  },
};

function openConnection(path: string, options: SqliteOpenOptions): SqliteConnection {
  // A full disk, simulated (tests): the file may not grow past this many pages.
  // Read here, by whichever process opens a store; checked before anything opens.
  const maxPages = setting('MDS_SQLITE_MAX_PAGES');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const conn = SqliteConnection.open(path, { readonly: options.readonly ?? false });
  const raw = conn.db;
  raw.exec('pragma busy_timeout = 5000');
  if (!options.readonly) {
    raw.exec('pragma journal_mode = WAL');
    raw.exec('pragma synchronous = NORMAL');
  }
  raw.exec('pragma foreign_keys = ON');
  if (maxPages) raw.exec(`pragma max_page_count = ${maxPages}`);
  return conn;
}

/** What SQLite runs on its raw connection, with statements prepared once. */
class SqliteParts implements BackendParts {
  private readonly raw: BetterSqlite3.Database;

  constructor(
    private readonly conn: SqliteConnection,
    private readonly db: Db,
    private readonly checkpointer: SqliteCheckpointer | undefined,
  ) {
    this.raw = conn.db;
  }

  async importObservations(batch: ObservationBatch, options: ImportOptions): Promise<ImportOutcome> {
    return importObservations(this.conn, batch, options);
  }

  async close(): Promise<void> {
    // The thread's connection first: closing the last connection checkpoints and removes the WAL.
    await this.checkpointer?.stop();
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
  private usageTx?: (increments: readonly UsageIncrement[], now: number) => void;

  async addUsage(increments: readonly UsageIncrement[], now: number): Promise<void> {
    if (increments.length === 0) return;
    if (!this.usageTx) {
      const upsert = this.conn.statement(
        `insert into usage (grant_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      );
      this.usageTx = this.raw.transaction((list: readonly UsageIncrement[], at: number) => {
        for (const inc of list) upsert.run(inc.grantId, inc.period, inc.count, at);
      });
    }
    this.usageTx(increments, now);
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
      const month = this.conn.statement('select used from usage where grant_id = ? and period = ?', 'pluck');
      const minute = this.conn.statement('select window_start, used from minute_usage where grant_id = ?');
      const addMonth = this.conn.statement(
        `insert into usage (grant_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      );
      const setMinute = this.conn.statement(
        `insert into minute_usage (grant_id, window_start, used) values (?, ?, ?)
         on conflict (grant_id) do update set window_start = excluded.window_start, used = excluded.used`,
      );
      const tx = this.raw.transaction((list: readonly ConsumeRequest[], at: number) =>
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
          }
          return { window, minuteUsed, monthUsed, allowed };
        }),
      );
      this.consumeTx = (list, at) => tx.immediate(list, at);
    }
    return this.consumeTx(requests, now);
  }

  async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    if (uses.length === 0) return;
    const touch = this.conn.statement(
      'update api_keys set last_used_at = ? where public_id = ? and (last_used_at is null or last_used_at < ?)',
    );
    this.raw.transaction(() => {
      for (const u of uses) touch.run(u.at, u.publicId, u.at);
    })();
  }
}
