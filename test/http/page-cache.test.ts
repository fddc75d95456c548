/**
 * The prepared-page cache (src/http/page-cache.ts): bounded by bytes (a
 * page weighs its two halves and its key), least recently used out first, and
 * a page over a quarter of the bound never kept. These were the hand-written
 * cache's rules; lru-cache now keeps them.
 */
import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/http/page-cache.js';
import type { Prepared } from '../../src/http/respond.js';

/** A page of `bytes` body bytes; with a one-character key it weighs bytes + 1. */
const page = (bytes: number): Prepared => ({
  head: Buffer.alloc(bytes - 1),
  tail: Buffer.alloc(1),
  etag: `"${bytes}"`,
});

describe('PageCache', () => {
  it('drops the least recently used page once the bytes exceed the bound', () => {
    const cache = new PageCache(100);
    cache.set('a', page(24));
    cache.set('b', page(24));
    cache.set('c', page(24));
    cache.set('d', page(24)); // 4 × 25 = 100: all fit
    expect(cache.size).toBe(4);
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('e', page(24)); // 125 > 100: b, the least recent, goes
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined)).toEqual([true, true, true, true]);
  });

  it('never keeps a page over a quarter of the bound', () => {
    const cache = new PageCache(100);
    cache.set('x', page(25)); // weighs 26 > 25
    expect(cache.get('x')).toBeUndefined();
    cache.set('y', page(24)); // weighs 25: kept
    expect(cache.get('y')).toBeDefined();
  });

  it('replaces a page under the same key without counting it twice', () => {
    const cache = new PageCache(100);
    for (let i = 0; i < 10; i++) cache.set('a', page(24));
    cache.set('b', page(24));
    cache.set('c', page(24));
    cache.set('d', page(24));
    expect(cache.size).toBe(4);
    const replaced = page(10);
    cache.set('a', replaced);
    expect(cache.get('a')).toBe(replaced);
  });
});
