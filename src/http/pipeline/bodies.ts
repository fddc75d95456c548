/**
 * Bodies kept per version of the data. A snapshot (runtime/snapshot.ts) is one
 * version: what is made from it is kept beside it, in a WeakMap keyed by it,
 * and goes with it when the next version replaces it. The latest bodies without
 * a filter are kept for the whole version (the hot path serializes nothing);
 * other pages go to the version's page cache, bounded by bytes.
 */
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { PageCache } from '../page-cache.js';

/** `make(key)`, made once per `key` (a snapshot, or a value it holds) and kept as long as the key lives. */
export function perVersion<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

/** The page cache of a version of the data: history pages and filtered latest lists (http/pipeline/history.ts). */
export const pagesOf: (snapshot: MarketSnapshot) => PageCache = perVersion(() => new PageCache());
