/**
 * The command table (src/cli/table.ts) is the one list of `mds` commands:
 * `mds --help` shows exactly its commands, in its order, and the command
 * modules depend on the shared CLI parts only, never on each other or on
 * the entry point (they used to import each other in a circle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/table.js';
import { mds } from '../support/cli.js';

const COMMANDS_DIR = join(import.meta.dirname, '../../src/cli/commands');

describe('the command table', () => {
  it('names each command once', () => {
    const names = COMMANDS.map((c) => c.name.join(' '));
    expect(new Set(names).size).toBe(names.length);
  });

  it('is what mds --help lists, in order', async () => {
    const help = await mds(['--help']);
    expect(help.status).toBe(0);
    const listed = help.stdout
      .split('\n')
      .filter((l) => l.startsWith('  mds '))
      .map((l) => l.slice('  mds '.length));
    expect(listed).toEqual(COMMANDS.map((c) => c.usage));
  });

  it('command modules import no other command module and not the entry point', () => {
    for (const file of readdirSync(COMMANDS_DIR)) {
      const source = readFileSync(join(COMMANDS_DIR, file), 'utf8');
      const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1] as string);
      for (const s of specifiers) {
        expect(s.startsWith('./'), `${file} imports ${s}`).toBe(false);
        expect(s, `${file} imports ${s}`).not.toMatch(/\/(main|table)\.js$/);
      }
    }
  });
});
