/**
 * The thread an admin import runs on (import/threads.ts starts one per
 * import, docs/decisions.md 91): its own connection to the store (SQLite: a
 * handle of its own on the same file; PostgreSQL: a pool of two), then
 * `importFile`, the same code as `mds import`, then the report or the
 * failure posted back. Nothing of it runs on the event loop that answers /v1.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { ImportRefusal } from '../schemas/import-report.js';
import { StoreUnavailableError } from '../storage/errors.js';
import { sqlitePath } from '../storage/open.js';
import { PostgresStore } from '../storage/postgres.js';
import { SqliteStore } from '../storage/sqlite.js';
import type { Store } from '../storage/store.js';
import type { ImportFormat } from './detect.js';
import type { ParseOptions } from './parse.js';
import type { ImportKind } from './records.js';
import { type ImportChecks, ImportError, type ImportReport, importFile } from './run.js';

/** What the thread is given. */
export interface ThreadJob {
  /** The store's `url`: a file path or a postgres:// URL. */
  url: string;
  kind: ImportKind;
  /** The body, received to a file. */
  file: string;
  format: ImportFormat;
  checks: ImportChecks;
  /** The zone and date order the body's local times are read with (decisions 94). */
  options: ParseOptions;
}

/** Posted while it runs, on SQLite: whether it is writing (it holds, or waits for, the file's write lock). */
export type ThreadNotice = { writing: boolean };

/** What it posts back, once: errors as data, since an Error's class does not cross threads. */
export type ThreadAnswer =
  | { ok: true; report: ImportReport }
  | { ok: false; kind: 'refused'; message: string; report?: ImportRefusal }
  | { ok: false; kind: 'unavailable'; message: string; code?: string }
  | { ok: false; kind: 'failed'; message: string; stack?: string };

/**
 * How long a SQLite import waits for the file's write lock in all. Each try
 * waits 5 s (BUSY_TIMEOUT_MS), less than another import's write of 50 MB
 * takes; the write begins with the lock (BEGIN IMMEDIATE), so a try that did
 * not get it wrote nothing and is tried again. 5 s at a time rather than one
 * long wait: a thread is ended (the stop) only between two native calls.
 */
const BUSY_PATIENCE_MS = 120_000;

function open(url: string): Store {
  const path = sqlitePath(url);
  // Two connections: one for the guards' reads, one for the transaction.
  if (path === null) return PostgresStore.open(url, { max: 2 });
  const store = SqliteStore.open(path);
  const write = store.imports.import.bind(store.imports);
  store.imports.import = async (...args) => {
    const deadline = Date.now() + BUSY_PATIENCE_MS;
    // Told first: the serving thread's own writes to the file would wait for this lock on its event loop.
    parentPort?.postMessage({ writing: true } satisfies ThreadNotice);
    try {
      for (;;) {
        try {
          return await write(...args);
        } catch (err) {
          const busy = err instanceof StoreUnavailableError && err.code === 'SQLITE_BUSY';
          if (!busy || Date.now() > deadline) throw err;
        }
      }
    } finally {
      parentPort?.postMessage({ writing: false } satisfies ThreadNotice);
    }
  };
  return store;
}

function answerOf(err: unknown): ThreadAnswer {
  if (err instanceof ImportError)
    return { ok: false, kind: 'refused', message: err.message, report: err.report };
  if (err instanceof StoreUnavailableError) {
    return { ok: false, kind: 'unavailable', message: err.message, code: err.code };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { ok: false, kind: 'failed', message: e.message, stack: e.stack };
}

async function run(job: ThreadJob): Promise<ThreadAnswer> {
  let store: Store | undefined;
  try {
    store = open(job.url);
    return {
      ok: true,
      report: await importFile(store, job.kind, job.file, job.format, job.checks, job.options),
    };
  } catch (err) {
    return answerOf(err);
  } finally {
    await store?.close().catch(() => {});
  }
}

/**
 * The niceness of an import's thread: the lowest. The threads share the
 * serving process's cores (one, when it is pinned), so the kernel must give
 * the event loop a core first whenever it wants one and the import what is
 * left: against a nice-0 thread, a nice-19 one weighs 15 to 1,024.
 */
const THREAD_NICENESS = 19;

if (parentPort) {
  const port = parentPort;
  // On Linux the niceness is the calling thread's: the serving thread keeps its own (decisions 91).
  try {
    if (getPriority() < THREAD_NICENESS) setPriority(THREAD_NICENESS);
  } catch {
    // Refused (another system): the import runs at the process's priority.
  }
  run(workerData as ThreadJob).then((answer) => port.postMessage(answer));
}
