/**
 * A serving process holds one of Node's tick objects for its whole life, so
 * that the shape V8 gives those objects survives a full collection in a quiet
 * moment (src/runtime/heap.ts, `holdTickShape`; docs/performance-notes.md,
 * "the slow state found, and held off").
 *
 * What this checks, in a child process of the built module with V8's own test
 * functions: that `tuneHeap`, which `mds serve` calls, holds an object from
 * its tick on; that the object is a tick object (Node's two async-id keys,
 * `callback` and `args`); and that a tick object made after more ticks and a
 * quiet full collection still has the held one's hidden class. That holding it
 * keeps serving fast is what the notes measured, not what a test can time.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const heap = new URL('../../dist/src/runtime/heap.js', import.meta.url).href;

const script = `
import { executionAsyncResource } from 'node:async_hooks';
import { heldTickObject, tuneHeap } from ${JSON.stringify(heap)};
const before = heldTickObject();
tuneHeap();
await new Promise((resolve) => setImmediate(resolve));
const held = heldTickObject();
// Ticks of other shapes' callbacks and arguments, as a server makes them, then a quiet collection.
for (let i = 0; i < 1000; i++) process.nextTick((n) => n, i);
await new Promise((resolve) => setImmediate(resolve));
globalThis.gc();
globalThis.gc();
const next = await new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
console.log(JSON.stringify({
  before: before === undefined,
  held: held !== undefined,
  symbols: held ? Object.getOwnPropertySymbols(held).map(String) : [],
  keys: held ? Object.keys(held) : [],
  sameShape: held ? %HaveSameMap(held, next) : false,
}));
`;

describe('the tick shape a serving process holds', () => {
  it('is a tick object, held from its tick on, whose shape new ticks still have after a quiet full collection', () => {
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    // Node 22 and later add a third symbol key to a tick object (its async context frame).
    expect(JSON.parse(out)).toEqual({
      before: true,
      held: true,
      symbols: expect.arrayContaining(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']),
      keys: ['callback', 'args'],
      sameShape: true,
    });
  });
});
