/**
 * Faults during `mds import` on the embedded SQLite store (part 5):
 * a read-only store, a full disk and a crash mid-import. Each must end with a
 * clear error (or a killed process) and the store exactly as before or exactly
 * as after: never part of an import. (A store stopped under load is covered by
 * test/scale/outage.test.ts.)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { SqliteConnection } from '../../src/storage/sqlite-connection.js';
import { track } from '../support/children.js';
import { CLI } from '../support/server-process.js';

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `mds <args>` as a child process, optionally as another user (root only). */
function start(
  args: string[],
  options: { env?: Record<string, string>; uid?: number; gid?: number } = {},
): { child: ChildProcess; done: Promise<Run> } {
  const env: NodeJS.ProcessEnv = { ...process.env, MDS_LOG_LEVEL: 'warn', ...options.env };
  delete env.MDS_DATABASE_URL;
  // The files here are synthetic series that step further than any market: the
  // plausibility guards (docs/decisions.md, 51) are not what this suite is about.
  // Nor is the import's priority (decisions 76): at its default niceness it
  // waits behind every other process of the test run, and the crash below
  // would come before it wrote anything.
  if (args[0] === 'import') args = [...args, '--accept-outliers', '--priority', 'normal'];
  const child = spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  track(child, `mds ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const done = once(child, 'close').then(([status, signal]) => ({
    status: status as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return { child, done };
}

const mds = (args: string[], options?: Parameters<typeof start>[1]) => start(args, options).done;

/** Rate observations on days before the sample (year 2000): every one is an insert. */
function ratesFile(path: string, count: number): void {
  const codes = ['EUR', 'USD', 'GBP', 'CAD', 'CHF'];
  const t0 = Date.UTC(2000, 0, 1);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(
      JSON.stringify({
        currency: codes[i % codes.length],
        source: 'official',
        buy: `${100 + (i % 50)}.25`,
        sell: `${101 + (i % 50)}.75`,
        updatedAt: new Date(t0 + Math.floor(i / codes.length) * 60_000).toISOString(),
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

interface Snapshot {
  rates: number;
  gold: number;
  assets: number;
  dataVersion: number;
  integrity: string;
}

/** Row counts, the data version and an integrity check, straight from the file. */
function snapshot(db: string): Snapshot {
  // Through SqliteConnection: a statement left to the collector aborts Node 24 (sqlite-connection.ts).
  const conn = SqliteConnection.open(db);
  try {
    const count = (table: string) => conn.statement(`select count(*) from ${table}`, 'pluck').get() as number;
    return {
      rates: count('rates'),
      gold: count('gold'),
      assets: count('assets'),
      dataVersion: Number(conn.statement("select value from versions where name = 'data'", 'pluck').get()),
      integrity: (conn.statement('pragma integrity_check', 'pluck').get() as string) ?? '',
    };
  } finally {
    conn.close();
  }
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function tryExec(cmd: string, args: string[]): string | null {
  try {
    execFileSync(cmd, args, { stdio: 'pipe' });
    return null;
  } catch (err) {
    return ((err as { stderr?: Buffer }).stderr?.toString() || (err as Error).message).trim();
  }
}

describe('mds import under faults (SQLite)', () => {
  let root: string;
  let template: string;
  let small: string;
  const NOBODY = 65_534;

  /** A copy of the seeded template store in its own directory. */
  const freshStore = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir, { mode: 0o755 });
    const db = join(dir, 'mds.sqlite');
    copyFileSync(template, db);
    return { dir, db };
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'mds-faults-'));
    chmodSync(root, 0o755); // readable by an unprivileged child when the suite runs as root
    template = join(root, 'template.sqlite');
    const store = openStore(template);
    await store.migrate();
    await seedSample(store, generateSample({ endDate: '2026-11-20', days: 10 }));
    await store.close(); // checkpoints the WAL: the file alone is the whole store
    small = join(root, 'small.ndjson');
    ratesFile(small, 10);
    chmodSync(small, 0o644);
  }, 30_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a read-only store: a clear error, a non-zero exit, nothing written', async (ctx) => {
    const { dir, db } = freshStore('readonly');
    const before = snapshot(db);
    const hash = sha256(db);
    const files = readdirSync(dir).sort();

    // Make the store read-only the way an operator would meet it. Root ignores file modes:
    // then the immutable attribute, or the CLI run as an unprivileged user.
    let how: string;
    let asUser: { uid: number; gid: number } | undefined;
    let restore: () => void;
    if (process.getuid?.() !== 0) {
      chmodSync(db, 0o444);
      chmodSync(dir, 0o555);
      how = 'chmod 0444 file, 0555 directory';
      restore = () => {
        chmodSync(dir, 0o755);
        chmodSync(db, 0o644);
      };
    } else if (tryExec('chattr', ['+i', db]) === null && tryExec('chattr', ['+i', dir]) === null) {
      how = 'chattr +i on the file and its directory (running as root)';
      restore = () => {
        tryExec('chattr', ['-i', dir]);
        tryExec('chattr', ['-i', db]);
      };
    } else {
      tryExec('chattr', ['-i', db]);
      chmodSync(db, 0o444);
      chmodSync(dir, 0o555);
      restore = () => {
        chmodSync(dir, 0o755);
        chmodSync(db, 0o644);
      };
      const probe = await mds(['--help'], { uid: NOBODY, gid: NOBODY });
      if (probe.status !== 0) {
        restore();
        console.log(
          `read-only store test skipped: running as root, chattr is unavailable and uid ${NOBODY} cannot run the CLI (${probe.stderr.trim()})`,
        );
        return ctx.skip();
      }
      how = `chmod 0444/0555 and the CLI run as uid ${NOBODY} (root, no chattr)`;
      asUser = { uid: NOBODY, gid: NOBODY };
    }
    console.log(`read-only store: ${how}`);

    let text: Run;
    let json: Run;
    try {
      text = await mds(['import', 'rates', small, '--db', db], asUser);
      json = await mds(['import', 'rates', small, '--db', db, '--json'], asUser);
    } finally {
      restore();
    }

    expect(text.status, text.stderr).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(
      /^mds: import failed: the store (is read-only|cannot be opened for writing) \(check .+\); nothing was imported \(.*mds\.sqlite: .+\)\n$/,
    );
    expect(text.stderr).not.toContain('unexpected error');
    expect(json.status).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr).error.message).toMatch(/^import failed: the store .*nothing was imported/);

    // Untouched: same bytes, same files, same rows.
    expect(sha256(db)).toBe(hash);
    expect(readdirSync(dir).sort()).toEqual(files);
    expect(snapshot(db)).toEqual(before);

    // Writable again, the same import goes through: the store was never damaged.
    const ok = await mds(['import', 'rates', small, '--db', db, '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ kind: 'rates', received: 10, inserted: 10 });
    expect(snapshot(db).rates).toBe(before.rates + 10);
  });

  it('a full disk (MDS_SQLITE_MAX_PAGES): a clear error, a non-zero exit, the store unchanged', async () => {
    const { db } = freshStore('full-pages');
    const big = join(root, 'full-pages.ndjson');
    ratesFile(big, 30_000);
    const before = snapshot(db);
    const pages = statSync(db).size / 4096;
    // Room for ~40 more pages: the import fills them, then the "disk" is full mid-transaction.
    const r = await mds(['import', 'rates', big, '--db', db], {
      env: { MDS_SQLITE_MAX_PAGES: String(pages + 40) },
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^mds: import failed: the disk holding the store is full; nothing was imported \(.*mds\.sqlite: database or disk is full\)\n$/,
    );
    expect(snapshot(db)).toEqual(before);
    // With room again, the same file imports completely.
    const ok = await mds(['import', 'rates', big, '--db', db, '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ received: 30_000, inserted: 30_000 });
    expect(snapshot(db)).toMatchObject({ rates: before.rates + 30_000, integrity: 'ok' });
  });

  it('a full disk (a 1 MB tmpfs): a clear error, a non-zero exit, the store unchanged', async (ctx) => {
    const dir = join(root, 'tmpfs');
    mkdirSync(dir, { mode: 0o755 });
    const failed = tryExec('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    if (failed !== null) {
      console.log(`tmpfs full-disk test skipped: cannot mount a tmpfs here (${failed})`);
      return ctx.skip();
    }
    try {
      const db = join(dir, 'mds.sqlite');
      copyFileSync(template, db);
      const big = join(root, 'tmpfs.ndjson');
      ratesFile(big, 30_000); // several MB of pages: more than the 1 MB filesystem holds
      const before = snapshot(db);
      const r = await mds(['import', 'rates', big, '--db', db]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^mds: import failed: the disk holding the store is full; nothing was imported/,
      );
      expect(snapshot(db)).toEqual(before);
      // The store still takes a small import in the space that is left.
      const ok = await mds(['import', 'rates', small, '--db', db, '--json']);
      expect(ok.status, ok.stderr).toBe(0);
      expect(snapshot(db).rates).toBe(before.rates + 10);
    } finally {
      tryExec('umount', [dir]);
    }
  });

  it('a crash (SIGKILL) while the import writes: afterwards all of it or none, never part', async () => {
    const { db } = freshStore('crash');
    const N = 300_000;
    const big = join(root, 'crash.ndjson');
    ratesFile(big, N);
    const before = snapshot(db);

    const { child, done } = start(['import', 'rates', big, '--db', db]);
    // Wait until the transaction is spilling pages into the WAL, then kill the process.
    const wal = `${db}-wal`;
    const started = performance.now();
    let walBytes = 0;
    while (performance.now() - started < 60_000 && child.exitCode === null) {
      walBytes = existsSync(wal) ? statSync(wal).size : 0;
      if (walBytes > 1024 * 1024) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
    const r = await done;
    expect(r.signal, `the import finished before it could be killed: ${r.stdout}${r.stderr}`).toBe('SIGKILL');
    expect(walBytes).toBeGreaterThan(1024 * 1024);

    const after = snapshot(db);
    expect(after.integrity).toBe('ok');
    const visible = after.rates - before.rates;
    console.log(`killed with ${(walBytes / 1e6).toFixed(1)} MB in the WAL: ${visible} of ${N} rows visible`);
    // All or none, never part.
    expect([0, N]).toContain(visible);
    if (visible === 0) expect(after).toEqual(before);
    else expect(after).toEqual({ ...before, rates: before.rates + N, dataVersion: before.dataVersion + 1 });

    // The store recovers: the same import completes, and the rows are there exactly once.
    const ok = await mds(['import', 'rates', big, '--db', db, '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject(
      visible === 0 ? { received: N, inserted: N, unchanged: 0 } : { received: N, inserted: 0, unchanged: N },
    );
    expect(snapshot(db)).toMatchObject({
      rates: before.rates + N,
      dataVersion: before.dataVersion + 1,
      integrity: 'ok',
    });
  }, 90_000);
});
