/**
 * Running the machine's `python3` from tests: a venv in a temporary folder,
 * commands run asynchronously (so that an HTTP server in the test's own
 * process keeps answering them) with a deadline, and an environment without
 * the test run's npm, pip and MDS_* variables, as a customer's shell has.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const REPO = resolve('.');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a customer's shell: none of the test run's npm_*, MDS_* or virtualenv variables. */
export function customerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|NPM_|MDS_|VIRTUAL_ENV|PYTHONHOME|PYTHONPATH|PIP_|INIT_CWD)/.test(name)) env[name] = value;
  }
  // Not the repository's node_modules/.bin either (npm puts it on PATH for `npm test`).
  env.PATH = (env.PATH ?? '')
    .split(':')
    .filter((entry) => entry !== REPO && !entry.startsWith(`${REPO}/`))
    .join(':');
  return {
    ...env,
    // No network: pip uses no index (the package needs none), npm installs from the folder given.
    PIP_NO_INDEX: '1',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** Runs a command to its end (or kills it at the deadline) and returns its exit code and output. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number; input?: string } = {},
): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? customerEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timeout = options.timeout ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: not done within ${timeout} ms\n${stdout}\n${stderr}`));
    }, timeout);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Like `run`, but fails with the command's output unless it exits 0. */
export async function runOk(
  command: string,
  args: string[],
  options: Parameters<typeof run>[2] = {},
): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** A venv in `dir` with packages/python installed as a customer would (`pip install <path>`), offline. */
export async function venvWithClient(dir: string): Promise<string> {
  await runOk('python3', ['-m', 'venv', join(dir, 'venv')], { timeout: 60_000 });
  const python = join(dir, 'venv', 'bin', 'python');
  await runOk(python, ['-m', 'pip', 'install', '--quiet', join(REPO, 'packages', 'python')], {
    cwd: dir,
    timeout: 120_000,
  });
  return python;
}

/** The fenced blocks of one language in a Markdown text, in order. */
export function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (m) => m[1]!,
  );
}

/**
 * `node tsc …` as a customer's strict TypeScript project checks `.mts` files:
 * the arguments for runOk, with the repository's compiler and Node's types.
 */
export function strictTsc(files: string[]): [string, string[]] {
  return [
    process.execPath,
    [
      join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--noUncheckedIndexedAccess',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      '--typeRoots',
      join(REPO, 'node_modules', '@types'),
      '--types',
      'node',
      ...files,
    ],
  ];
}
