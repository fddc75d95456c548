/**
 * Every shell command of README.md and docs/operations.md (their `sh`, `bash`
 * and `shell` blocks) runs and exits 0, but the blocks and commands listed
 * below (BLOCKS_NOT_HERE, COMMANDS_NOT_HERE) with the reason they cannot run
 * here. Each block runs in bash (`set -euo pipefail`) from one folder that holds the files of docs/operations.md's `csv <name>`
 * blocks, with `mds` the built CLI on PATH, against one store with the sample
 * data (`./data/mds.sqlite`, also `MDS_DATABASE_URL`) served by `mds serve`,
 * and with the names the docs use set: `KEY`, `PUBLIC_ID` (its public id),
 * `ACCOUNT`, `GRANT` and `MDS_ADMIN_TOKEN` (the scopes of the billing token
 * docs/operations.md creates, no more). The public
 * port 8080 and the admin port 9090 of the docs are replaced by free ones.
 * Blocks run in the order of the files, README.md first.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild, track } from '../support/children.js';
import { CLI } from '../support/server-process.js';

const FILES = ['README.md', 'docs/operations.md'] as const;

/** Whole blocks that do not run here, by their first line as written, with the reason. */
const BLOCKS_NOT_HERE: Record<string, string> = {
  'export MDS_DATABASE_URL=./data/mds.sqlite':
    'a first deploy: a server of its own on a fresh store; test/docs/operations.test.ts runs it as written and checks its answers',
  'createuser mds                 # the role the service logs in as':
    'a first deploy: a role, a database and a server of their own; test/docs/operations.test.ts runs it as written and checks its answers',
  "npm link        # puts `mds` in npm's global bin folder (npm prefix -g), linked to this checkout":
    "writes npm's global folder; test/cli/linked.test.ts runs the command it installs from another folder",
  'cp backups/mds-2026-01-31.sqlite data/mds.sqlite':
    'a restore replaces the files of a stopped server; test/cli/backup.test.ts serves a copy',
  'rm -f data/mds.sqlite-wal data/mds.sqlite-shm data/mds-usage.sqlite-wal data/mds-usage.sqlite-shm':
    'a restore step: removing the WAL of the running server would lose its commits',
};

/**
 * Commands that do not run here, by their first line as written, with the
 * reason; each is left out of its block. An entry of either list found nowhere
 * fails the test, so the lists cannot go stale.
 */
const COMMANDS_NOT_HERE: Record<string, string> = {
  'npm install && npm start   # install, then serve the API with the sample data and print a working key':
    'installs the project and serves until stopped; test/cli/serve.test.ts runs `mds serve --first-run`',
  'npm install && npm test    # install, then lint, typecheck, build and run every test':
    'the whole suite, of which this test is a part',
  'MDS_STALE_AFTER=parallel=26h,gold=1d mds serve':
    'a server that runs until stopped; test/config/stale-after.test.ts checks the variable',
  'MDS_PUBLISHED_FAMILIES=parallel,official,gold mds serve':
    'a server that runs until stopped; test/observability/published-families.test.ts serves with the variable',
  'mds audit --limit 1000 --cursor <nextCursor of the previous page>':
    'a placeholder: the cursor a previous page printed',
  'pg_dump -Fc --dbname "$MDS_DATABASE_URL" -f mds-2026-01-31.dump':
    'a PostgreSQL database of its own: the test database holds a schema per test file, which pg_dump would dump whole',
  'pg_restore --clean --if-exists --no-owner --dbname "$MDS_DATABASE_URL" mds-2026-01-31.dump':
    'a PostgreSQL database of its own: --clean would drop what other test files hold in the shared test database',
};

interface Block {
  file: string;
  line: number;
  info: string;
  text: string;
}

/** The fenced blocks of a Markdown file, indented ones (inside a list) included. */
function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    found.push({ file, line: i + 1, info: open[2]!.trim(), text: body.join('\n') });
    i = j;
  }
  return found;
}

/** A block's commands: a line and the lines it continues onto (`\` at its end, or an open `$(`/pipe). */
function commandsOf(text: string): string[] {
  const commands: string[] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    current.push(line);
    const code = line.replace(/\s+#.*$/, '');
    const open = (code.match(/\$\(/g) ?? []).length > (code.match(/\)/g) ?? []).length;
    if (code.endsWith('\\') || code.trimEnd().endsWith('|') || open) continue;
    commands.push(current.join('\n'));
    current = [];
  }
  if (current.length) commands.push(current.join('\n'));
  return commands.filter((c) => c.trim() !== '');
}

/**
 * The scopes of the billing token docs/operations.md creates: `MDS_ADMIN_TOKEN`
 * has these and no other, so an admin example that needs a scope the docs do
 * not give their token fails here.
 */
function billingScopes(): string {
  const found = new Set(
    [
      ...readFileSync('docs/operations.md', 'utf8').matchAll(
        /admin-tokens create --label billing-webhook --scopes (\S+)/g,
      ),
    ].map((m) => m[1]!.replace(/`$/, '')),
  );
  if (found.size !== 1)
    throw new Error(`docs/operations.md gives its billing token ${found.size} different scope lists`);
  return [...found][0]!;
}

const SHELL = new Set(['sh', 'bash', 'shell']);
const blocks = FILES.flatMap(blocksOf).filter((b) => SHELL.has(b.info));

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** Runs `script` in bash in `dir`; a deadline kills it and whatever it started (its process group). */
async function bash(dir: string, env: NodeJS.ProcessEnv, script: string, deadlineMs: number) {
  const wrapped = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n${script}`;
  const child = spawn('bash', ['-c', wrapped], { cwd: dir, env, detached: true });
  track(child, 'bash (a command of the docs)');
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, deadlineMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {}
  return { code, output };
}

describe('the shell commands of README.md and docs/operations.md', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | undefined;
  let port: number;
  let adminPort: number;
  const used = new Set<string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-doc-commands-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(bin, 'mds'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'mds'), 0o755);
    for (const b of blocksOf('docs/operations.md')) {
      const name = /^csv (\S+)$/.exec(b.info)?.[1];
      if (name) writeFileSync(join(dir, name), `${b.text}\n`);
    }
    const base: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MDS_')) base[k] = v;
    Object.assign(base, {
      PATH: `${bin}:${process.env.PATH}`,
      MDS_DATABASE_URL: './data/mds.sqlite',
      MDS_LOG_LEVEL: 'warn',
    });
    const mds = (...args: string[]) =>
      execFileSync(process.execPath, [CLI, ...args], { cwd: dir, env: base, encoding: 'utf8' }).trim();
    mds('seed', 'sample');
    const account = mds('accounts', 'create', '--name', 'Docs reader');
    const grant = mds('grants', 'create', '--account', account, '--plan', 'enterprise');
    const key = JSON.parse(mds('keys', 'create', '--grant', grant, '--json')) as {
      key: string;
      publicId: string;
    };
    const admin = JSON.parse(
      mds('admin-tokens', 'create', '--label', 'docs', '--scopes', billingScopes(), '--json'),
    ) as {
      token: string;
    };
    port = await freePort();
    adminPort = await freePort();
    server = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
      cwd: dir,
      env: { ...base, MDS_ADMIN_PORT: String(adminPort) },
      stdio: 'ignore',
    });
    track(server, 'mds serve (docs commands)');
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      const adminUp = await fetch(`http://127.0.0.1:${adminPort}/metrics`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready && adminUp) break;
      if (Date.now() > deadline) throw new Error('mds serve did not become ready within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    env = {
      ...base,
      KEY: key.key,
      PUBLIC_ID: key.publicId,
      ACCOUNT: account,
      GRANT: grant,
      MDS_ADMIN_TOKEN: admin.token,
    };
  }, 60_000);

  afterAll(async () => {
    if (server) await stopChild(server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the blocks', () => {
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((b) => b.file === 'docs/operations.md').length).toBeGreaterThanOrEqual(10);
  });

  for (const block of blocks) {
    const head = block.text.split('\n')[0]!.trim();
    if (head in BLOCKS_NOT_HERE) {
      used.add(head);
      it.skip(`${block.file}:${block.line}: ${BLOCKS_NOT_HERE[head]}`, () => {});
      continue;
    }
    it(`${block.file}:${block.line} exits 0`, async () => {
      const kept = commandsOf(block.text).filter((command) => {
        const first = command.split('\n')[0]!.trim();
        if (first in COMMANDS_NOT_HERE) {
          used.add(first);
          return false;
        }
        return true;
      });
      if (kept.length === 0) return;
      const script = kept
        .join('\n')
        .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
        .replaceAll('127.0.0.1:9090', `127.0.0.1:${adminPort}`);
      const r = await bash(dir, env, script, 30_000);
      if (process.env.MDS_TEST_SHOW_DOC_OUTPUT) console.log(`${block.file}:${block.line}\n${r.output}`);
      const report = `${block.file}:${block.line}\n${script}\n--- output:\n${r.output}`;
      expect(r.code, report).toBe(0);
      // No command of the docs is answered with the error envelope.
      expect(r.output, report).not.toMatch(/"error":\{/);
    }, 40_000);
  }

  it('lists no command that is not in the docs', () => {
    const listed = [...Object.keys(BLOCKS_NOT_HERE), ...Object.keys(COMMANDS_NOT_HERE)];
    expect(listed.filter((c) => !used.has(c))).toEqual([]);
  });
});
