/**
 * The V8 flags a serving process needs at start (src/runtime/heap.ts) are
 * written in three places that cannot import them: the `#!` line of the `mds`
 * executable, the npm scripts, and the bench's launch of the service. They
 * must not drift apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceCommand } from '../../bench/service.js';
import { NODE_FLAGS } from '../../src/runtime/heap.js';

const root = new URL('../../', import.meta.url);
const flags = NODE_FLAGS.join(' ');

describe('node flags of a serving process', () => {
  it('keep V8 to one thread, a small young generation and no memory reducer (src/runtime/heap.ts)', () => {
    expect([...NODE_FLAGS]).toEqual(['--max-semi-space-size=4', '--single-threaded', '--no-memory-reducer']);
  });

  it('the mds executable passes them on its #! line', () => {
    const first = readFileSync(new URL('src/cli/launch.ts', root), 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${flags}`);
  });

  it('the executable that is shipped, the bundle, keeps the #! line', () => {
    const first = readFileSync(new URL('dist/mds.mjs', root), 'utf8').split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${flags}`);
    const { bin } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(bin).toEqual({ mds: 'dist/mds.mjs' });
  });

  it('npm start and npm run mds pass them', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(scripts.start).toContain(`node ${flags} dist/mds.mjs serve`);
    expect(scripts.mds).toBe(`node ${flags} dist/mds.mjs`);
  });

  it('the bench starts the service with them', () => {
    const { args } = serviceCommand(8080, '/tmp/x.sqlite');
    expect(args.slice(0, NODE_FLAGS.length)).toEqual([...NODE_FLAGS]);
    expect(args[NODE_FLAGS.length]).toMatch(/dist\/mds\.mjs$/);
  });
});
