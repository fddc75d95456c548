/**
 * The files of a SQLite store and how a connection to them is opened (sqlite.ts
 * says why two files, decisions 55): the store file, with the usage file
 * beside it attached as `metering`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { type CheckpointerOptions, WAL_LIMIT_BYTES } from './sqlite-checkpointer.js';
import { SqliteConnection } from './sqlite-connection.js';

/** The schema name of the usage file on every connection of a store. */
export const USAGE_SCHEMA = 'metering';

/** How long a statement waits for another process's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

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

export interface SqliteOpenOptions {
  readonly?: boolean;
  /**
   * For a serving process, WAL checkpoints run on a worker thread instead of
   * inside the commits of the event loop (sqlite-checkpointer.ts). One-shot
   * commands leave them to SQLite.
   */
  backgroundCheckpoints?: boolean | CheckpointerOptions;
}

/**
 * A connection to the store file, with the usage file attached as `metering`
 * unless `attachUsage` is false (the import's connection), or the store is
 * opened read-only and has no usage file.
 */
export interface OpenSettings extends SqliteOpenOptions {
  maxPages: string;
}

export function openConnection(path: string, options: OpenSettings, attachUsage = true): SqliteConnection {
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
export function configure(conn: SqliteConnection, schema: string, options: OpenSettings): void {
  const { maxPages } = options;
  const raw = conn.db;
  if (schema === 'main') {
    raw.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
    raw.exec('pragma foreign_keys = ON');
  }
  if (!options.readonly) {
    raw.exec(`pragma ${schema}.journal_mode = WAL`);
    raw.exec(`pragma ${schema}.synchronous = NORMAL`);
    raw.exec(`pragma ${schema}.journal_size_limit = ${WAL_LIMIT_BYTES}`);
  }
  if (maxPages) raw.exec(`pragma ${schema}.max_page_count = ${maxPages}`);
}
