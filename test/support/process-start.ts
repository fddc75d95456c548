/** Tells a live process from a zombie or a pid reused by another one (children.ts, global-setup.ts). */
import { readFileSync } from 'node:fs';

/** The kernel's start time of a process (clock ticks since boot), or null when it is gone or a zombie. */
export function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
