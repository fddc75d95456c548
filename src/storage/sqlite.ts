/**
 * Embedded default: one SQLite file in WAL mode. WAL with synchronous=NORMAL
 * makes a committed transaction survive a crash of the process (kill -9); only a
 * power loss can take the last commits, which the embedded mode accepts.
 *
 * Writes that the server performs while serving (usage, lastUsedAt) and the bulk
 * import go straight to better-sqlite3: they are synchronous, so they cannot
 * interleave with Kysely's queued queries on the shared connection.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import type { GoldObservation, ImportSummary, RateObservation } from '../domain/types.js';
import { classified, errorCode, guarded, type UnavailableTest } from './errors.js';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import {
  type CheckpointerOptions,
  FALLBACK_AUTOCHECKPOINT_PAGES,
  SqliteCheckpointer,
} from './sqlite-checkpointer.js';
import { SqliteConnection } from './sqlite-connection.js';
import {
  allowedOf,
  type ConsumeOutcome,
  type ConsumeRequest,
  type ImportBatch,
  type ImportOptions,
  type RateHistoryQuery,
  UnknownAssetsError,
  type UsageIncrement,
} from './store.js';

const PROGRESS_EVERY = 50_000;
/** Records per multi-row INSERT of an import (500 bound parameters for rates). */
const CHUNK = 100;

/** How an import writes one kind of observation: its key columns, then buy and sell. */
interface ObservationTable {
  name: 'rates' | 'gold';
  key: readonly string[];
  values: readonly ['buy', 'sell'];
  keyOf(r: RateObservation | GoldObservation): Array<string | number>;
  /** Writes the record's key then values into `params` from `at`. */
  fill(r: RateObservation | GoldObservation, params: Array<string | number>, at: number): void;
}

const RATES: ObservationTable = {
  name: 'rates',
  key: ['currency', 'source', 'updated_at'],
  values: ['buy', 'sell'],
  keyOf: (r) => [(r as RateObservation).currency, (r as RateObservation).source, r.updatedAt],
  fill(r, params, at) {
    const o = r as RateObservation;
    params[at] = o.currency;
    params[at + 1] = o.source;
    params[at + 2] = o.updatedAt;
    params[at + 3] = o.buy;
    params[at + 4] = o.sell;
  },
};

const GOLD: ObservationTable = {
  name: 'gold',
  key: ['purity', 'updated_at'],
  values: ['buy', 'sell'],
  keyOf: (r) => [(r as GoldObservation).purity, r.updatedAt],
  fill(r, params, at) {
    const o = r as GoldObservation;
    params[at] = o.purity;
    params[at + 1] = o.updatedAt;
    params[at + 2] = o.buy;
    params[at + 3] = o.sell;
  },
};

/**
 * SQLite's codes for a store that cannot serve now: locked past the busy
 * timeout, not openable, an I/O error, a full disk, a read-only file.
 */
const SQLITE_UNAVAILABLE = /^(SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR.*|SQLITE_FULL|SQLITE_READONLY.*)$/;
export const isSqliteUnavailable: UnavailableTest = (err) => SQLITE_UNAVAILABLE.test(errorCode(err) ?? '');

/** The foreign key of rates, for a whole import at once: throws before anything is written. */
function assertKnownCurrencies(conn: SqliteConnection, records: readonly RateObservation[]): void {
  const known = new Set(conn.statement('select code from assets', 'pluck').all() as string[]);
  const unknown = new Set<string>();
  for (const r of records) if (!known.has(r.currency)) unknown.add(r.currency);
  if (unknown.size > 0) throw new UnknownAssetsError([...unknown].sort());
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

export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite' as const;

  private checkpointer?: SqliteCheckpointer;

  private readonly raw: BetterSqlite3.Database;

  private constructor(private readonly conn: SqliteConnection) {
    super(new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: conn.forKysely() }) }));
    this.raw = conn.db;
  }

  /**
   * `backgroundCheckpoints`: for a serving process, WAL checkpoints run on a
   * worker thread instead of inside the commits of the event loop
   * (sqlite-checkpointer.ts). One-shot commands leave them to SQLite.
   */
  static open(
    path: string,
    options: { readonly?: boolean; backgroundCheckpoints?: boolean | CheckpointerOptions } = {},
  ): SqliteStore {
    try {
      return guarded(SqliteStore.openUnguarded(path, options), isSqliteUnavailable);
    } catch (err) {
      throw classified(err, isSqliteUnavailable);
    }
  }

  private static openUnguarded(
    path: string,
    options: { readonly?: boolean; backgroundCheckpoints?: boolean | CheckpointerOptions },
  ): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const conn = SqliteConnection.open(path, { readonly: options.readonly ?? false });
    const raw = conn.db;
    raw.exec('pragma busy_timeout = 5000');
    if (!options.readonly) {
      raw.exec('pragma journal_mode = WAL');
      raw.exec('pragma synchronous = NORMAL');
    }
    raw.exec('pragma foreign_keys = ON');
    // A full disk, simulated (tests): the file may not grow past this many pages.
    const maxPages = process.env.MDS_SQLITE_MAX_PAGES;
    if (maxPages) {
      if (!/^[1-9]\d{0,9}$/.test(maxPages))
        throw new Error('MDS_SQLITE_MAX_PAGES: must be a positive integer');
      raw.exec(`pragma max_page_count = ${maxPages}`);
    }
    const store = new SqliteStore(conn);
    const background = options.backgroundCheckpoints;
    if (background && !options.readonly && path !== ':memory:') {
      raw.exec(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
      store.checkpointer = SqliteCheckpointer.start(path, background === true ? {} : background);
    }
    return store;
  }

  override async close(): Promise<void> {
    // The thread's connection first: closing the last connection checkpoints and removes the WAL.
    await this.checkpointer?.stop();
    await super.close();
  }

  protected async importObservations(
    batch: Exclude<ImportBatch, { kind: 'assets' }>,
    { onProgress }: ImportOptions,
  ): Promise<ImportSummary> {
    const summary: ImportSummary = {
      kind: batch.kind,
      received: batch.records.length,
      inserted: 0,
      updated: 0,
      unchanged: 0,
    };
    const raw = this.raw;
    const conn = this.conn;
    const table = batch.kind === 'rates' ? RATES : GOLD;
    const records = batch.records as ReadonlyArray<RateObservation | GoldObservation>;
    const cols = `(${[...table.key, ...table.values].join(', ')})`;
    const row = `(${[...table.key, ...table.values].map(() => '?').join(', ')})`;
    const width = table.key.length + table.values.length;
    const insertChunk = conn.statement(
      `insert into ${table.name} ${cols} values ${Array(CHUNK).fill(row).join(', ')} on conflict do nothing`,
    );
    const insert = conn.statement(`insert into ${table.name} ${cols} values ${row} on conflict do nothing`);
    const where = table.key.map((c) => `${c} = ?`).join(' and ');
    const find = conn.statement(`select ${table.values.join(', ')} from ${table.name} where ${where}`, 'raw');
    const update = conn.statement(
      `update ${table.name} set ${table.values.map((c) => `${c} = ?`).join(', ')} where ${where}`,
    );
    const savepoint = conn.statement('savepoint chunk');
    const release = conn.statement('release chunk');
    const rollback = conn.statement('rollback to chunk');

    /** One record on its own: insert, or compare with the stored one and update if it differs. */
    const one = (r: RateObservation | GoldObservation) => {
      const key = table.keyOf(r);
      const values = [r.buy, r.sell];
      if (insert.run(...key, ...values).changes === 1) {
        summary.inserted++;
        return;
      }
      const old = find.get(...key) as number[];
      if (old[0] !== r.buy || old[1] !== r.sell) {
        update.run(...values, ...key);
        summary.updated++;
      } else summary.unchanged++;
    };

    // New observations (the common case) go in CHUNK rows per statement: half the
    // time of a statement per row (bench: 2.0 s → 1.0 s per million). A chunk
    // that meets a stored key is rolled back to its savepoint and taken row by
    // row, which tells inserted, updated and unchanged records apart.
    const run = () => {
      const params = new Array<string | number>(CHUNK * width);
      let i = 0;
      for (; i + CHUNK <= records.length; i += CHUNK) {
        for (let j = 0; j < CHUNK; j++) table.fill(records[i + j]!, params, j * width);
        savepoint.run();
        if (insertChunk.run(params).changes === CHUNK) summary.inserted += CHUNK;
        else {
          rollback.run();
          for (let j = 0; j < CHUNK; j++) one(records[i + j]!);
        }
        release.run();
        if (onProgress && (i + CHUNK) % PROGRESS_EVERY === 0) onProgress(i + CHUNK, records.length);
      }
      for (; i < records.length; i++) one(records[i]!);
    };
    // The foreign key of rates (currency → assets) is checked once per import,
    // inside its transaction, instead of by SQLite on every row: that per-row
    // lookup in assets was a tenth of the import (profile, issue #5). The pragma
    // applies to this connection only and is restored before anything else can
    // run on it (this block is synchronous). Gold has no foreign key.
    const checkAssetsHere =
      batch.kind === 'rates' && conn.statement('pragma foreign_keys', 'pluck').get() === 1;
    if (checkAssetsHere) raw.exec('pragma foreign_keys = OFF');
    try {
      // IMMEDIATE: the batch reads before it writes, and a deferred transaction
      // upgrading to a writer fails at once ("database is locked") when another
      // process (a running server, a second import) has written meanwhile.
      raw
        .transaction(() => {
          if (checkAssetsHere) assertKnownCurrencies(conn, records as readonly RateObservation[]);
          run();
          if (summary.inserted + summary.updated > 0) {
            conn.statement("update versions set value = value + 1 where name = 'data'").run();
          }
        })
        .immediate();
    } finally {
      if (checkAssetsHere) raw.exec('pragma foreign_keys = ON');
    }
    return summary;
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

  // Prepared once: the usage commit runs on every tick that served a request.
  private usageTx?: (increments: readonly UsageIncrement[], now: number) => void;

  override async addUsage(increments: readonly UsageIncrement[], now: number): Promise<void> {
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
  override async consumeUsage(requests: readonly ConsumeRequest[], now: number): Promise<ConsumeOutcome[]> {
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
          // The window never moves backwards: see PostgresStore.consumeUsage.
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

  override async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    if (uses.length === 0) return;
    const touch = this.conn.statement(
      'update api_keys set last_used_at = ? where public_id = ? and (last_used_at is null or last_used_at < ?)',
    );
    this.raw.transaction(() => {
      for (const u of uses) touch.run(u.at, u.publicId, u.at);
    })();
  }
}
