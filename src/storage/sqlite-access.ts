/**
 * The access repository on SQLite: `lastUsedAt` written straight on
 * better-sqlite3, never waiting for the store file's lock; the rest as Kysely
 * writes it (kysely/access.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { errorCode } from './errors.js';
import { KyselyAccess } from './kysely/access.js';
import type { Db } from './kysely/database.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { BUSY_TIMEOUT_MS } from './sqlite-files.js';

/** Pause before lastUsedAt values that met a busy store file are written again. */
const TOUCH_RETRY_MS = 1_000;

export class SqliteAccess extends KyselyAccess {
  private readonly raw: BetterSqlite3.Database;

  constructor(
    db: Db,
    private readonly conn: SqliteConnection,
  ) {
    super(db);
    this.raw = conn.db;
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
  override async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
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

  /** The store is closing: no retry left behind. */
  stopRetries(): void {
    if (this.touchRetry) clearTimeout(this.touchRetry);
  }
}
