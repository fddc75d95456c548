/**
 * `mds import` on a terminal shows its progress and ends with a summary
 *; piped or with --json it prints nothing but the result. The
 * terminal is a real pseudo-terminal from util-linux `script`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/server-process.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.runIf(hasScript)('import progress on a terminal', () => {
  let dir: string;
  let db: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mds-progress-'));
    db = join(dir, 'mds.sqlite');
    writeFileSync(db, ''); // an empty store: `mds import` refuses a missing one
    const assets = join(dir, 'assets.ndjson');
    writeFileSync(
      assets,
      `${JSON.stringify({ code: 'EUR', symbol: '€', names: { en: 'Euro', fr: 'Euro', ar: 'يورو' }, type: 'currency' })}\n`,
    );
    execFileSync(process.execPath, [CLI, 'import', 'assets', assets, '--db', db]);
    const start = Date.UTC(2020, 0, 1);
    const lines: string[] = [];
    for (let i = 0; i < 120_000; i++) {
      lines.push(`EUR,parallel,250.5,252,${new Date(start + i * 60_000).toISOString()}`);
    }
    file = join(dir, 'rates.csv');
    writeFileSync(file, `currency,source,buy,sell,updatedAt\n${lines.join('\n')}\n`);
  }, 30_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the steps and a running count on a terminal, then the summary', () => {
    const command = [process.execPath, CLI, 'import', 'rates', file, '--db', db]
      .map((a) => `'${a}'`)
      .join(' ');
    const out = execFileSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
    expect(out).toMatch(/checking csv input/);
    expect(out).toMatch(/120,000 valid records, 0 problems/);
    expect(out).toMatch(/50,000 \/ 120,000 \(41 %\)/);
    expect(out).toMatch(/100,000 \/ 120,000 \(83 %\)/);
    expect(out).toMatch(
      /rates: 120000 received, 0 inserted, 0 updated, 120000 unchanged|rates: 120000 received, 120000 inserted/,
    );
  }, 60_000);

  it('prints only the result when piped or with --json', () => {
    const piped = spawnSync(process.execPath, [CLI, 'import', 'rates', file, '--db', db, '--json'], {
      encoding: 'utf8',
    });
    expect(piped.status).toBe(0);
    expect(piped.stderr).not.toMatch(/checking|%/);
    expect(JSON.parse(piped.stdout)).toMatchObject({ kind: 'rates', received: 120_000 });
  });
});
