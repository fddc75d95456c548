/**
 * `mds import` yields the CPU to serving processes (docs/decisions.md 76): it
 * runs at niceness 10 unless told `--priority normal`, and a value that names
 * no priority is refused before anything is read. Observed from outside, as an
 * operator's `ps` would: the import reads its records from a named pipe, and
 * the test reads the import's niceness from /proc once the import has opened
 * that pipe, before writing the records into it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild, track } from '../support/children.js';
import { mds } from '../support/cli.js';
import { CLI } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';

const RATES =
  '{"currency":"EUR","source":"parallel","buy":"250.5","sell":"252.5","updatedAt":"2025-03-01T09:00:00.000Z"}\n';

/** The niceness of a process's main thread (/proc/<pid>/stat, field 19). */
function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** The pipe's write end once a reader has it open (ENXIO until then), or undefined. */
function writerOnce(fifo: string): number | undefined {
  try {
    return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
    throw err;
  }
}

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mds-import-priority-'));
  db = join(dir, 'mds.sqlite');
  expect((await mds(['init'], { db })).status).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `mds import rates <pipe> …`, reads its niceness once it opened the pipe, then feeds it and waits for it. */
async function importAt(args: string[]): Promise<{ nice: number; status: number | null; stdout: string }> {
  const fifo = join(dir, `rates-${args.join('-') || 'default'}.ndjson`);
  execFileSync('mkfifo', [fifo]);
  const child = spawn(process.execPath, [CLI, 'import', 'rates', fifo, '--json', ...args, '--db', db], {
    env: { ...process.env, MDS_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child, `mds import rates ${fifo} ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = once(child, 'close');
  try {
    const fd = await waitFor(() => (child.exitCode !== null ? -1 : writerOnce(fifo)), {
      timeout: 15_000,
      what: () => `the import opening ${fifo} (stderr: ${stderr})`,
    });
    expect(fd, stderr).not.toBe(-1);
    const nice = niceness(child.pid!);
    writeSync(fd, RATES);
    closeSync(fd);
    const [status] = (await closed) as [number | null];
    expect(stderr).toBe('');
    return { nice, status, stdout };
  } finally {
    await stopChild(child, 'SIGKILL');
  }
}

describe.runIf(process.platform === 'linux')('mds import and the CPU priority', () => {
  it('runs at niceness 10 by default, so a serving process on the same core comes first', async () => {
    expect(niceness(process.pid)).toBeLessThan(10);
    const run = await importAt([]);
    expect(run.nice).toBe(10);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'rates', received: 1 });
  });

  it('keeps the priority it was started with under --priority normal', async () => {
    const run = await importAt(['--priority', 'normal']);
    expect(run.nice).toBe(niceness(process.pid));
    expect(run.status).toBe(0);
  });

  it('refuses a value that names no priority, naming it and the two that exist', async () => {
    const before = (await mds(['imports', 'list', '--json'], { db })).json().imports.length;
    const r = await mds(['import', 'rates', '-', '--priority', 'high'], { db, input: RATES });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--priority: "high" is not a priority; write low');
    expect(r.stderr).toContain('or normal');
    // Nothing was read or written.
    expect((await mds(['imports', 'list', '--json'], { db })).json().imports).toHaveLength(before);
  });
});
