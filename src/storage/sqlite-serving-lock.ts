/**
 * A lock the kernel holds for a process, and releases the moment that process
 * ends, however it ends (docs/decisions.md 60).
 *
 * Node has no flock(); SQLite's own locks are POSIX advisory locks (fcntl) on
 * the database file, held per process and dropped by the kernel when the
 * process exits: kill -9, a crash, a zombie nobody reaps (its files are closed
 * at exit, before it is reaped), a process in another UTS or pid namespace,
 * on another host of a shared volume whose file system supports POSIX locks.
 * So the lock is a small SQLite file in rollback-journal mode (in WAL mode a
 * writer's lock is a byte of the -shm file, which a second process could
 * reinitialise), on which one dedicated connection holds a RESERVED lock
 * (`BEGIN IMMEDIATE`, never committed) for the life of the process. A second
 * taker's `BEGIN IMMEDIATE` fails at once (busy timeout 0); it can still read
 * (RESERVED admits readers), so it reads who holds the lock: the holder writes
 * its pid, host and start time, committed, just before it takes the lock for
 * good. That record only informs the message; it never decides anything.
 */
import { hostname } from 'node:os';
import { SqliteConnection } from './sqlite-connection.js';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export type KernelLock =
  | { ok: true; release(): void }
  /** `holder`: who holds it, as it wrote itself down; null when the record could not be read. */
  | { ok: false; holder: LockHolder | null };

const HOLDER_TABLE =
  'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)';

function busy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function readHolder(lock: SqliteConnection): LockHolder | null {
  // The holder commits its record with a brief EXCLUSIVE lock: retried for a moment.
  const deadline = Date.now() + 1_000;
  for (;;) {
    try {
      const row = lock.statement('SELECT pid, host, since FROM holder WHERE id = 1').get() as
        | LockHolder
        | undefined;
      return row ?? null;
    } catch (err) {
      if (!busy(err) || Date.now() > deadline) return null;
    }
  }
}

/**
 * Takes the kernel-held lock on the SQLite file at `path` (created if missing),
 * or says who holds it. The connection stays open until `release()` or the
 * end of the process; it holds no event-loop handle.
 */
export function takeKernelLock(path: string): KernelLock {
  const lock = SqliteConnection.open(path, { timeout: 0 });
  const refused = (): KernelLock => {
    const holder = readHolder(lock);
    lock.close();
    return { ok: false, holder };
  };
  try {
    lock.db.exec('PRAGMA journal_mode = DELETE');
    lock.db.exec(HOLDER_TABLE);
  } catch (err) {
    // Another process is creating the file or holds it during its own set-up.
    if (!busy(err)) {
      lock.close();
      throw err;
    }
    return refused();
  }
  try {
    lock.db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if (!busy(err)) {
      lock.close();
      throw err;
    }
    return refused();
  }
  try {
    lock
      .statement('INSERT OR REPLACE INTO holder (id, pid, host, since) VALUES (1, ?, ?, ?)')
      .run(process.pid, hostname(), new Date().toISOString());
    lock.db.exec('COMMIT');
    // Between COMMIT and this BEGIN another process may take the lock: then it won.
    lock.db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if (lock.db.inTransaction) lock.db.exec('ROLLBACK');
    if (!busy(err)) {
      lock.close();
      throw err;
    }
    return refused();
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      lock.db.exec('ROLLBACK');
      lock.close();
    } catch {
      // The file may be gone (its folder removed): the lock goes with the process anyway.
    }
  };
  return { ok: true, release };
}
