/**
 * Prepared history pages, kept until the data changes. A page is fully
 * determined by its filters, window, keyset position and limit, and the store
 * only changes with the `data` version, so the cache lives on the snapshot of
 * that version and is dropped with it. Bounded by bytes, least recently used
 * out first.
 */
import type { Prepared } from './prepared.js';

export class PageCache {
  private readonly entries = new Map<string, Prepared>();
  private bytes = 0;

  constructor(private readonly maxBytes = 16 * 1024 * 1024) {}

  get(key: string): Prepared | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Re-insert: Map order is recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, page: Prepared): void {
    const size = page.head.length + page.tail.length + key.length;
    if (size > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.head.length + old.tail.length + key.length;
      this.entries.delete(key);
    }
    this.entries.set(key, page);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.head.length + v.tail.length + k.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
