/**
 * WAL checkpoints of a serving SQLite store, run on a worker thread.
 *
 * Why (p99 at most 2x the bare node:http p99): every usage commit
 * appends a page or two to the WAL, so under load SQLite's automatic checkpoint
 * (every 1,000 pages) ran every second or two, on the event loop, inside a
 * commit: it copies the WAL back into the database file and syncs both. Requests
 * that arrived meanwhile waited for it. Measured with the same load, in the same
 * run: p99 8.0 ms with automatic checkpoints, 5.7 ms without, against 4.6 ms for
 * the bare node:http server (median of 8 rounds, docs/performance.md).
 *
 * A PASSIVE checkpoint on a second connection never blocks the serving one
 * (readers and the writer go on while it copies), so it runs on a thread of
 * its own, every EVERY_MS. But a PASSIVE checkpoint copies only the frames
 * committed before it began, and under steady writes a commit always lands
 * while it copies: the WAL was never found fully copied when a commit began,
 * so it never restarted from its start and grew to the serving connection's
 * fallback (41 MB at 10,000 pages), a size it then kept on disk. So the
 * serving connection checkpoints itself at SERVING_AUTOCHECKPOINT_PAGES
 * (4 MB): by then the thread has copied all but the last EVERY_MS of frames,
 * the connection copies that tail, inside its commit, and its next commit
 * restarts the WAL from its start; `journal_size_limit` (sqlite-files.ts)
 * then truncates the file. A WAL left larger than that by one big transaction
 * (an import) is truncated by the thread once the file is idle and copied. The
 * WAL stays under about 5 MB (docs/decisions.md 98). If the thread stops, the
 * serving connection's setting checkpoints everything.
 *
 * Durability is unchanged: a commit is durable (against a crash of the process)
 * once it is in the WAL, which is before the request is answered; checkpoints
 * only move pages from the WAL into the main file.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The size a WAL file is cut back to when it starts again from its beginning
 * (SQLite's `journal_size_limit`): without it the file keeps the largest size
 * it ever reached (docs/decisions.md 98).
 */
export const WAL_LIMIT_BYTES = 4 * 1024 * 1024;

/** Pages the serving connection lets the WAL reach before it checkpoints what the thread has not (4 MB). */
export const SERVING_AUTOCHECKPOINT_PAGES = 1_000;

/** How often the thread checkpoints: what it leaves to the serving connection is this long's commits. */
const EVERY_MS = 100;

/** What one checkpoint that moved pages reports: SQLite's `wal_checkpoint` row. */
export interface CheckpointResult {
  /** 1 when the checkpoint could not finish (a reader holds an old snapshot): it retries next time. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames now copied into the database file. */
  checkpointed: number;
}

export interface CheckpointerOptions {
  /** How often the thread checkpoints. */
  everyMs?: number;
  /** Told of every checkpoint that copied frames (tests, metrics). */
  onCheckpoint?: (result: CheckpointResult) => void;
  /** Told when the thread fails; the serving connection's own checkpoint takes over. */
  onError?: (err: Error) => void;
  /** The store's usage file (sqlite-files.ts usageFilePath), checkpointed on the same thread. */
  usagePath?: string;
}

// The thread's code. It loads better-sqlite3 from the path the main thread
// resolved, so it finds the same addon whether this runs from the sources,
// tsc's output or the bundle. An eval'd thread's source is CommonJS or a module
// as the process's --input-type says (`node --input-type=module -e …` has no
// `require`), and a thread may not be given V8's options (`mds` runs with
// some) to drop that one: so the source imports what it needs, which works as
// either.
//
// The statement is prepared once and, with the connection, stays reachable
// from the global object until the thread ends: a better-sqlite3 object the
// collector frees aborts Node 24 and later (sqlite-connection.ts says why), and
// `db.pragma()` prepared a statement on every tick, left for the collector.
const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { createRequire } = await import('node:module');
  const { statSync } = await import('node:fs');
  const Database = createRequire(workerData.driver)(workerData.driver);
  // No busy wait: a TRUNCATE checkpoint waiting for a reader would hold up writers meanwhile.
  const db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
  // Per file; PASSIVE never waits for a writer (an import holding the store
  // file's lock for seconds) nor calls the busy handler.
  const files = [workerData.path];
  const checkpoints = [db.prepare('pragma main.wal_checkpoint(PASSIVE)')];
  const truncates = [db.prepare('pragma main.wal_checkpoint(TRUNCATE)')];
  const attach = db.prepare('attach database ? as metering');
  if (workerData.usagePath) {
    attach.run(workerData.usagePath);
    files.push(workerData.usagePath);
    checkpoints.push(db.prepare('pragma metering.wal_checkpoint(PASSIVE)'));
    truncates.push(db.prepare('pragma metering.wal_checkpoint(TRUNCATE)'));
  }
  globalThis.keptUntilExit = [db, attach, checkpoints, truncates];
  const last = checkpoints.map(() => -1);
  const frames = checkpoints.map(() => -1);
  const retried = (err) => /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(err.code);
  const timer = setInterval(() => {
    checkpoints.forEach((checkpoint, i) => {
      let row;
      try {
        row = checkpoint.get();
      } catch (err) {
        // Another connection busy with the file (a writer restarting the WAL), or
        // no room on the disk to grow the file (the store is then full, space.ts):
        // the next tick retries. Any other error ends the thread (its 'error' event).
        if (retried(err)) return;
        throw err;
      }
      // Report only checkpoints that copied something new.
      if (row.checkpointed > 0 && row.checkpointed !== last[i]) parentPort.postMessage(row);
      last[i] = row.checkpointed;
      // Idle (no frame since the last tick), all copied, and the file larger than
      // the limit (after a big import): cut it back now, not at the next write.
      // TRUNCATE holds writers off only for the cut; with nothing to wait for.
      const idle = row.busy === 0 && row.log > 0 && row.log === row.checkpointed && row.log === frames[i];
      frames[i] = row.log;
      if (!idle || (statSync(files[i] + '-wal', { throwIfNoEntry: false })?.size ?? 0) <= workerData.walLimit) return;
      try {
        truncates[i].get();
      } catch (err) {
        if (!retried(err)) throw err;
      }
    });
  }, workerData.everyMs);
  parentPort.on('message', () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
  });
})();
`;

export class SqliteCheckpointer {
  private stopped: Promise<void> | null = null;

  private constructor(private readonly worker: Worker) {}

  static start(path: string, options: CheckpointerOptions = {}): SqliteCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        path,
        driver,
        everyMs: options.everyMs ?? EVERY_MS,
        usagePath: options.usagePath,
        walLimit: WAL_LIMIT_BYTES,
      },
      // The thread's heap holds one connection and a timer.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    // A background thread must never keep the process alive on its own.
    worker.unref();
    worker.on('message', (row: CheckpointResult) => options.onCheckpoint?.(row));
    worker.on('error', (err) => options.onError?.(err));
    return new SqliteCheckpointer(worker);
  }

  /** Stops the thread after its current checkpoint and closes its connection. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      // Whoever awaits the stop needs the process alive until the thread has
      // gone: unref'd, a script whose last task is closing the store would end
      // mid-await (Node's exit 13, an unsettled top-level await).
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('stop');
      // Exited already (after an error): nothing more will come.
      if (this.worker.threadId === -1) resolve();
    });
    return this.stopped;
  }
}
