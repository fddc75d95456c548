/**
 * The usage repository on SQLite: the commits on the request path run straight
 * on better-sqlite3, synchronous, on a connection of their own to the usage
 * file (sqlite.ts, decisions 55); the reads as Kysely writes them
 * (kysely/usage.ts).
 */
import { statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { utcDay } from '../domain/dates.js';
import type { Db } from './kysely/database.js';
import { KyselyUsage } from './kysely/usage.js';
import {
  allowedOf,
  type ConsumeOutcome,
  type ConsumeRequest,
  type UsageIncrement,
} from './repositories/usage.js';
import { SERVING_AUTOCHECKPOINT_PAGES, WAL_LIMIT_BYTES } from './sqlite-checkpointer.js';
import { SqliteConnection } from './sqlite-connection.js';
import { configure, type OpenSettings, usageFilePath } from './sqlite-files.js';
import { probeSqliteFile } from './sqlite-space.js';
import { type BatchOutcome, type DailyIncrement, dailyOfTaken, type UsageCommit } from './usage-records.js';

/** How often the store file's WAL is looked at once an import has stopped writing. */
const QUIET_POLL_MS = 250;
/** The longest the usage commits go without checkpointing after an import. */
const QUIET_MAX_MS = 60_000;

export class SqliteUsage extends KyselyUsage {
  private readonly raw: BetterSqlite3.Database;

  constructor(
    db: Db,
    private readonly path: string,
    private readonly options: OpenSettings,
    private readonly conn: SqliteConnection,
    /** Serving: a checkpointer thread moves the usage file's pages. */
    private readonly checkpointed: boolean,
  ) {
    super(db);
    this.raw = conn.db;
  }

  private usageConn?: SqliteConnection;

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
      // Serving: the checkpointer thread moves these pages; this copies what it has
      // not yet and lets the WAL restart (sqlite-checkpointer.ts says why).
      if (this.checkpointed) {
        this.usageConn.db.exec(`pragma wal_autocheckpoint = ${SERVING_AUTOCHECKPOINT_PAGES}`);
      }
    }
    return this.usageConn.db;
  }

  /**
   * While admin imports run (their bodies written to files, then the store
   * file), and until the checkpointer thread has copied the store's WAL back
   * and cut it to WAL_LIMIT_BYTES, the disk is flooded and any sync waits
   * behind it: a usage commit's own checkpoint (copy and
   * fsync, on the event loop) then held the loop 150-350 ms (the admin-imports
   * bench row). So none meanwhile: the thread keeps copying the usage file,
   * whose WAL grows by the commits of that time, and the first commit after it
   * checkpoints and lets that WAL restart (docs/decisions.md 98). At most
   * QUIET_MAX_MS past the import, whatever the store file's WAL.
   */
  quietCheckpoints(quiet: boolean): void {
    if (!this.checkpointed || this.path === ':memory:') return;
    clearInterval(this.quietTimer);
    this.quietTimer = undefined;
    const set = (pages: number) => {
      this.usageDb.exec(`pragma wal_autocheckpoint = ${pages}`);
    };
    if (quiet) {
      set(0);
      return;
    }
    const until = Date.now() + QUIET_MAX_MS;
    const settled = () =>
      (statSync(`${this.path}-wal`, { throwIfNoEntry: false })?.size ?? 0) <= WAL_LIMIT_BYTES;
    if (settled()) {
      set(SERVING_AUTOCHECKPOINT_PAGES);
      return;
    }
    this.quietTimer = setInterval(() => {
      if (!settled() && Date.now() < until) return;
      clearInterval(this.quietTimer);
      this.quietTimer = undefined;
      set(SERVING_AUTOCHECKPOINT_PAGES);
    }, QUIET_POLL_MS).unref();
  }

  private quietTimer?: NodeJS.Timeout;

  private usageStatement(sql: string, mode?: 'pluck'): BetterSqlite3.Statement {
    this.usageDb;
    return (this.usageConn ?? this.conn).statement(sql, mode);
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
  override async addUsage(
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
  override async usageBatchOutcome(): Promise<BatchOutcome> {
    return { applied: false, detail: null };
  }

  private consumeTx?: (requests: readonly ConsumeRequest[], now: number) => ConsumeOutcome[];

  /**
   * The store limiter's check-and-consume. BEGIN IMMEDIATE takes SQLite's write
   * lock before the counts are read, so another process's batch on the same
   * file cannot read them between our read and our write.
   */
  override async consumeUsage(requests: readonly ConsumeRequest[], now: number): Promise<ConsumeOutcome[]> {
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

  /** The connection that writes the usage file (the store's own in memory). */
  connection(): SqliteConnection {
    this.usageDb;
    return this.usageConn ?? this.conn;
  }

  /** The probe of a full store (sqlite-space.ts) on the usage file. */
  probeSpace(): void {
    if (this.path !== ':memory:') probeSqliteFile(this.usageDb, usageFilePath(this.path));
  }

  /** The usage file's own connection, closed with the store. */
  closeConnection(): void {
    this.usageConn?.close();
  }
}
