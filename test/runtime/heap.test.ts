/**
 * A serving process holds one of Node's tick objects for its whole life, so
 * that the shape V8 gives those objects survives a full collection in a quiet
 * moment (src/runtime/heap.ts, `holdTickShape`; docs/performance-notes.md,
 * "the slow state"). Run in a child process of the built module, with V8's
 * own test functions: after the held object's tick, a quiet full collection,
 * and more ticks, a new tick object still has the held one's hidden class.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const heap = fileURLToPath(new URL('../../dist/src/runtime/heap.js', import.meta.url));

const script = `
import { executionAsyncResource } from 'node:async_hooks';
import { heldTickObject, tuneHeap } from ${JSON.stringify(heap)};
const before = heldTickObject();
tuneHeap();
await new Promise((resolve) => setImmediate(resolve));
const held = heldTickObject();
for (let i = 0; i < 1000; i++) process.nextTick(() => {});
await new Promise((resolve) => setImmediate(resolve));
globalThis.gc();
globalThis.gc();
const next = await new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
console.log(JSON.stringify({
  before: before === undefined,
  symbols: Object.getOwnPropertySymbols(held).map(String),
  keys: Object.keys(held),
  sameShape: %HaveSameMap(held, next),
}));
`;

describe('the tick shape a serving process holds', () => {
  it('is a tick object, held from its tick on, whose shape new ticks still have after a quiet full collection', () => {
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    // Node 22 and later add a third key to a tick object (its async context frame).
    expect(JSON.parse(out)).toEqual({
      before: true,
      symbols: expect.arrayContaining(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']),
      keys: ['callback', 'args'],
      sameShape: true,
    });
  });
});
