/**
 * Waiting for something another process or a background task does (the data
 * watcher picking up an import, a server noticing a revocation): poll a
 * predicate until it holds or a deadline passes, never sleep a guessed time.
 */

export interface WaitOptions {
  /** Fail after this many milliseconds; 5 s unless told. */
  timeout?: number;
  /** Pause between polls, in milliseconds. */
  interval?: number;
  /** Said when the deadline passes (a function: read then, e.g. to show the last answer). */
  what?: string | (() => string);
}

/** Resolves with the predicate's first truthy value; rejects once `timeout` has passed without one. */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { timeout = 5_000, interval = 20, what = 'condition' }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  const late = () => new Error(`${typeof what === 'function' ? what() : what}: not within ${timeout} ms`);
  for (;;) {
    // A predicate that never settles (a client stuck on a stalled server) fails at the deadline too.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()) + interval);
    });
    const value = await Promise.race([Promise.resolve(predicate()), expired]).finally(() =>
      clearTimeout(timer),
    );
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw late();
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
