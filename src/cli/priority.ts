/**
 * An import yields the CPU to serving processes (docs/decisions.md 76): `mds
 * import` lowers its own scheduling priority before it reads anything, so that
 * on a machine that also serves, the kernel gives the core to `mds serve`
 * first and the import takes what serving leaves. On a machine with spare CPU
 * nothing changes: niceness only matters while both want the same core.
 */
import { getPriority, setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import { globalsLast } from './global-options.js';

/** The niceness `mds import` runs at unless told `--priority normal`. */
export const IMPORT_NICENESS = 10;

export const PRIORITIES = ['low', 'normal'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** `--priority`'s value, or null when it names no priority. */
export function parsePriority(text: string | undefined): Priority | null {
  if (text === undefined) return 'low';
  return (PRIORITIES as readonly string[]).includes(text) ? (text as Priority) : null;
}

/**
 * Lowers this process's priority to IMPORT_NICENESS for `low` (never raises
 * it: a process already nicer keeps its niceness, and raising needs a
 * privilege). On Linux this sets the calling thread's, the one that does the
 * import's work; threads started later inherit it. Returns a note when the
 * system refused, for the operator: the import then runs at normal priority.
 */
export function applyPriority(priority: Priority): string | null {
  if (priority === 'normal') return null;
  try {
    if (getPriority() < IMPORT_NICENESS) setPriority(IMPORT_NICENESS);
    return null;
  } catch (err) {
    return `note: the import runs at normal CPU priority: lowering it was refused (${(err as Error).message})`;
  }
}

/**
 * The executable's first step (launch.ts), before the CLI is loaded: for `mds
 * import` at its default priority, the same lowering, so that the quarter of
 * a second V8 spends compiling the CLI runs at that priority too
 * (docs/decisions.md 76). Anything else, a `--priority normal` or a value
 * the import will refuse, is left to the command. Silent: the command applies
 * its priority again and reports a refusal.
 */
export function lowerEarly(args: readonly string[]): void {
  const argv = globalsLast(args);
  if (argv[0] !== 'import') return;
  // The CLI's own parser, loosely: only --priority is read, every other option is the command's.
  const { priority } = parseArgs({
    args: argv.slice(1),
    options: { priority: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  }).values;
  // A --priority without a value (`true` here) is the command's to refuse.
  if (typeof priority !== 'boolean' && parsePriority(priority) === 'low') applyPriority('low');
}
