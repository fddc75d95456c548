/**
 * Runs the built admin CLI (`node dist/mds.mjs`, the bundled executable) as an operator would:
 * a child process, its exit code, stdout and stderr. `npm test` builds first.
 * `mdsInProcess` runs the same command line through the CLI's `main` in this
 * process instead: for tests of parsing, validation and refusals, where a
 * spawn (about 0.35 s each) would be most of the test's time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { stopChild, track } from './children.js';
import { CLI } from './server-process.js';

/** A parsed JSON document: tests read whatever fields they assert on. */
// biome-ignore lint/suspicious/noExplicitAny: the shape is what the test asserts.
export type Json = any;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document `--json` prints. */
  json(): Json;
  /** stderr parsed as the JSON error document `--json` prints on failure. */
  errorJson(): Json;
}

export interface CliOptions {
  /** Store URL or SQLite path, passed as `--db`. */
  db?: string;
  /** Text written to the child's stdin (for `import … -`). */
  input?: string;
  /** Leave stdin open after `input` (closed once the child exits): an input whose end never comes. */
  keepStdinOpen?: boolean;
  env?: Record<string, string>;
}

/** The parent's environment without store or Redis settings: `--db` alone chooses the store. */
function childEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MDS_LOG_LEVEL: 'warn' };
  delete env.MDS_DATABASE_URL;
  delete env.MDS_REDIS_URL;
  delete env.MDS_REDIS_PREFIX;
  return { ...env, ...extra };
}

function parseOne(text: string, what: string): Json {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not one JSON document: ${JSON.stringify(text)}`);
  }
}

/** `mds <args> [--db <db>]`; resolves when the process exits. */
export async function mds(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const argv = [CLI, ...args, ...(options.db === undefined ? [] : ['--db', options.db])];
  const child = spawn(process.execPath, argv, {
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(child, `mds ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin.on('error', () => {}); // the child may exit before reading stdin
  if (options.keepStdinOpen) child.stdin.write(options.input ?? '');
  else child.stdin.end(options.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  child.stdin.destroy();
  return {
    status: code,
    stdout,
    stderr,
    json: () => parseOne(stdout, 'stdout'),
    errorJson: () => parseOne(stderr, 'stderr'),
  };
}

let inProcess: Promise<unknown> = Promise.resolve();

/**
 * `mds <args> [--db <db>]` through src/cli/main.ts in this process, with its own
 * output streams and the environment `mds` would get: the same result as
 * `mds()` without a process. One command at a time: each opens the store
 * itself, and two SQLite writers in one thread would wait on each other's lock.
 * Not for `serve` (it keeps running) or `import` (it lowers the priority of the
 * whole process), nor for input on stdin or a changed environment: `mds()`.
 */
export function mdsInProcess(args: string[], options: { db?: string } = {}): Promise<CliResult> {
  if (args[0] === 'serve' || args[0] === 'import') throw new Error(`mds ${args[0]}: spawn it (mds())`);
  const argv = [...args, ...(options.db === undefined ? [] : ['--db', options.db])];
  const run = async (): Promise<CliResult> => {
    const { main } = await import('../../src/cli/main.js');
    let stdout = '';
    let stderr = '';
    const status = await main(argv, {
      env: childEnv(undefined),
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return {
      status,
      stdout,
      stderr,
      json: () => parseOne(stdout, 'stdout'),
      errorJson: () => parseOne(stderr, 'stderr'),
    };
  };
  const result = inProcess.then(run);
  inProcess = result.catch(() => {});
  return result;
}

export interface CliServer {
  url: string;
  /** Everything printed on stdout up to the end of the start-up banner. */
  stdout: string;
  proc: ChildProcess;
  /** SIGTERM and wait for exit (idempotent); SIGKILL after a deadline (children.ts). */
  stop(): Promise<void>;
}

/**
 * `mds serve --port 0 <args> --db <db>`: resolves once the start-up banner has
 * been printed (its last line names the API reference), or its JSON document.
 */
export async function serve(args: string[], options: CliOptions & { db: string }): Promise<CliServer> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args, '--db', options.db], {
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(proc, `mds serve ${args.join(' ')} --db ${options.db}`);
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  let stdout = '';
  const json = args.includes('--json');
  const starting = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 25_000);
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      // The text banner ends with the OpenAPI document line; --json prints one line. Log
      // lines (MDS_LOG_LEVEL=info) may come before either.
      if (json ? /^\{"url".*\n/m.test(stdout) : /^OpenAPI document: .*\n/m.test(stdout)) {
        clearTimeout(timer);
        resolve(stdout);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  let started: string;
  let url: string | undefined;
  try {
    started = await starting;
    url = json
      ? (JSON.parse(/^\{"url".*$/m.exec(started)![0]) as { url: string }).url
      : /^Market Data Service listening on (http:\/\/\S+)$/m.exec(started)?.[1];
    if (!url) throw new Error(`no URL in the banner: ${started}`);
  } catch (err) {
    await stopChild(proc, 'SIGKILL'); // a server that failed to start is not left behind
    throw err;
  }
  return {
    url,
    stdout: started,
    proc,
    stop: () => stopChild(proc, 'SIGTERM'),
  };
}
