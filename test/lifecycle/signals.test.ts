/**
 * The process's end under signals (src/server.ts, stopOnSignals): SIGTERM
 * drains and exits 0 (test/lifecycle/shutdown.test.ts); a second signal while
 * stopping ends the process at once with exit code 1 and says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import { spawnServer } from '../support/server-process.js';

describe('signals while stopping', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-signals-'));
    db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await store.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a second SIGTERM during a long drain exits 1 at once', async () => {
    const server = await spawnServer({ db, env: { MDS_DRAIN_MS: '30000' } });
    // 'close', not 'exit': the child's stdout is read to its end by then.
    const exited = new Promise<number | null>((resolve) =>
      server.proc.once('close', (code) => resolve(code)),
    );
    server.proc.kill('SIGTERM');
    // The first signal is being handled (draining) once /readyz fails.
    const deadline = Date.now() + 5_000;
    while ((await fetch(`${server.url}/readyz`)).status === 200) {
      if (Date.now() > deadline) throw new Error('still ready 5 s after SIGTERM');
      await new Promise((r) => setTimeout(r, 20));
    }
    server.proc.kill('SIGTERM');
    const late = new Promise<string>((r) => setTimeout(() => r('still running 5 s later'), 5_000).unref());
    expect(await Promise.race([exited, late])).toBe(1);
    expect(server.stdout()).toMatch(/second signal while stopping/);
  });
});
