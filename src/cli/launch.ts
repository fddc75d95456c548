#!/usr/bin/env -S node --max-semi-space-size=4 --single-threaded --no-memory-reducer
/**
 * The `mds` executable (dist/mds.mjs): a few lines that run before the CLI is
 * loaded, then the CLI (main.ts, bundled as dist/mds-cli.mjs).
 *
 * Why a separate first step: V8 compiles the CLI's bundle (3.5 MB) before any
 * statement in it runs, about a quarter of a second of CPU. An `mds import`
 * lowers its priority so that a server on the same core comes first
 * (docs/decisions.md 76); done inside the CLI, that quarter of a second ran
 * at normal priority, and a server sharing the core had 57–67 of the 100
 * ticks of its core in the second the import started, against 88–99 in the
 * seconds after (docs/performance-notes.md).
 */
import { lowerEarly } from './priority.js';

lowerEarly(process.argv.slice(2));
// Resolved at run time, beside this file: the bundle is built from main.ts on its own (scripts/bundle.ts).
await import(new URL('./mds-cli.mjs', import.meta.url).href);
