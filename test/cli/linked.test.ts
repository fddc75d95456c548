/**
 * `mds` as an operator installs it once with `npm link` (docs/operations.md):
 * npm links the checkout into its global folder and puts the `bin` entry of
 * package.json on the PATH. The test builds that layout in a temp prefix (a
 * real `npm link` would write npm's global folder), then runs `mds` by name
 * from another temp folder: paths are relative to that folder, the store lands
 * there and not in the checkout, and stdout is the command's output alone, so
 * `$(mds …)` captures exactly it.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const checkout = resolve('.');
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  name: string;
  bin: Record<string, string>;
};

let prefix: string;
let work: string;
let env: NodeJS.ProcessEnv;

/** Runs the linked `mds` (<prefix>/bin/mds, on the PATH) in `work`; stdout as printed. */
const mds = (...args: string[]) =>
  execFileSync(join(prefix, 'bin', 'mds'), args, { cwd: work, env, encoding: 'utf8' });

beforeAll(() => {
  prefix = mkdtempSync(join(tmpdir(), 'mds-npm-prefix-'));
  // What `npm link` makes: <prefix>/lib/node_modules/<name> -> the checkout, <prefix>/bin/mds -> its bin entry.
  mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  symlinkSync(checkout, join(prefix, 'lib', 'node_modules', manifest.name));
  symlinkSync(
    join('..', 'lib', 'node_modules', manifest.name, manifest.bin.mds!),
    join(prefix, 'bin', 'mds'),
  );
  work = mkdtempSync(join(tmpdir(), 'mds-elsewhere-'));
  writeFileSync(
    join(work, 'x.csv'),
    'currency,source,buy,sell,updatedAt\nEUR,parallel,262.5,265,2026-11-24T09:00:00Z\n',
  );
  env = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MDS_') && !k.startsWith('npm_')) env[k] = v;
  env.PATH = `${join(prefix, 'bin')}:${dirname(process.execPath)}:${process.env.PATH}`;
});

afterAll(() => {
  rmSync(prefix, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('mds linked with npm link, run from another folder', () => {
  it('package.json names the executable npm links', () => {
    expect(manifest.bin.mds).toBe('dist/mds.mjs');
    expect(readFileSync(manifest.bin.mds!, 'utf8')).toMatch(/^#!\/usr\/bin\/env -S node\b/);
  });

  it('reads ./x.csv and writes --db ./y.sqlite in the folder it is typed in; stdout is only the JSON', () => {
    const init = mds('--db', './y.sqlite', 'init', '--json');
    expect(JSON.parse(init)).toMatchObject({ store: './y.sqlite', assets: { loaded: 30 } });
    const out = mds('import', 'rates', './x.csv', '--db', './y.sqlite', '--json');
    // One JSON document and its line end: no banner, no progress, no log line.
    expect(out.endsWith('}\n')).toBe(true);
    expect(JSON.parse(out)).toMatchObject({ kind: 'rates', received: 1, inserted: 1, dryRun: false });
    expect(existsSync(join(work, 'y.sqlite'))).toBe(true);
    expect(existsSync(join(checkout, 'y.sqlite'))).toBe(false);
  });

  it('prints only the new id, as $(mds accounts create …) captures it', () => {
    const out = mds('accounts', 'create', '--name', 'Acme Exchange', '--db', './y.sqlite');
    expect(out).toMatch(/^acc_[a-z0-9]+\n$/);
  });
});
