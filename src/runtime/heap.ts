/**
 * The memory policy of a serving process (issue #5: RSS under load at most
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
 * GC runs on the main thread (`--single-threaded-gc`). An instance is one event
 * loop, and one instance per core is how it scales (docs/deployment.md). V8's
 * helper threads for concurrent marking and sweeping then compete with that loop
 * for its core. Under wrk the process was stalled for 15–25 ms around each
 * full collection, which made most of the p99. With the flag, the longest
 * stalls are about 5 ms.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Flags V8 reads only at process start. The `mds` executable passes them (its
 * `#!` line), so do `npm start` and the bench; test/cli/node-flags.test.ts
 * keeps the three in step.
 */
export const NODE_FLAGS = ['--max-semi-space-size=4', '--single-threaded-gc'] as const;

/** Collect the old generation once it has grown 30 % past its live size. Read at every collection. */
export function tuneHeap(): void {
  setFlagsFromString('--heap-growing-percent=30');
}
