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
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Driver, Kysely, SqliteDialect } from 'kysely';
import type { GoldObservation, ImportSummary, RateObservation } from '../domain/types.js';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import type { ImportBatch, ImportOptions, RateHistoryQuery, UsageIncrement } from './store.js';

const PROGRESS_EVERY = 50_000;

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

  private constructor(private readonly raw: BetterSqlite3.Database) {
    super(new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: raw }) }));
  }

  static open(path: string, options: { readonly?: boolean } = {}): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const raw = new BetterSqlite3(path, { readonly: options.readonly ?? false });
    raw.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      raw.pragma('journal_mode = WAL');
      raw.pragma('synchronous = NORMAL');
    }
    raw.pragma('foreign_keys = ON');
    // A full disk, simulated (tests): the file may not grow past this many pages.
    const maxPages = process.env.MDS_SQLITE_MAX_PAGES;
    if (maxPages) {
      if (!/^[1-9]\d{0,9}$/.test(maxPages))
        throw new Error('MDS_SQLITE_MAX_PAGES: must be a positive integer');
      raw.pragma(`max_page_count = ${maxPages}`);
    }
    return new SqliteStore(raw);
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
    const run =
      batch.kind === 'rates'
        ? () => {
            const find = raw.prepare(
              'select buy, sell from rates where currency = ? and source = ? and updated_at = ?',
            );
            const insert = raw.prepare(
              'insert into rates (currency, source, updated_at, buy, sell) values (?, ?, ?, ?, ?) on conflict do nothing',
            );
            const update = raw.prepare(
              'update rates set buy = ?, sell = ? where currency = ? and source = ? and updated_at = ?',
            );
            let n = 0;
            for (const r of batch.records as RateObservation[]) {
              if (onProgress && ++n % PROGRESS_EVERY === 0) onProgress(n, batch.records.length);
              // Insert first: a new observation (the common case) costs one statement.
              if (insert.run(r.currency, r.source, r.updatedAt, r.buy, r.sell).changes === 1) {
                summary.inserted++;
                continue;
              }
              const old = find.get(r.currency, r.source, r.updatedAt) as { buy: number; sell: number };
              if (old.buy !== r.buy || old.sell !== r.sell) {
                update.run(r.buy, r.sell, r.currency, r.source, r.updatedAt);
                summary.updated++;
              } else summary.unchanged++;
            }
          }
        : () => {
            const find = raw.prepare('select buy, sell from gold where purity = ? and updated_at = ?');
            const insert = raw.prepare(
              'insert into gold (purity, updated_at, buy, sell) values (?, ?, ?, ?) on conflict do nothing',
            );
            const update = raw.prepare(
              'update gold set buy = ?, sell = ? where purity = ? and updated_at = ?',
            );
            let n = 0;
            for (const g of batch.records as GoldObservation[]) {
              if (onProgress && ++n % PROGRESS_EVERY === 0) onProgress(n, batch.records.length);
              if (insert.run(g.purity, g.updatedAt, g.buy, g.sell).changes === 1) {
                summary.inserted++;
                continue;
              }
              const old = find.get(g.purity, g.updatedAt) as { buy: number; sell: number };
              if (old.buy !== g.buy || old.sell !== g.sell) {
                update.run(g.buy, g.sell, g.purity, g.updatedAt);
                summary.updated++;
              } else summary.unchanged++;
            }
          };
    // IMMEDIATE: the batch reads before it writes, and a deferred transaction
    // upgrading to a writer fails at once ("database is locked") when another
    // process (a running server, a second import) has written meanwhile.
    raw
      .transaction(() => {
        run();
        if (summary.inserted + summary.updated > 0) {
          raw.prepare("update versions set value = value + 1 where name = 'data'").run();
        }
      })
      .immediate();
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
      this.historyStmt ??= this.raw.prepare(`${cols} order by updated_at desc limit ?`).raw();
      rows = this.historyStmt.all(q.currency, q.source, q.from, q.to, q.limit) as number[][];
    } else {
      this.historyBeforeStmt ??= this.raw
        .prepare(`${cols} and updated_at < ? order by updated_at desc limit ?`)
        .raw();
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
      const upsert = this.raw.prepare(
        `insert into usage (grant_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      );
      this.usageTx = this.raw.transaction((list: readonly UsageIncrement[], at: number) => {
        for (const inc of list) upsert.run(inc.grantId, inc.period, inc.count, at);
      });
    }
    this.usageTx(increments, now);
  }

  override async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    if (uses.length === 0) return;
    const touch = this.raw.prepare(
      'update api_keys set last_used_at = ? where public_id = ? and (last_used_at is null or last_used_at < ?)',
    );
    this.raw.transaction(() => {
      for (const u of uses) touch.run(u.at, u.publicId, u.at);
    })();
  }
}
