/**
 * The serving lock of a SQLite store is held by the kernel for the serving
 * process and released the moment it ends (docs/decisions.md 60): a process
 * killed with SIGKILL, one whose host name differs (a pod rescheduled on
 * another node of the same volume), a zombie nobody reaps. None of them may
 * keep a new `mds serve` from starting on the same file; a live holder still
 * refuses it (test/scale/topologies.test.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import { stopChild, track } from '../support/children.js';
import { startTime } from '../support/process-start.js';
import { CLI, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

interface Started {
  proc: ChildProcess;
  /** The serving process's pid (the spawned one, or the one its wrapper printed first). */
  pid: number;
  url: string;
}

/**
 * Runs `command args` whose output includes `mds serve`'s banner; with
 * `pidFirst`, the command prints the serving process's pid on its first line.
 */
function start(command: string, args: string[], pidFirst = false): Promise<Started> {
  const proc = spawn(command, args, {
    env: { ...process.env, MDS_LOG_LEVEL: 'warn', MDS_REDIS_URL: '', MDS_DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(proc, `${command} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => reject(new Error(`did not start: ${err}`)), 20_000);
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ proc, pid: pidFirst ? Number(out.split('\n')[0]) : proc.pid!, url });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${err}`));
    });
  });
}

const serveArgs = (db: string) => [CLI, 'serve', '--port', '0', '--db', db];

/** Whether `unshare --uts` works here (root, or user namespaces allowed). */
const unshareWorks = spawnSync('unshare', ['--uts', 'true']).status === 0;

describe('the serving lock of a SQLite store', () => {
  let dir: string;
  let db: string;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'mds-serving-lock-')));
    db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    await store.migrate();
    await store.close();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => stopChild(p, 'SIGKILL')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second process while the holder lives, naming the holder and the lock file', async () => {
    const first = await spawnServer({ db });
    started.push(first.proc);
    const second = spawnServer({ db });
    await expect(second).rejects.toThrow(new RegExp(`another mds serve \\(pid ${first.proc.pid} on `));
    await expect(second).rejects.toThrow(`${db}.lock`);
    await expect(second).rejects.toThrow(/Stop that process first/);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  it('is taken at once by a new serve after the holder was killed with SIGKILL', async () => {
    const first = await spawnServer({ db });
    await first.kill();
    const next = await spawnServer({ db });
    started.push(next.proc);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
  });

  it.runIf(unshareWorks)(
    'is taken on another host name after kill -9 (unshare --uts: pod-a, then pod-b)',
    async () => {
      const onHost = (name: string) =>
        start('unshare', [
          '--uts',
          'sh',
          '-c',
          `hostname ${name} && exec "$0" "$@"`,
          process.execPath,
          ...serveArgs(db),
        ]);
      const a = await onHost('pod-a');
      started.push(a.proc);
      // The holder is the pod-a process.
      await expect(spawnServer({ db })).rejects.toThrow(/another mds serve \(pid \d+ on pod-a/);
      await stopChild(a.proc, 'SIGKILL');
      const b = await onHost('pod-b');
      started.push(b.proc);
      expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
    },
  );

  it('is released by a holder that died and was never reaped (a zombie)', async () => {
    // sh starts the server in the background, prints its pid, then becomes
    // `sleep`, which never waits for it: once killed, the server is a zombie.
    const holder = await start(
      'sh',
      ['-c', '"$0" "$@" & echo $!; exec sleep 120', process.execPath, ...serveArgs(db)],
      true,
    );
    started.push(holder.proc);
    process.kill(holder.pid, 'SIGKILL');
    await waitFor(() => startTime(holder.pid) === null, { what: 'the server to die', timeout: 10_000 });
    // Still there as a zombie: kill(pid, 0) succeeds, which a pid lock would take for a live holder.
    expect(existsSync(`/proc/${holder.pid}`)).toBe(true);
    expect(() => process.kill(holder.pid, 0)).not.toThrow();
    const next = await spawnServer({ db });
    started.push(next.proc);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
  });
});
