/**
 * `npm run clients:pack [-- <folder>]`: the files an operator hands a customer
 * (docs/clients.md), in one folder, by default dist/clients/:
 * - the TypeScript client as an npm tarball (`npm pack` of packages/client:
 *   mds-client-<version>.tgz), of the JavaScript `npm run build` compiled (the
 *   npm script builds first when a source changed; `npm pack`'s own prepack
 *   would compile it again, 10 s for nothing);
 * - the Python client as a wheel and an sdist (mds_client-<version>-py3-none-any.whl
 *   and mds_client-<version>.tar.gz).
 *
 * Offline: the TypeScript client has no dependency, and the Python one builds
 * with its own standard-library backend (packages/python/_build, decisions
 * 61): pip builds the wheel without an index or build isolation, and the
 * sdist is that backend's `build_sdist`, called directly, since pip makes no
 * sdist and the `build` package may not be installed. The folder is emptied
 * first, so it holds one version of each.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const out = resolve(process.argv[2] ?? join(root, 'dist', 'clients'));
const python = process.env.PYTHON ?? 'python3';

/** Runs a command to its end; its output goes to stderr, so stdout stays the list of files. */
function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', process.stderr, process.stderr] });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

run(
  'npm',
  ['pack', '--pack-destination', out, '--offline', '--silent', '--ignore-scripts'],
  join(root, 'packages', 'client'),
);

const pythonPackage = join(root, 'packages', 'python');
run(
  python,
  [
    '-m',
    'pip',
    'wheel',
    '--no-build-isolation',
    '--no-deps',
    '--no-index',
    '--quiet',
    '--wheel-dir',
    out,
    pythonPackage,
  ],
  root,
);
run(
  python,
  [
    '-c',
    'import sys; sys.path.insert(0, sys.argv[1]); import mds_build; mds_build.build_sdist(sys.argv[2])',
    join(pythonPackage, '_build'),
    out,
  ],
  root,
);

for (const name of readdirSync(out).sort()) process.stdout.write(`${join(out, name)}\n`);
