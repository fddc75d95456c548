/**
 * `npm run mds`, `npm start` and `npm install` (prepare) run this first: it
 * builds (`npm run build`) only when dist/mds.mjs is missing or older than a
 * file it is built from.
 *
 * Why: `premds` used to build the whole project on every call,
 * about 8 s for a command that answers in 0.3 s, and operators script this
 * command. Comparing modification times costs a few milliseconds. Directories
 * count too: a file removed or added changes its directory's time.
 *
 * Plain JavaScript, not TypeScript: it must run before anything is built.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = 'dist/mds.mjs';
// What `npm run build` reads to produce dist/mds.mjs and the client (bench/ is
// built by `npm run bench` itself, which always builds).
const INPUTS = [
  'src',
  'scripts',
  'packages/client/src',
  'packages/client/tsconfig.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** The newest modification time under `path` (0 when it does not exist). */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  let time = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) time = Math.max(time, newest(join(path, name)));
  }
  return time;
}

/** Why dist/mds.mjs needs building, or null when it is up to date. */
export function staleness(dir = root) {
  const built = statSync(join(dir, OUTPUT), { throwIfNoEntry: false });
  if (built === undefined) return `${OUTPUT} is missing`;
  for (const input of INPUTS) {
    if (newest(join(dir, input)) > built.mtimeMs) return `${input} changed since the last build`;
  }
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reason = staleness();
  if (reason !== null) {
    // stderr: a script reading `npm run mds -- … --json` gets only the command's JSON on stdout.
    process.stderr.write(`build: ${reason}; running npm run build\n`);
    // npm sets npm_execpath to its own entry point: the same npm, whatever PATH holds.
    const npm = process.env.npm_execpath;
    const [command, args] = npm
      ? [process.execPath, [npm, 'run', 'build', '--silent']]
      : ['npm', ['run', 'build', '--silent']];
    const run = spawnSync(command, args, { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
    process.exitCode = run.status ?? 1;
  }
}
