/**
 * The clients' quick-starts run exactly as their READMEs give them:
 * packages/client/README.md and packages/python/README.md. Each runs in a
 * fresh folder outside the repository, with a customer's environment (no npm,
 * pip or MDS_* variables of this test run, no network: npm offline, pip without
 * an index), the README's shell commands as written (only
 * `/path/to/market-data-service` replaced by this checkout), its code saved
 * under the name the README gives, and MDS_BASE_URL / MDS_API_KEY set as it
 * says, against the real server on sample data ending today. Every other
 * code block of the two package READMEs is a whole program and runs too; the
 * TypeScript ones also type-check as `.mts` with the repository's compiler.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { openStore } from '../../src/storage/open.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { customerEnv, fencedBlocks, REPO, runOk, strictTsc } from '../support/python.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';

const DAY = 86_400_000;
const TODAY = new Date().toISOString().slice(0, 10);
const PLACEHOLDER = '/path/to/market-data-service';

/** The text of a Markdown section: from its heading to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = heading.indexOf(' ');
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (line.startsWith('```')) fenced = !fenced;
    // A `# comment` inside a code block is not a heading.
    else if (!fenced && new RegExp(`^#{1,${level}} `).test(line)) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** A quick-start's parts: the install commands, the program, the run command. */
function quickStart(text: string, language: 'ts' | 'python') {
  const sh = fencedBlocks(text, 'sh');
  const code = fencedBlocks(text, language);
  expect(sh, 'two shell blocks: install, then run').toHaveLength(2);
  expect(code, `one ${language} block`).toHaveLength(1);
  expect(sh[0]).toContain(PLACEHOLDER);
  return { install: sh[0]!, code: code[0]!, run: sh[1]! };
}

const clientReadme = readFileSync(join(REPO, 'packages', 'client', 'README.md'), 'utf8');
const pythonReadme = readFileSync(join(REPO, 'packages', 'python', 'README.md'), 'utf8');
const tsQuickStart = quickStart(section(clientReadme, '## Quick start'), 'ts');
const pythonQuickStart = quickStart(section(pythonReadme, '## Quick start'), 'python');

describe('the client quick-starts, run as written', () => {
  let dir: string;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;

  /** Runs a README shell block, as written but for the repository's path, in `cwd`. */
  const shell = (block: string, cwd: string) =>
    runOk('bash', ['-euo', 'pipefail', '-c', block.replaceAll(PLACEHOLDER, REPO)], {
      cwd,
      env,
      timeout: 120_000,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-quickstart-'));
    const db = join(dir, 'mds.sqlite');
    execFileSync(process.execPath, [CLI, 'seed', 'sample', '--db', db, '--end-date', TODAY], {
      stdio: 'ignore',
    });
    const store = openStore(db);
    let key: string;
    try {
      await store.migrate();
      const account = await createAccount(store, { name: 'Quick-start reader' });
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 100_000,
        validFrom: Date.now() - DAY,
      });
      key = (await createKey(store, { grantId: grant.id })).key;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db });
    env = customerEnv({ MDS_BASE_URL: server.url, MDS_API_KEY: key });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What every quick-start prints and writes: the two latest rates, a year of days, the CSV file. */
  function expectQuickStartDone(out: string, folder: string) {
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^EUR parallel: buy \d+(\.\d+)?, sell \d+(\.\d+)? DZD \(\d{4}-\d\d-\d\dT/);
    expect(lines[1]).toMatch(/^EUR official: buy \d+(\.\d+)?, sell \d+(\.\d+)? DZD \(/);
    // A year ending today is 366 days, each with its parallel observation.
    expect(lines[2]).toMatch(new RegExp(`^366 days; newest ${TODAY}: \\d+(\\.\\d+)? % over official$`));
    expect(lines[3]).toMatch(/^wrote eur-premium\.csv: 366 rows/);
    const csv = readFileSync(join(folder, 'eur-premium.csv'), 'utf8');
    expect(csv.startsWith('date,currency,quote,parallel_buy,')).toBe(true);
    expect(csv.trim().split('\r\n')).toHaveLength(367);
  }

  it('TypeScript: npm install of the client, then `node quickstart.mjs` on plain Node; every block of the client README runs and type-checks', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mds-ts-reader-'));
    try {
      await shell(tsQuickStart.install, folder);
      expect(existsSync(join(folder, 'node_modules', '@mds', 'client', 'dist', 'index.js'))).toBe(true);
      writeFileSync(join(folder, 'quickstart.mjs'), tsQuickStart.code);
      expectQuickStartDone(await shell(tsQuickStart.run, folder), folder);

      // The client README's other blocks: whole programs, run the same way.
      const others = fencedBlocks(clientReadme, 'ts').filter((block) => block !== tsQuickStart.code);
      expect(others.length).toBeGreaterThanOrEqual(2);
      for (const [index, block] of others.entries()) {
        writeFileSync(join(folder, `block-${index}.mjs`), block);
        await shell(`node block-${index}.mjs`, folder);
      }
      expect(readFileSync(join(folder, 'eur.csv'), 'utf8')).toMatch(
        /^currency,source,quote,buy,sell,updatedAt\r\n/,
      );

      // "In a TypeScript project, save it as quickstart.mts and it type-checks as it is."
      const typed = [tsQuickStart.code, ...others].map((block, index) => {
        writeFileSync(join(folder, `typed-${index}.mts`), block);
        return `typed-${index}.mts`;
      });
      await runOk(...strictTsc([...typed]), { cwd: folder, env, timeout: 120_000 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);

  it('Python: a venv, pip install of the package, then `.venv/bin/python quickstart.py`; every block of the Python README runs', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mds-py-reader-'));
    try {
      await shell(pythonQuickStart.install, folder);
      writeFileSync(join(folder, 'quickstart.py'), pythonQuickStart.code);
      expectQuickStartDone(await shell(pythonQuickStart.run, folder), folder);

      const others = fencedBlocks(pythonReadme, 'python').filter((block) => block !== pythonQuickStart.code);
      expect(others.length).toBeGreaterThanOrEqual(4);
      const outputs: string[] = [];
      for (const [index, block] of others.entries()) {
        writeFileSync(join(folder, `block-${index}.py`), block);
        outputs.push(await shell(`.venv/bin/python block-${index}.py`, folder));
      }
      expect(outputs.join('')).not.toContain(String(env.MDS_API_KEY));
      expect(outputs.join('')).toContain('404 not_found');
      expect(readFileSync(join(folder, 'eur.csv'), 'utf8')).toMatch(
        /^currency,source,quote,buy,sell,updatedAt\r\n/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
