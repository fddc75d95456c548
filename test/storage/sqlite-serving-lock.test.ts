/**
 * The kernel-held lock itself (src/storage/sqlite-serving-lock.ts), in one
 * process: a second taker is refused with the holder's record, and a release
 * lets the next one in. Across processes: test/faults/serving-lock.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takeKernelLock } from '../../src/storage/sqlite-serving-lock.js';

describe('the kernel-held serving lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mds-kernel-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second taker, naming the holder, until it is released', () => {
    const path = join(dir, 'mds.sqlite.lock');
    const first = takeKernelLock(path);
    expect(first.ok).toBe(true);
    const second = takeKernelLock(path);
    expect(second).toMatchObject({ ok: false, holder: { pid: process.pid, host: hostname() } });
    if (first.ok) first.release();
    const third = takeKernelLock(path);
    expect(third.ok).toBe(true);
    if (third.ok) third.release();
  });
});
