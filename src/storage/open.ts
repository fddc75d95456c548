/**
 * Chooses the backend from a URL (decisions §11): `postgres://…` or
 * `postgresql://…` for PostgreSQL; a file path or `sqlite:<path>` for SQLite.
 */
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export const DEFAULT_DATABASE = './data/mds.sqlite';

export interface OpenOptions {
  /** The store of a long-running server: SQLite then checkpoints on a thread of its own. */
  serving?: boolean;
  /**
   * Told when that background work fails (the server logs it). SQLite's own
   * automatic checkpoint then takes over, so serving goes on.
   */
  onBackgroundError?: (err: Error) => void;
}

/** The SQLite file a URL names, or null for PostgreSQL. */
export function sqlitePath(url: string = DEFAULT_DATABASE): string | null {
  if (/^postgres(ql)?:\/\//.test(url)) return null;
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  if (path === '') throw new Error('sqlite: needs a file path, e.g. sqlite:./data/mds.sqlite');
  return path;
}

export function openStore(url: string = DEFAULT_DATABASE, options: OpenOptions = {}): Store {
  const path = sqlitePath(url);
  if (path === null) return PostgresStore.open(url);
  return SqliteStore.open(path, {
    backgroundCheckpoints: options.serving === true && { onError: options.onBackgroundError },
  });
}

/** What an operator may see of a database URL: never its password. */
export function describeStore(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
