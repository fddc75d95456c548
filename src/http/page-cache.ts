/**
 * Prepared history pages, kept until the data changes. A page is fully
 * determined by its filters, window, keyset position and limit, and the store
 * only changes with the `data` version, so the cache belongs to the snapshot of
 * that version (http/pipeline/bodies.ts) and is dropped with it. Bounded by bytes, least recently used
 * out first; a page larger than a quarter of the bound is not kept.
 *
 * The bookkeeping is lru-cache's (a maintained library where one does the
 * job); this class only says what a page weighs.
 */
import { LRUCache } from 'lru-cache';
import type { Prepared } from './prepared.js';

const weight = (page: Prepared, key: string): number => page.head.length + page.tail.length + key.length;

export class PageCache {
  private readonly entries: LRUCache<string, Prepared>;

  constructor(maxBytes = 16 * 1024 * 1024) {
    this.entries = new LRUCache<string, Prepared>({
      maxSize: maxBytes,
      // Integer, as lru-cache requires; for integer weights the same bound as maxBytes / 4.
      maxEntrySize: Math.floor(maxBytes / 4),
      sizeCalculation: weight,
    });
  }

  /** The page, made the most recently used. */
  get(key: string): Prepared | undefined {
    return this.entries.get(key);
  }

  set(key: string, page: Prepared): void {
    this.entries.set(key, page);
  }

  /** The page under `key`, made by `make` and kept if this data version has not made it yet. */
  remember(key: string, make: () => Prepared): Prepared {
    let page = this.entries.get(key);
    if (page === undefined) {
      page = make();
      this.entries.set(key, page);
    }
    return page;
  }

  get size(): number {
    return this.entries.size;
  }
}
