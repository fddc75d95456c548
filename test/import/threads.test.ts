/**
 * The admin imports' places (src/import/threads.ts, docs/decisions.md 91):
 * the process is told when the first place is taken and when the last is
 * given back, which keeps a SQLite store's usage commits from checkpointing
 * on the event loop meanwhile (decisions 98, test/storage/sqlite-checkpointer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ImportThreads } from '../../src/import/threads.js';

describe('import places', () => {
  it('tell busy on the first place taken and idle when the last is given back, once each', () => {
    const told: boolean[] = [];
    const threads = new ImportThreads(2, (busy) => told.push(busy));
    const a = threads.reserve()!;
    const b = threads.reserve()!;
    expect(threads.reserve()).toBeNull();
    expect(told).toEqual([true]);
    a.release();
    a.release();
    expect(told).toEqual([true]);
    b.release();
    expect(told).toEqual([true, false]);
    threads.reserve()!.release();
    expect(told).toEqual([true, false, true, false]);
  });
});
