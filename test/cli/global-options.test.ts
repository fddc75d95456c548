/**
 * `mds` from any folder (decisions 90): the global options `--db` and `--json`
 * may come before the command, and every command but `serve`, `init`,
 * `migrate` and `seed sample` refuses a SQLite store that does not exist instead of creating one.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mdsInProcess } from '../support/cli.js';

describe('mds global options and missing stores', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-global-'));
    db = join(dir, 'mds.sqlite');
    const init = await mdsInProcess(['init'], { db });
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts --db and --json before the command, as after it', async () => {
    const after = await mdsInProcess(['accounts', 'list', '--json'], { db });
    expect(after.status).toBe(0);
    const before = await mdsInProcess(['--db', db, '--json', 'accounts', 'list']);
    expect(before.stderr).toBe('');
    expect(before.status).toBe(0);
    expect(before.json()).toEqual(after.json());
    const mixed = await mdsInProcess([`--db=${db}`, 'keys', 'list', '--json']);
    expect(mixed.stderr).toBe('');
    expect(mixed.status).toBe(0);
    expect(mixed.json()).toEqual(expect.anything());
    const help = await mdsInProcess(['--db', db, 'keys', 'create', '--help']);
    expect(help.stdout).toMatch(/^usage: mds keys create /);
  });

  it('refuses a store that does not exist, naming its absolute path, and creates nothing', async () => {
    const folder = join(dir, 'nowhere');
    const missing = join(folder, 'mds.sqlite');
    for (const args of [
      ['accounts', 'list'],
      ['keys', 'list', '--json'],
      ['imports', 'list'],
      ['backup', join(dir, 'copy.sqlite')],
    ]) {
      const result = await mdsInProcess(args, { db: missing });
      expect(result.status, args.join(' ')).not.toBe(0);
      expect(result.stdout).toBe('');
      const message = args.includes('--json') ? result.errorJson().error.message : result.stderr;
      expect(message).toContain(resolve(missing));
      expect(message).toContain('mds init');
      expect(existsSync(folder)).toBe(false);
    }
    expect(readdirSync(dir).sort()).not.toContain('nowhere');
  });

  it('still lets init create the store', async () => {
    const fresh = join(dir, 'new', 'mds.sqlite');
    const result = await mdsInProcess(['init', '--json'], { db: fresh });
    expect(result.status).toBe(0);
    expect(existsSync(fresh)).toBe(true);
  });
});
