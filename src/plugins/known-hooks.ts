/**
 * The request hooks the raw entrance (http/v1/entrance.ts) does the work of
 * itself. Each plugin marks its own with `known()`; plugins/v1.ts turns the raw
 * writer off at start-up if any other hook would run on a /v1 route.
 */
const KNOWN = new WeakSet<object>();

export function known<F extends (...args: never[]) => unknown>(hook: F): F {
  KNOWN.add(hook);
  return hook;
}

export const isKnown = (hook: unknown): boolean => typeof hook === 'function' && KNOWN.has(hook);
