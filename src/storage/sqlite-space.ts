/**
 * The probe of a full SQLite store (space.ts), run on each file's writing
 * connection: the filesystem must have MIN_FREE_BYTES available, and SQLite
 * must be able to give the file PROBE_BYTES more pages, in a transaction that
 * is rolled back. The first finds a disk freed; the second a file's page cap
 * (max_page_count) raised, or pages freed inside the file, since SQLite
 * checks the cap when it allocates a page, before any commit.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { BUSY_TIMEOUT_MS } from './sqlite-files.js';

/** What a file's disk must have free before writes are tried again: a few usage commits' worth of WAL. */
export const MIN_FREE_BYTES = 1024 * 1024;
const PROBE_BYTES = 64 * 1024;

export function probeSqliteFile(db: BetterSqlite3.Database, path: string): void {
  if (path === ':memory:') return;
  const fs = statfsSync(dirname(path));
  const free = Number(fs.bavail) * Number(fs.bsize);
  if (free < MIN_FREE_BYTES) throw new Error(`${free} bytes free beside ${path}`);
  // A transaction of this connection is open (Kysely's, between two awaits): next time.
  if (db.inTransaction) throw new Error('the connection is in a transaction');
  // This runs on the event loop: never wait for another process's lock (an import).
  db.exec('pragma busy_timeout = 0');
  try {
    db.exec('begin immediate');
    try {
      db.exec('create table main.mds_space_probe (filler blob)');
      db.exec(`insert into main.mds_space_probe values (zeroblob(${PROBE_BYTES}))`);
    } finally {
      // SQLite may have rolled back by itself on SQLITE_FULL: never a second rollback.
      if (db.inTransaction) db.exec('rollback');
    }
  } finally {
    db.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}
