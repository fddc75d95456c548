/**
 * WAL checkpoints of a serving SQLite store run on a worker thread
 * (src/storage/sqlite-checkpointer.ts): pages reach the database file without
 * the serving connection checkpointing, and closing leaves a clean file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/runtime/heap.js';
import { openStore } from '../../src/storage/open.js';
import { SqliteStore } from '../../src/storage/sqlite.js';
import {
  type CheckpointResult,
  SqliteCheckpointer,
  WAL_LIMIT_BYTES,
} from '../../src/storage/sqlite-checkpointer.js';
import { usageFilePath } from '../../src/storage/sqlite-files.js';
import type { Store } from '../../src/storage/store.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mds-ckpt-'));
  dirs.push(dir);
  return join(dir, 'db.sqlite');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const asset = (code: string, symbol: string) => ({
  code,
  symbol,
  names: { en: code, fr: code, ar: code },
  type: 'currency' as const,
});

/** A few small commits: each appends pages to the WAL, far fewer than any automatic checkpoint needs. */
async function writeSome(store: Store, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++)
    await store.imports.import({ kind: 'assets', records: [asset('EUR', `E${i}`)] });
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('background WAL checkpoints (SQLite, serving)', () => {
  it('move committed pages into the database file while the serving connection only appends', async () => {
    const path = tempDb();
    const reports: CheckpointResult[] = [];
    const store = SqliteStore.open(path, {
      backgroundCheckpoints: { everyMs: 20, onCheckpoint: (r) => reports.push(r) },
    });
    try {
      await store.migrate();
      await until(() => reports.length > 0); // the migration's pages
      const before = readFileSync(path);
      await writeSome(store, 5);
      // A checkpoint's count is the WAL's frames checkpointed so far, not only the
      // new ones: the file itself says when the new pages have moved.
      await until(() => !readFileSync(path).equals(before));
      expect(reports.at(-1)!.checkpointed).toBeGreaterThan(0);
      expect((await store.market.listAssets())[0]!.symbol).toBe('E4');
    } finally {
      await store.close();
    }
    // The thread's connection closed first; the serving one, closing last, folded the WAL away.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = SqliteStore.open(path);
    expect((await reopened.market.listAssets())[0]!.symbol).toBe('E4');
    await reopened.close();
  });

  it('are what moves the pages: a one-shot store leaves them in the WAL until it closes', async () => {
    const path = tempDb();
    const store = SqliteStore.open(path);
    try {
      await store.migrate();
      const before = readFileSync(path);
      await writeSome(store, 5);
      await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(path).equals(before)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('are on for the store a server opens (openStore serving), every second', async () => {
    const path = tempDb();
    const setup = openStore(path);
    await setup.migrate();
    await setup.close();
    const store = openStore(path, { serving: true });
    try {
      const before = readFileSync(path);
      await writeSome(store, 3);
      await until(() => !readFileSync(path).equals(before), 4_000);
    } finally {
      await store.close();
    }
  });

  it('let the usage WAL grow while admin imports run, and cut it back after (quietCheckpoints, decisions 98)', async () => {
    const path = tempDb();
    const setup = openStore(path);
    await setup.migrate();
    await setup.close();
    // The thread copies nothing here (an hour between passes): only the usage commits' own
    // checkpoints restart the usage WAL.
    const store = SqliteStore.open(path, { backgroundCheckpoints: { everyMs: 3_600_000 } });
    const wal = () => statSync(`${usageFilePath(path)}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    // Each commit a page or two of the WAL: 3,000 of them are well past the 1,000-page checkpoint.
    const commits = async (n: number) => {
      for (let i = 0; i < n; i++)
        await store.usage.addUsage([{ grantId: `grt_${i % 500}`, period: '2026-11', count: 1 }], Date.now());
    };
    try {
      await commits(3_000);
      expect(wal()).toBeLessThanOrEqual(WAL_LIMIT_BYTES + 64 * 1024);
      store.usage.quietCheckpoints?.(true);
      await commits(3_000);
      expect(wal()).toBeGreaterThan(WAL_LIMIT_BYTES + 64 * 1024);
      // The store file's WAL is small: checkpoints resume at once, and the WAL restarts, cut back.
      store.usage.quietCheckpoints?.(false);
      await commits(3_000);
      expect(wal()).toBeLessThanOrEqual(WAL_LIMIT_BYTES + 64 * 1024);
    } finally {
      await store.close();
    }
  });

  it('report a thread that cannot open the file, and stop cleanly', async () => {
    const errors: Error[] = [];
    const checkpointer = SqliteCheckpointer.start(join(tmpdir(), 'mds-no-such-dir', 'x.sqlite'), {
      onError: (e) => errors.push(e),
    });
    await until(() => errors.length > 0);
    expect(errors[0]!.message).toMatch(/unable to open|does not exist|directory/i);
    await checkpointer.stop();
  });

  // CI once failed `npm run build` with exit 13: the OpenAPI generator's last
  // task was closing a serving store, and awaiting an unref'd thread's exit
  // let the process end mid-await. Run as its own process, like that script.
  it('keep a process alive while it waits for the thread to stop (a script ending on close exits 0)', () => {
    const path = tempDb();
    const storeModule = pathToFileURL(resolve('dist/src/storage/sqlite.js')).href;
    const script = [
      `const { SqliteStore } = await import(${JSON.stringify(storeModule)});`,
      // A thread that fails says so on stderr. With `mds`'s V8 options and
      // --input-type=module, as here, it once could not start: its CommonJS
      // source ran as a module, without `require`.
      "const onError = (err) => process.stderr.write('thread: ' + err.message);",
      `const store = SqliteStore.open(${JSON.stringify(path)}, { backgroundCheckpoints: { onError } });`,
      'await store.migrate();',
      'await store.close();',
      "process.stdout.write('closed');",
    ].join('\n');
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('closed');
    expect(run.status).toBe(0);
  });

  // `mds serve` once aborted on Node 24 (`RemoveEnvironmentCleanupHook …
  // (env) != nullptr` under `Statement::~Statement`) once the collector freed a
  // better-sqlite3 statement during a collection that optimized code started
  // (sqlite-connection.ts). The store's whole life as a server runs here in a
  // process of its own, on the Node running the suite: queries through Kysely
  // and straight to better-sqlite3, an allocating loop hot enough to be
  // optimized between them, checkpoints on the thread, close, exit. On Node 24
  // the code before the fix aborted within the first rounds, every time.
  it('live through a serving store whose statements meet collections from optimized code (Node 24 abort)', () => {
    const path = tempDb();
    const storeModule = pathToFileURL(resolve('dist/src/storage/sqlite.js')).href;
    const script = [
      `const { SqliteStore } = await import(${JSON.stringify(storeModule)});`,
      'let checkpoints = 0;',
      `const store = SqliteStore.open(${JSON.stringify(path)}, {`,
      '  backgroundCheckpoints: {',
      '    everyMs: 5,',
      '    onCheckpoint: () => checkpoints++,',
      "    onError: (err) => { process.stderr.write('thread: ' + err.stack); process.exit(1); },",
      '  },',
      '});',
      'await store.migrate();',
      'const churn = (n) => { const a = []; for (let i = 0; i < n; i++) a.push({ i }); return a.length; };',
      "const names = { en: 'Euro', fr: 'Euro', ar: 'Euro' };",
      'for (let round = 0; round < 300; round++) {',
      "  const records = [{ code: 'EUR', symbol: 'E' + round, names, type: 'currency' }];",
      "  await store.imports.import({ kind: 'assets', records });",
      '  await store.market.listAssets();',
      "  await store.access.touchKeys([{ publicId: 'none', at: round }]);",
      '  await store.access.countAccounts();',
      '  churn(20_000);',
      '}',
      'for (const end = Date.now() + 10_000; checkpoints === 0 && Date.now() < end; )',
      '  await new Promise((r) => setTimeout(r, 5));',
      "if (checkpoints === 0) process.stderr.write('no checkpoint in 10 s');",
      'await store.close();',
      "process.stdout.write('closed');",
    ].join('\n');
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('closed');
    expect(run.status).toBe(0);
  });
});
