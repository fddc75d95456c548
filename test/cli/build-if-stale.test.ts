/**
 * `npm run mds` builds only when something it is built from changed
 * (scripts/build-if-stale.mjs): it used to rebuild the whole
 * project on every call.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleness } from '../../scripts/build-if-stale.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HOUR = 3600;
const now = Date.now() / 1000;

/** A checkout whose every input was written an hour ago, and dist/mds.mjs built after them. */
function builtCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), 'mds-stale-'));
  dirs.push(root);
  const files = [
    'src/cli/main.ts',
    'src/storage/sqlite.ts',
    'scripts/bundle.ts',
    'packages/client/src/index.ts',
    'packages/client/tsconfig.json',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'bench/run.ts',
  ];
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), '');
  }
  for (const d of ['src/cli', 'src/storage', 'src', 'scripts', 'packages/client/src', 'packages/client']) {
    utimesSync(join(root, d), now - HOUR, now - HOUR);
  }
  for (const f of files) utimesSync(join(root, f), now - HOUR, now - HOUR);
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist/mds.mjs'), '');
  utimesSync(join(root, 'dist/mds.mjs'), now - HOUR / 2, now - HOUR / 2);
  return root;
}

describe('build-if-stale (premds, start, prepare)', () => {
  it('builds nothing when dist/mds.mjs is newer than every input', () => {
    expect(staleness(builtCheckout())).toBeNull();
  });

  it('builds when the bundle is missing', () => {
    const root = builtCheckout();
    rmSync(join(root, 'dist/mds.mjs'));
    expect(staleness(root)).toMatch(/dist\/mds\.mjs is missing/);
  });

  it('builds when a source file, the lock file or a compiler setting changed', () => {
    for (const file of ['src/storage/sqlite.ts', 'package-lock.json', 'tsconfig.build.json']) {
      const root = builtCheckout();
      utimesSync(join(root, file), now, now);
      expect(staleness(root)).toMatch(/changed since the last build/);
    }
  });

  it('builds when a source file was removed (its directory changed)', () => {
    const root = builtCheckout();
    rmSync(join(root, 'src/storage/sqlite.ts'));
    expect(staleness(root)).toMatch(/^src changed/);
  });

  it('ignores what the bundle is not built from (the bench builds itself)', () => {
    const root = builtCheckout();
    utimesSync(join(root, 'bench/run.ts'), now, now);
    expect(staleness(root)).toBeNull();
  });

  it('is what npm run mds, npm start and npm install run, instead of a full build', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(scripts.premds).toBe('node scripts/build-if-stale.mjs');
    expect(scripts.prepare).toBe('node scripts/build-if-stale.mjs');
    expect(scripts.start).toMatch(/^node scripts\/build-if-stale\.mjs && node /);
  });
});
