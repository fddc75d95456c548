/**
 * Store failures, typed where they arise. Each backend knows its
 * driver's ways of saying "the store is not there right now" (a refused or
 * dropped connection, a pool timeout, a server shutting down, a locked or full
 * SQLite file) and turns them into one error, StoreUnavailableError, at its own
 * boundary: callers (the HTTP layer, the limiters, the CLI) test its type and
 * never read a driver's codes or messages.
 */

/** The store cannot serve the operation now; retrying later may succeed. */
export class StoreUnavailableError extends Error {
  /** The driver's code (`SQLITE_FULL`, `57P01`, `ECONNREFUSED`…), when it gave one. */
  readonly code: string | undefined;

  constructor(cause: unknown) {
    // The driver's message is kept as it is: operators read it (`mds import` prints it).
    super(cause instanceof Error ? cause.message : 'store unavailable', { cause });
    this.name = 'StoreUnavailableError';
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * The store refused a write for lack of space: SQLite's SQLITE_FULL (the disk,
 * a quota, or its page cap), PostgreSQL's SQLSTATE 53100 (disk_full). A state
 * of the store, not a bug: nothing of the write was kept, and writes succeed
 * again once space is freed (space.ts watches for that; docs/decisions.md 97).
 */
export class StoreFullError extends StoreUnavailableError {
  constructor(cause: unknown) {
    super(cause);
    this.name = 'StoreFullError';
  }

  /** What operators and clients are told: the cause by its code, never a path or a query. */
  get reason(): string {
    return `disk full (${this.code === '53100' ? 'SQLSTATE 53100' : (this.code ?? 'no code')})`;
  }
}

/** SQLite's and PostgreSQL's codes for a write refused for lack of space. */
const FULL_CODES = /^(SQLITE_FULL|53100)$/;

/** Decides whether a driver's error means the store is unavailable. */
export type UnavailableTest = (err: unknown) => boolean;

/** The operating system's codes for a network peer that is gone or unreachable. */
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH)$/;

export const errorCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** A failure of the network path to a store server (PostgreSQL, Redis). */
export const isNetworkFailure: UnavailableTest = (err) => NETWORK_CODES.test(errorCode(err) ?? '');

/**
 * `err` as the store's caller should see it: a StoreUnavailableError when
 * `unavailable` says so, a StoreFullError when it is for lack of space.
 */
export function classified(err: unknown, unavailable: UnavailableTest): unknown {
  if (err instanceof StoreUnavailableError || !unavailable(err)) return err;
  return FULL_CODES.test(errorCode(err) ?? '') ? new StoreFullError(err) : new StoreUnavailableError(err);
}

/**
 * `target` with every method's failure classified: synchronous throws and
 * rejections alike. The methods run on `target` itself; other properties are
 * read through to it. Used once per backend, where the store is opened.
 */
export function guarded<T extends object>(
  target: T,
  unavailable: UnavailableTest,
  /** Told of every failure as classified (space.ts watches for StoreFullError). */
  observe?: (err: unknown) => void,
): T {
  const out = Object.create(target) as Record<string, unknown>;
  const rethrow = (err: unknown): never => {
    const seen = classified(err, unavailable);
    observe?.(seen);
    throw seen;
  };
  const seen = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const fn = (target as Record<string, unknown>)[name];
      if (name === 'constructor' || seen.has(name) || typeof fn !== 'function') continue;
      seen.add(name);
      out[name] = (...args: unknown[]) => {
        try {
          const result = fn.apply(target, args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        } catch (err) {
          return rethrow(err);
        }
      };
    }
  }
  return out as T;
}
