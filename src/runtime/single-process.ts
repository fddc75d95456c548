/**
 * One serving process per SQLite file when limits are counted in memory
 * (docs/decisions.md 60). Two `mds serve` on one file would each count a
 * grant's window and month on their own and let it through twice, silently.
 * So the first process takes a lock beside the database and a second one is
 * refused with what to set instead. (Several processes are exact with Redis,
 * or on PostgreSQL, where the store decides: those topologies take no lock.)
 *
 * The lock is held by the kernel for the serving process (an open SQLite
 * connection's POSIX lock on `<store>.lock`, storage/sqlite-serving-lock.ts)
 * and released the moment that process ends, however it ends: a restart after
 * kill -9, on this host or another one sharing the volume, takes it at once.
 * Nothing is inferred from a pid or a host name.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { takeKernelLock } from '../storage/sqlite-serving-lock.js';

export class TopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TopologyError';
  }
}

export interface ProcessLock {
  readonly path: string;
  release(): void;
}

/** The lock file of the SQLite store at `databasePath`: one per file, however it is named (relative path, symlink). */
export function servingLockPath(databasePath: string): string {
  // The store itself may not exist yet (a first start creates it); its folder is made here.
  const folder = dirname(databasePath);
  mkdirSync(folder, { recursive: true });
  let real: string;
  try {
    real = realpathSync(databasePath);
  } catch {
    real = join(realpathSync(folder), basename(databasePath));
  }
  return `${real}.lock`;
}

/** Takes the serving lock of the SQLite file at `databasePath`, or throws TopologyError. */
export function lockSqliteFile(databasePath: string): ProcessLock {
  const path = servingLockPath(databasePath);
  const taken = takeKernelLock(path);
  if (taken.ok) {
    const release = () => {
      process.off('exit', release);
      taken.release();
    };
    process.on('exit', release);
    return { path, release };
  }
  const { holder } = taken;
  const who = holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.since}` : 'a running process';
  throw new TopologyError(
    `another mds serve (${who}) is serving ${databasePath}: it holds the serving lock ${path}. ` +
      'On SQLite without Redis the limits are counted in the serving process, so a second process would let ' +
      'every grant through twice. Run one process per SQLite file; for several, set MDS_REDIS_URL (shared counters) ' +
      'or use PostgreSQL (MDS_DATABASE_URL=postgres://…). Stop that process first: the lock is released the moment ' +
      'it ends, even by kill -9, so a restart takes it at once (never delete the lock file by hand).',
  );
}
