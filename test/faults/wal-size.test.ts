/**
 * The write-ahead logs of a serving SQLite store stay small (docs/decisions.md
 * 98, docs/operations.md "Disk space"): after sustained usage commits, and
 * after an import larger than the limit, each `-wal` file is at most 8 MB.
 * Before, the usage file's WAL grew under steady load to 41 MB and kept that
 * size, enough to fill a small volume by itself.
 */
import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import { usageFilePath } from '../../src/storage/sqlite-files.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { createKey } from '../support/keys.js';
import { waitFor } from '../support/wait.js';
import { type Instance, instance, Load, seed, storedUsage } from './support.js';

const MAX_WAL_BYTES = 8 * 1024 * 1024;
const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

let db: Database | undefined;
let running: Instance | undefined;
afterEach(async () => {
  await running?.close().catch(() => {});
  await db?.drop();
  running = db = undefined;
});

describe('the WAL files of a serving SQLite store', () => {
  it('stay at most 8 MB after sustained usage commits', async () => {
    db = await freshDatabase('sqlite');
    const store = openStore(db.url, { serving: true });
    running = await instance(db.url, undefined, store);
    const i = running;
    const { key, grantId } = await seed(store);
    // Many keys: each commit updates day rows spread over several pages.
    const keys = [key];
    for (let k = 0; k < 400; k++) keys.push((await createKey(store, { grantId })).key);
    const usageFile = usageFilePath(db.url);
    const load = new Load(() => [i.app], keys, 16);
    let largest = 0;
    try {
      // Sustained: enough commits to write several times the limit into a WAL.
      for (let round = 0; round < 30; round++) {
        await load.moreOk(1_000, 30_000);
        largest = Math.max(largest, walSize(usageFile));
      }
    } finally {
      await load.stop();
    }
    await i.runtime.recorder.flush();
    expect(load.wrong).toEqual([]);
    expect((await storedUsage(db.url, grantId)).used).toBe(load.ok);
    console.log(`${load.ok} answers 200; the usage file's WAL at most ${largest} bytes while loaded`);
    await waitFor(() => walSize(usageFile) <= MAX_WAL_BYTES, {
      timeout: 10_000,
      what: () => `the usage file's WAL at most 8 MB (${walSize(usageFile)} bytes)`,
    });
  }, 120_000);

  it('stay at most 8 MB after an import larger than that', async () => {
    db = await freshDatabase('sqlite');
    const store = openStore(db.url, { serving: true });
    running = await instance(db.url, undefined, store);
    await seed(store);
    // One transaction of more than the limit: the WAL holds it meanwhile, and is
    // cut back once it is copied, with no other write to do it.
    await store.imports.import({
      kind: 'rates',
      records: Array.from({ length: 300_000 }, (_, k) => ({
        currency: 'EUR',
        source: 'parallel' as const,
        updatedAt: Date.now() - 300_000 * 60_000 + k * 60_000,
        buy: 240e6 + k,
        sell: 245e6 + k,
      })),
    });
    console.log(`the store file's WAL ${walSize(db.url)} bytes after the import`);
    await waitFor(() => walSize(db!.url) <= MAX_WAL_BYTES, {
      timeout: 10_000,
      what: () => `the store file's WAL at most 8 MB (${walSize(db!.url)} bytes)`,
    });
  }, 120_000);
});
