/**
 * The memory policy of a serving process (RSS under load at most
 * 150 MB). Under load each request's objects are alive for a millisecond or two,
 * and those caught by a young-generation collection are promoted and die in
 * the old generation. Left to its defaults, V8 lets the old generation grow to
 * about four times its live size before collecting it, and the young generation
 * to 2 × 16 MB: together about 60 MB of RSS that holds nothing.
 *
 * Measured with `npm run bench` on the two-year sample: peak RSS fell from
 * 157–185 MB to about 100 MB, and the smaller young generation costs no
 * throughput (it collects faster and stays in cache).
 *
 * V8 runs no helper threads (`--single-threaded`): garbage collection and
 * optimizing compilation happen on the main thread. An instance is one event
 * loop, and one instance per core is how it scales (docs/deployment.md). V8's
 * helper threads (concurrent marking and sweeping, concurrent compilation) would
 * otherwise compete with that loop for its core. Measured under wrk with the
 * process on one core: with GC helpers alone off (`--single-threaded-gc`) the
 * compiler threads still took about 150 ms of every 5 s from the loop, a
 * millisecond at a time, and the loop waited as long again to get its core
 * back (/proc/<pid>/task/<tid>/schedstat); with `--single-threaded` that wait
 * fell to a few milliseconds (docs/performance-notes.md).
 *
 * V8's memory reducer stays off (`--no-memory-reducer`). It collects the heap
 * of a process gone quiet, to give memory back; a server that had been loaded,
 * then left quiet for 20 seconds, came back from it with a p99 of 22–110 ms on
 * its next 5 seconds of load (3.1–3.5 ms before the quiet spell) and about
 * 17 % fewer requests per second for the rest of its life: perf showed Node's
 * stream code creating its objects through V8's runtime, which a fresh process
 * never calls. Without the reducer, the same sequence kept both (three runs
 * each, docs/performance-notes.md). A quiet server keeps the heap it had
 * under load, at most the 150 MB that target allows.
 */
import { executionAsyncResource } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';

/**
 * Flags V8 reads only at process start. The `mds` executable passes them (its
 * `#!` line), so do `npm start` and the bench; test/cli/node-flags.test.ts
 * keeps the three in step.
 */
export const NODE_FLAGS = ['--max-semi-space-size=4', '--single-threaded', '--no-memory-reducer'] as const;

/** Collect the old generation once it has grown 30 % past its live size. Read at every collection. */
export const HEAP_GROWING_FLAG = '--heap-growing-percent=30';

let heldTick: object | undefined;

/** The tick object held by `holdTickShape` (undefined until its tick has run). */
export function heldTickObject(): object | undefined {
  return heldTick;
}

/**
 * Holds one of Node's tick objects (what `process.nextTick` queues) for the
 * life of the process, so that the hidden class V8 gave those objects is not
 * dropped. Call it outside any AsyncLocalStorage context: on Node 22 and later
 * the held object keeps the context it was made in.
 *
 * Why: Node's streams and HTTP server queue five to seven ticks for every
 * answer, each one an object literal with computed keys (two on Node 20,
 * three from Node 22). V8 keeps the hidden classes of such literals only while
 * an object of that shape is alive. A full collection that finds none (a
 * quiet moment with no request in flight: after the first requests, after the
 * first `/openapi.json` request built the document) drops them, and from then
 * on V8 builds each tick object property by property in its runtime, for the
 * rest of the process's life. Measured on Node 20 (docs/performance-notes.md,
 * "the slow state found, and held off"): a plain node:http server given a few
 * requests, one full collection while quiet, then load, spent 19.4–20.9 µs of
 * CPU per answer, against 15.7–17.4 µs with one tick object held; the service,
 * builds without and with the hold alternated, 27.6 and 26.1 against 25.1 and
 * 23.0 µs. Holding one object of the shape keeps the shape.
 *
 * `executionAsyncResource()` inside a tick callback returns that tick's
 * object. It is a public function of `node:async_hooks`, which Node's
 * documentation marks experimental; that the resource of a tick is its tick
 * object is how Node works, not a documented promise, and
 * test/runtime/heap.test.ts fails if it changes. Asking for it once makes
 * Node pass its native callbacks (socket reads, about one an answer) through
 * a small JavaScript trampoline from then on; the plain server's runs without
 * a collection, whose figures move by about 2 µs between batches, showed no
 * cost. An async hook would also find the object, but enabling one sets V8's
 * promise hooks, and V8 leaves its promise fast path for good once any has
 * been set.
 */
export function holdTickShape(): void {
  if (heldTick !== undefined) return;
  process.nextTick(() => {
    heldTick = executionAsyncResource();
  });
}

export function tuneHeap(): void {
  setFlagsFromString(HEAP_GROWING_FLAG);
  holdTickShape();
}
