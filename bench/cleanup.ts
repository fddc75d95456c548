/** Cleanups run in reverse order, on success, failure or Ctrl-C. */
const pending: Array<() => Promise<void> | void> = [];

export function defer(fn: () => Promise<void> | void): void {
  pending.push(fn);
}

export async function cleanUp(): Promise<void> {
  while (pending.length) {
    try {
      await pending.pop()?.();
    } catch (err) {
      process.stderr.write(`bench: cleanup: ${(err as Error).message}\n`);
    }
  }
}
