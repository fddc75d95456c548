/**
 * One serving process per SQLite file when limits are counted in memory
 * (issue #13). Two `mds serve` on one file would each count a grant's window
 * and month on their own and let it through twice, silently. So the first
 * process takes a lock file beside the database and a second one is refused
 * with what to set instead. (Several processes are exact with Redis, or on
 * PostgreSQL, where the store decides: those topologies take no lock.)
 *
 * The lock names its holder (pid, host). A holder that is gone (kill -9, a
 * crash) leaves the file behind; a process on the same host that is no longer
 * running does not hold it, so a restart takes it over at once.
 */
import { closeSync, mkdirSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

export class TopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TopologyError';
  }
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): Holder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder;
  } catch {
    return null; // gone meanwhile, or half-written by a holder that died writing it
  }
}

export interface ProcessLock {
  readonly path: string;
  release(): void;
}

/** Takes the serving lock of the SQLite file at `databasePath`, or throws TopologyError. */
export function lockSqliteFile(databasePath: string): ProcessLock {
  // One lock per file, however it is named (relative path, symlink). The file
  // itself may not exist yet (a first start creates it); its folder is made here.
  const folder = dirname(databasePath);
  mkdirSync(folder, { recursive: true });
  let real: string;
  try {
    real = realpathSync(databasePath);
  } catch {
    real = join(realpathSync(folder), basename(databasePath));
  }
  const path = `${real}.serve-lock`;
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        // Only our own lock: never one a later process took over.
        if (readHolder(path)?.pid === me.pid) unlinkSync(path);
      };
      process.on('exit', release);
      return { path, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(path);
    if (holder && holder.pid !== process.pid && (holder.host !== me.host || alive(holder.pid))) {
      throw new TopologyError(
        `another mds serve (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is serving ${databasePath}. ` +
          'On SQLite without Redis the limits are counted in the serving process, so a second process would let ' +
          'every grant through twice. Run one process per SQLite file; for several, set MDS_REDIS_URL (shared counters) or use PostgreSQL (MDS_DATABASE_URL=postgres://…). If that process is gone, delete ' +
          path,
      );
    }
    // Left by a process that is no longer running: take it over.
    try {
      unlinkSync(path);
    } catch {}
  }
  throw new TopologyError(`could not take the serving lock ${path}`);
}
