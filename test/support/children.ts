/**
 * No process a test starts outlives the run. Every child a helper spawns is
 * written down (pid and start time) in a file of this run (global-setup.ts
 * provides its path); `stopChild` escalates to SIGKILL after a deadline; the
 * global teardown kills whatever is still alive and fails the run, naming it.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';
import { startTime } from './process-start.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file listing this run's child processes (global-setup.ts). */
    childrenFile: string;
  }
}

/** How long a child has to end after SIGTERM before it is killed. */
export const STOP_DEADLINE_MS = 15_000;

/** Writes the child down for the run's teardown. */
export function track(proc: ChildProcess, what: string): void {
  if (proc.pid === undefined) return;
  let file: string | undefined;
  try {
    file = inject('childrenFile');
  } catch {
    return; // outside a vitest run
  }
  if (!file) return;
  const started = startTime(proc.pid) ?? '?';
  appendFileSync(file, `${proc.pid}\t${started}\t${what.replace(/\s+/g, ' ').slice(0, 200)}\n`);
}

const ended = (proc: ChildProcess) => proc.exitCode !== null || proc.signalCode !== null;

/** Sends `signal` and waits for the exit; SIGKILL once `deadlineMs` have passed. Never throws. */
export async function stopChild(
  proc: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  deadlineMs = STOP_DEADLINE_MS,
): Promise<void> {
  if (ended(proc)) return;
  const exited = once(proc, 'exit');
  proc.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), deadlineMs);
  });
  if ((await Promise.race([exited, late])) === 'late' && !ended(proc)) {
    proc.kill('SIGKILL');
    await exited;
  }
  clearTimeout(timer);
}
