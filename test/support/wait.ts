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

/**
 * Waits, if fewer than `needed` ms are left in the current UTC minute, until the next one
 * begins: a test counting against a per-minute limit on the real clock must not see its
 * window (the current UTC minute, which RateLimit-Reset counts down to) roll over between
 * two requests.
 * The wait is to a known instant, not a guessed time.
 */
export async function withinOneMinute(needed = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needed) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
