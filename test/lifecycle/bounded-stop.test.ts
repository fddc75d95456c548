/**
 * A SIGTERM ends `mds serve` within MDS_DRAIN_MS plus the bounded close
 * (10 s, src/runtime/stop-deadline.ts), whatever the state of its store and
 * of its stdout (docs/decisions.md 60): its SQLite folder removed, its stdout
 * pipe closed, or its stdout no longer read.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stopChild } from '../support/children.js';
import { type CliServer, serve } from '../support/cli.js';

const DRAIN_MS = 200;
/** The drain, the bounded close, the watchdog's grace, and room for a loaded machine. */
const EXIT_WITHIN_MS = DRAIN_MS + 10_000 + 2_000 + 5_000;

/** Requests with the first-run key, `count` of them, `width` at a time; failures are ignored. */
async function load(server: CliServer, key: string, count: number, width = 8) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < count) {
        await fetch(`${server.url}/v1/rates/latest?currency=EUR`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(5_000),
        }).then(
          (res) => res.arrayBuffer(),
          () => undefined,
        );
      }
    }),
  );
}

/** SIGTERM, then the exit's code and signal, or 'still running' past the deadline. */
async function terminate(server: CliServer) {
  const exited = once(server.proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const started = Date.now();
  server.proc.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), EXIT_WITHIN_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  return { outcome, ms: Date.now() - started };
}

describe('a SIGTERM ends mds serve within the drain plus the bounded close', () => {
  const servers: CliServer[] = [];
  const dirs: string[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => stopChild(s.proc, 'SIGKILL')));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-bounded-stop-'));
    dirs.push(dir);
    const server = await serve(['--first-run'], {
      db: join(dir, 'mds.sqlite'),
      env: { MDS_DRAIN_MS: String(DRAIN_MS), ...env },
    });
    servers.push(server);
    const key = /^ {2}(mds_\S+)$/m.exec(server.stdout)?.[1];
    if (!key) throw new Error(`no key in the banner: ${server.stdout}`);
    return { server, dir, key };
  };

  it('when its SQLite folder was removed while it served', { timeout: 60_000 }, async () => {
    const { server, dir, key } = await start();
    await load(server, key, 200);
    rmSync(dir, { recursive: true, force: true });
    await load(server, key, 50);
    const { outcome } = await terminate(server);
    expect(outcome).not.toBe('still running');
  });

  it('when the parent closed its stdout and stderr pipes', { timeout: 60_000 }, async () => {
    const { server, key } = await start({ MDS_LOG_LEVEL: 'info' });
    await load(server, key, 100);
    server.proc.stdout!.destroy();
    server.proc.stderr!.destroy();
    await load(server, key, 100);
    const { outcome } = await terminate(server);
    expect(outcome).not.toBe('still running');
  });

  it('when nobody reads its stdout any more (a full pipe)', { timeout: 60_000 }, async () => {
    const { server, key } = await start({ MDS_LOG_LEVEL: 'info' });
    // Its access lines (about 400 bytes each) fill the pipe and this side's buffer many times over.
    server.proc.stdout!.removeAllListeners('data');
    server.proc.stdout!.pause();
    await load(server, key, 2_000);
    const { outcome } = await terminate(server);
    expect(outcome).not.toBe('still running');
  });
});
