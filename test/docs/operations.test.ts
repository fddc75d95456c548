/**
 * docs/operations.md's "First deploy" sections, run as written: their `sh`
 * blocks in bash, with `mds` the built CLI on PATH, from a fresh folder that
 * holds the files of their `csv <name>` blocks. Only the port (a free one)
 * and, on PostgreSQL, the names of the role and database the block creates
 * (the test server is shared) are the test's own; `createuser` and `createdb`
 * reach it as its superuser through libpq's variables. The files' times are
 * moved so that the newest is a minute old, as a deploy's own files would be
 * on its day: the blocks end with the freshness check a cron job runs, which
 * must pass (the script stops on any failure). The answers the blocks' curl
 * lines print are checked.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { backends, POSTGRES_URL } from '../support/backends.js';
import { track } from '../support/children.js';
import { CLI } from '../support/server-process.js';

const DOC = readFileSync('docs/operations.md', 'utf8');

interface Block {
  info: string;
  text: string;
}

/** The fenced blocks of the section headed `## title`. */
function blocks(title: string): Block[] {
  const start = DOC.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`docs/operations.md has no section "${title}"`);
  const end = DOC.indexOf('\n## ', start + 1);
  const section = DOC.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({
    info: (m[1] ?? '').trim(),
    text: m[2] ?? '',
  }));
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** The parent's environment without any MDS_* setting: the script sets its own. */
function cleanEnv(bin: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MDS_')) env[k] = v;
  return { ...env, PATH: `${bin}:${env.PATH}`, MDS_LOG_LEVEL: 'warn' };
}

/** Runs `script` in bash in `dir`; a deadline kills it and whatever it started (its process group). */
async function bash(dir: string, script: string, deadlineMs: number, extraEnv: NodeJS.ProcessEnv = {}) {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mds'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'mds'), 0o755);
  // Background jobs (the server) are stopped when the script ends, however it ends.
  const wrapped = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n${script}`;
  const child = spawn('bash', ['-c', wrapped], {
    cwd: dir,
    env: { ...cleanEnv(bin), ...extraEnv },
    detached: true,
  });
  track(child, 'bash (docs/operations.md script)');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, deadlineMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  // Nothing it started outlives it.
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {}
  return { code, stdout, stderr };
}

const INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g;
const NEWEST = Math.max(
  ...blocks('First deploy on SQLite')
    .filter((b) => b.info.startsWith('csv '))
    .flatMap((b) => [...b.text.matchAll(INSTANT)].map(([t]) => Date.parse(t))),
);

/** `csv` with every instant moved by the same amount, the files' newest to a minute ago. */
function recent(csv: string): string {
  const shift = Date.now() - 60_000 - NEWEST;
  return csv.replace(INSTANT, (t) => new Date(Date.parse(t) + shift).toISOString());
}

/** The JSON documents the script's curl lines printed. */
function answers(stdout: string): Array<{ data: unknown }> {
  const found: Array<{ data: unknown }> = [];
  for (const m of stdout.matchAll(/\{"data":.*?\}\}(?=\{|\n|$)/g)) found.push(JSON.parse(m[0]));
  return found;
}

/** Drops the databases and roles the PostgreSQL test created, each named after its role. */
async function dropRoles(names: string[]): Promise<void> {
  if (!POSTGRES_URL || names.length === 0) return;
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  try {
    for (const name of names) {
      await c.query(`drop database if exists ${name} with (force)`);
      await c.query(`drop role if exists ${name}`);
    }
  } finally {
    await c.end();
  }
}

describe('docs/operations.md, first deploy', () => {
  const dirs: string[] = [];
  const roles: string[] = [];
  afterAll(async () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await dropRoles(roles);
  });

  /** A fresh folder with the files the first-deploy sections show. */
  function folder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mds-ops-doc-'));
    dirs.push(dir);
    for (const b of blocks('First deploy on SQLite')) {
      const name = /^csv (\S+)$/.exec(b.info)?.[1];
      if (name) writeFileSync(join(dir, name), recent(b.text));
    }
    return dir;
  }

  function script(title: string, port: number, databaseUrl?: string): string {
    const sh = blocks(title).filter((b) => b.info === 'sh');
    expect(sh).toHaveLength(1);
    let text = sh[0]!.text.replaceAll(':8080', `:${port}`).replaceAll('--port 8080', `--port ${port}`);
    if (databaseUrl) text = text.replace(/MDS_DATABASE_URL=\S+/, `MDS_DATABASE_URL='${databaseUrl}'`);
    return text;
  }

  it('on SQLite: init, a dry run, imports, account, grant, key, serve, the answers and the cron check', async () => {
    const dir = folder();
    const port = await freePort();
    const r = await bash(dir, script('First deploy on SQLite', port), 90_000);
    expect(r.stderr).not.toMatch(/^mds: /m);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dry run, nothing written: rates: 4 received, 4 inserted/m);
    const [rates, gold] = answers(r.stdout);
    // The parallel rate is the default source (docs/decisions.md).
    expect(rates?.data).toEqual([
      expect.objectContaining({ currency: 'EUR', source: 'parallel', buy: 262.5, sell: 265 }),
    ]);
    expect(gold?.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ purity: '18K', buy: 30100, sell: 30600 })]),
    );
  });

  const postgres = backends().find((b) => b.name === 'postgres');
  it.runIf(postgres)('on PostgreSQL: the role and database it names, then the same sequence', async () => {
    // The docs' role and database `mds`, named for this run: the server is shared.
    const name = `mds_doc_${randomBytes(4).toString('hex')}`;
    const server = new URL(POSTGRES_URL!);
    roles.push(name);
    const url = `postgres://${name}@${server.host}/${name}`;
    const port = await freePort();
    const text = script('First deploy on PostgreSQL', port, url)
      .replace(/^createuser mds\b/m, `createuser ${name}`)
      .replace(/^createdb --owner mds mds\b/m, `createdb --owner ${name} ${name}`);
    expect(text).not.toMatch(/\bmds mds\b|createuser mds\b/);
    const dir = folder();
    // createuser and createdb reach the server as its superuser, through libpq's variables.
    const superuser: NodeJS.ProcessEnv = {
      PGHOST: server.hostname,
      PGPORT: server.port || '5432',
      PGUSER: decodeURIComponent(server.username) || 'postgres',
    };
    if (server.password) superuser.PGPASSWORD = decodeURIComponent(server.password);
    const r = await bash(dir, text, 90_000, superuser);
    expect(r.stderr).not.toMatch(/^mds: /m);
    expect(r.code).toBe(0);
    const [rates] = answers(r.stdout);
    expect(rates?.data).toEqual([
      expect.objectContaining({ currency: 'EUR', source: 'parallel', buy: 262.5, sell: 265 }),
    ]);
  });
});
