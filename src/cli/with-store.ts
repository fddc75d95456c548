import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_DATABASE, openStore, sqlitePath } from '../storage/open.js';
import type { Store } from '../storage/store.js';
import { CliError } from './output.js';

/** Runs `fn` on the store at `url`, migrated first, and closes it. */
export async function withStore<T>(url: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Refuses a SQLite store file that does not exist (decisions 90): main.ts calls
 * it before every command that does not declare `createsStore`, so a mistyped
 * --db or a command typed in the wrong folder creates nothing. PostgreSQL
 * already refuses a database that does not exist.
 */
export function requireExistingStore(url: string | undefined): void {
  const path = sqlitePath(url ?? DEFAULT_DATABASE);
  if (path === null || path === ':memory:' || existsSync(path)) return;
  throw new CliError(
    `no store at ${resolve(path)}: run \`mds init\` first (it creates one there), or pass --db <file or URL> (or set MDS_DATABASE_URL) to name an existing one`,
    1,
  );
}
