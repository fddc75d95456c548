/**
 * The admin API's imports, off the serving event loop (docs/decisions.md 91):
 * each runs on a worker thread of its own (import/thread.ts) with its own
 * connection to the store, so parsing, checking and writing hundreds of
 * thousands of records never hold up /v1, /healthz or the stop's deadline.
 *
 * At most `max` at once per process (MDS_ADMIN_IMPORTS): a place is reserved
 * before the body is read (the route answers 429 without one) and released
 * when the thread has ended, whatever the client does meanwhile.
 *
 * Memory: the body reaches the thread as a file (http/admin/received-file.ts),
 * so the serving thread holds at most a stream's buffers of it; each thread
 * holds what `mds import` holds for the same file (NDJSON read in 64 KB
 * pieces, a JSON array or CSV whole, at most the route's 50 MB; a workbook
 * whole, within its caps, decisions 141) and its
 * records, and gives all of it back when it ends.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../paths.js';
import { StoreUnavailableError } from '../storage/errors.js';
import { ImportError, type ImportReport } from './run.js';
import type { ThreadAnswer, ThreadJob, ThreadNotice } from './thread.js';

/** An import ended by the stop before it answered: its one transaction committed whole or not at all. */
export class ImportStopped extends Error {
  constructor() {
    super('the server stopped before the import finished');
    this.name = 'ImportStopped';
  }
}

/** A place for one import; `release` is idempotent. */
export interface ImportPlace {
  release(): void;
}

/**
 * The thread's code: beside this module in the bundle (dist/mds-import-thread.mjs)
 * and in tsc's output (dist/src/import/thread.js). From the sources (the tests)
 * it is bundled once per process with esbuild, a development dependency, into
 * dist/dev/, where its packages resolve from the project's node_modules.
 */
let entry: Promise<URL> | undefined;
function threadEntry(): Promise<URL> {
  entry ??= (async () => {
    for (const name of ['./mds-import-thread.mjs', './thread.js']) {
      const url = new URL(name, import.meta.url);
      if (existsSync(url)) return url;
    }
    const { build } = await import('esbuild');
    const dir = join(PROJECT_ROOT, 'dist', 'dev');
    mkdirSync(dir, { recursive: true });
    const out = join(dir, 'mds-import-thread.mjs');
    const partial = `${out}.${process.pid}`;
    await build({
      entryPoints: [fileURLToPath(new URL('./thread.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: partial,
      logLevel: 'warning',
    });
    // Whole or not at all: test files running at once bundle the same code.
    renameSync(partial, out);
    return pathToFileURL(out);
  })();
  return entry;
}

function failure(answer: Exclude<ThreadAnswer, { ok: true }>): Error {
  switch (answer.kind) {
    case 'refused':
      return new ImportError(answer.message, answer.report);
    case 'unavailable':
      return new StoreUnavailableError(Object.assign(new Error(answer.message), { code: answer.code }));
    case 'failed':
      return Object.assign(new Error(answer.message), { stack: answer.stack });
  }
}

export class ImportThreads {
  private reserved = 0;
  private writers = 0;
  private readonly workers = new Set<Worker>();
  private stopped = false;

  /**
   * @param max imports at once in this process (MDS_ADMIN_IMPORTS)
   * @param onBusy told when the first place is taken (a body starts to arrive) and when the last is given back
   */
  constructor(
    readonly max: number,
    private readonly onBusy: (busy: boolean) => void = () => {},
  ) {}

  /** Imports holding a place: being received or run. */
  get inUse(): number {
    return this.reserved;
  }

  /**
   * Whether an import of this process is writing to a SQLite store: the
   * serving thread's own writes to the file (the webhook worker's) would wait
   * for its lock on the event loop, so they wait for this to end instead.
   */
  get writing(): boolean {
    return this.writers > 0;
  }

  /** A place for one more import, or null when `max` are being received or run, or the process stops. */
  reserve(): ImportPlace | null {
    if (this.stopped || this.reserved >= this.max) return null;
    if (++this.reserved === 1) this.onBusy(true);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        if (--this.reserved === 0) this.onBusy(false);
      },
    };
  }

  /**
   * Runs one import on a thread of its own: its report, or ImportError (a
   * refused input), StoreUnavailableError, ImportStopped, or the thread's
   * own failure.
   */
  async run(job: ThreadJob): Promise<ImportReport> {
    if (this.stopped) throw new ImportStopped();
    const worker = new Worker(await threadEntry(), { workerData: job });
    this.workers.add(worker);
    try {
      return await new Promise<ImportReport>((resolve, reject) => {
        let answered = false;
        let writing = false;
        const write = (now: boolean) => {
          if (now !== writing) this.writers += now ? 1 : -1;
          writing = now;
        };
        worker.on('message', (message: ThreadAnswer | ThreadNotice) => {
          if ('writing' in message) return write(message.writing);
          answered = true;
          if (message.ok) resolve(message.report);
          else reject(failure(message));
        });
        worker.once('error', reject);
        worker.once('exit', (code) => {
          write(false);
          if (answered) return;
          reject(this.stopped ? new ImportStopped() : new Error(`the import thread ended with code ${code}`));
        });
      });
    } finally {
      this.workers.delete(worker);
    }
  }

  /**
   * Ends the imports still running and refuses new ones (the stop, after the
   * drain). Terminating a thread ends its connection, which rolls back its
   * transaction if it was not committed: nothing is half-written.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }
}
