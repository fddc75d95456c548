/**
 * The thread an admin import runs on (import/threads.ts starts one per
 * import, docs/decisions.md 91): its own connection to the store (SQLite: a
 * handle of its own on the same file; PostgreSQL: a pool of two), then
 * `importFile`, the same code as `mds import`, then the report or the
 * failure posted back. Nothing of it runs on the event loop that answers /v1.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StoreUnavailableError } from '../storage/errors.js';
import { sqlitePath } from '../storage/open.js';
import { PostgresStore } from '../storage/postgres.js';
import { SqliteStore } from '../storage/sqlite.js';
import type { Store } from '../storage/store.js';
import type { ImportFormat } from './detect.js';
import type { ImportKind, ImportProblem } from './records.js';
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
}

/** What it posts back, once: errors as data, since an Error's class does not cross threads. */
export type ThreadAnswer =
  | { ok: true; report: ImportReport }
  | { ok: false; kind: 'refused'; message: string; problems?: ImportProblem[] }
  | { ok: false; kind: 'unavailable'; message: string; code?: string }
  | { ok: false; kind: 'failed'; message: string; stack?: string };

function open(url: string): Store {
  const path = sqlitePath(url);
  // Two connections: one for the guards' reads, one for the transaction.
  return path === null ? PostgresStore.open(url, { max: 2 }) : SqliteStore.open(path);
}

function answerOf(err: unknown): ThreadAnswer {
  if (err instanceof ImportError)
    return { ok: false, kind: 'refused', message: err.message, problems: err.problems };
  if (err instanceof StoreUnavailableError) {
    return { ok: false, kind: 'unavailable', message: err.message, code: err.code };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { ok: false, kind: 'failed', message: e.message, stack: e.stack };
}

/**
 * How long a SQLite import waits for another writer in all. Its transaction
 * waits 5 s for the file's write lock (BUSY_TIMEOUT_MS), shorter than another
 * import's write of 50 MB; here, off the serving loop, waiting is harmless and
 * an import not yet written is safe to run again, so it is, until then.
 */
const BUSY_PATIENCE_MS = 60_000;

async function run(job: ThreadJob): Promise<ThreadAnswer> {
  let store: Store | undefined;
  const deadline = Date.now() + BUSY_PATIENCE_MS;
  try {
    store = open(job.url);
    for (;;) {
      try {
        return { ok: true, report: await importFile(store, job.kind, job.file, job.format, job.checks) };
      } catch (err) {
        const busy = err instanceof StoreUnavailableError && err.code === 'SQLITE_BUSY';
        if (!busy || Date.now() > deadline) throw err;
      }
    }
  } catch (err) {
    return answerOf(err);
  } finally {
    await store?.close().catch(() => {});
  }
}

if (parentPort) {
  const port = parentPort;
  run(workerData as ThreadJob).then((answer) => port.postMessage(answer));
}
