/**
 * `npm install` is clean: no EBADENGINE, no unreviewed install
 * script, no unknown config, on every Node line the project supports. npm only
 * checks the Node it runs on, so one green install on Node 20 says nothing
 * about Node 22's; the lock file records every package's `engines`, so the
 * check here covers every supported line at once, in well under a second.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/** The lines operators deploy in November 2026: the even, LTS-track ones. */
const SUPPORTED_LINES = [20, 22, 24, 26];
/** npm as bundled with the oldest Node the project accepts (20.19.0): a package may not ask for more. */
const OLDEST_NPM = '10.8.2';

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
  hasInstallScript?: boolean;
  optional?: boolean;
  link?: boolean;
}

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.link);
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** The part of the project's `engines.node` inside one major line, e.g. `>=20.19.0 <21.0.0-0`. */
function withinLine(line: number): string | undefined {
  const parts = new semver.Range(manifest.engines.node).set
    .map((comparators) => `${comparators.map((c) => c.value).join(' ')} >=${line}.0.0 <${line + 1}.0.0-0`)
    .filter((range) => semver.minVersion(range) !== null);
  return parts.length > 0 ? parts.join(' || ') : undefined;
}

describe('a clean npm install', () => {
  it('the project itself accepts every supported Node line', () => {
    for (const line of SUPPORTED_LINES) expect(withinLine(line), `Node ${line}`).toBeDefined();
  });

  it('every locked package accepts every Node version the project accepts (no EBADENGINE)', () => {
    const refused: string[] = [];
    for (const [path, entry] of installed) {
      const engines = entry.engines;
      if (!engines || Array.isArray(engines)) continue;
      if (engines.node) {
        for (const line of SUPPORTED_LINES) {
          const ours = withinLine(line)!;
          if (!semver.subset(ours, engines.node)) {
            refused.push(
              `${nameOf(path)}@${entry.version} wants node ${engines.node}, refused on Node ${line} (${ours})`,
            );
          }
        }
      }
      if (engines.npm && !semver.satisfies(OLDEST_NPM, engines.npm)) {
        refused.push(`${nameOf(path)}@${entry.version} wants npm ${engines.npm}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('every package with an install script is approved or denied in allowScripts', () => {
    // npm 11 skips an unreviewed script and warns about it at every install.
    const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map((k) => k.replace(/(.)@.*$/, '$1')));
    const unreviewed = installed
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => nameOf(path))
      .filter((name) => !decided.has(name));
    expect(unreviewed).toEqual([]);
  });

  it('npm reads the project config and the installed tree without a warning', () => {
    // A throw-away HOME: the machine's own ~/.npmrc is not the project's to answer for.
    const home = mkdtempSync(join(tmpdir(), 'mds-npm-home-'));
    try {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home };
      const res = spawnSync('npm', ['ls', '--all'], { cwd: root, env, encoding: 'utf8' });
      const warnings = res.stderr.split('\n').filter((l) => /^npm (warn|error)/i.test(l));
      expect(warnings).toEqual([]);
      expect(res.status).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
