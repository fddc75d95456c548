/**
 * The bounded stop (docs/decisions.md 60): a SIGTERM ends the process within
 * the drain plus CLOSE_MS, whatever the store or stdout are doing.
 *
 * The deadline itself is a timer on the main thread (server.ts,
 * stopOnSignals): it logs what it gave up and exits 1. A timer cannot fire
 * while the main thread is held inside a call that does not return (a native
 * call on a store whose folder was removed, a synchronous write to a stdout
 * nobody reads, an exit handler doing either), so a thread of its own backs it
 * up: WATCHDOG_GRACE_MS after the deadline it sends the process SIGKILL. What
 * SIGKILL can lose is what the deadline already gave up: the serving lock is
 * the kernel's and goes with the process, and every answered unit was
 * committed before its answer (docs/reliability.md).
 */
import { Worker } from 'node:worker_threads';

/** The close after the drain: listeners, pending usage, the store. */
export const CLOSE_MS = 10_000;
/** How long after the deadline the watchdog thread waits for the main thread's own exit. */
export const WATCHDOG_GRACE_MS = 2_000;

/**
 * Starts the watchdog: `ms` from now the process is killed (SIGKILL) unless it
 * has exited. Unref'd: it never keeps the process alive.
 */
export function startWatchdog(ms: number): void {
  // Globals only: an eval'd thread is CommonJS or a module as the process's
  // --input-type says (storage/sqlite-checkpointer.ts), and this works as either.
  const source = `setTimeout(() => process.kill(${process.pid}, 'SIGKILL'), ${Math.max(0, Math.ceil(ms))});`;
  const worker = new Worker(source, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  worker.unref();
  // A thread that fails to start leaves the main thread's deadline alone.
  worker.on('error', () => {});
}
