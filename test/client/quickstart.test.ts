/**
 * The clients' quick-starts run exactly as their READMEs give them:
 * packages/client/README.md and packages/python/README.md. Each runs in a
 * fresh folder outside the repository, with a customer's environment (no npm,
 * pip or MDS_* variables of this test run, no network: npm offline, pip without
 * an index), the README's shell commands as written, beside the file they
 * install (made by the pack script of `npm run clients:pack`, docs/clients.md), its code saved
 * under the name the README gives, and MDS_BASE_URL / MDS_API_KEY set as it
 * says, against the real server on sample data ending today. The quick-starts
 * run with a key of the free, the pro and the enterprise plan, each grant made
 * with its plan's defaults (config/plans.json): each prints the latest rates,
 * and the premium history where the plan gives it, a sentence saying it was
 * skipped where not (never a 403). Every other code block of the two package
 * READMEs is a whole program and runs too, with a key entitled to everything;
 * the TypeScript ones also type-check as `.mts` with the repository's compiler.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlans } from '../../src/access/plans.js';
import { ENTITLEMENTS, expandScopes } from '../../src/domain/scopes.js';
import { SYSTEM_ACTOR } from '../../src/storage/admin-records.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { createGrant as createPlanGrant } from '../../src/use-cases/grants.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { customerEnv, fencedBlocks, REPO, runOk, strictTsc } from '../support/python.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';

const DAY = 86_400_000;
const TODAY = new Date().toISOString().slice(0, 10);

/** The plans a customer's quick-start runs with: the cheapest, a paid one, the one with everything. */
const PLANS = ['free', 'pro', 'enterprise'] as const;
type Plan = (typeof PLANS)[number];
const PREMIUM_HISTORY = 'market:premium:history:read';

/** Whether a plan of the catalogue gives the premium history the quick-starts page through. */
const readsPremiumHistory = (plan: Plan) =>
  expandScopes(loadPlans().get(plan)?.scopes ?? []).includes(PREMIUM_HISTORY);

/** A key on a new grant of `plan`, made with the plan's defaults: its scopes and limits. */
async function planKey(store: Store, plan: Plan): Promise<string> {
  const account = await createAccount(store, { name: `Quick-start ${plan} customer` });
  const grant = await createPlanGrant(store, SYSTEM_ACTOR, { accountId: account.id, plan });
  if (!grant.ok) throw new Error(`grant of plan ${plan}: ${grant.error.message}`);
  return (await createKey(store, { grantId: grant.value.id })).key;
}

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
  // The file the operator handed out (docs/clients.md), beside the commands.
  const file = /install \.\/(\S+)$/m.exec(sh[0]!)?.[1];
  expect(file, 'the install command names a file in the folder').toBeDefined();
  return { install: sh[0]!, file: file!, code: code[0]!, run: sh[1]! };
}

const clientReadme = readFileSync(join(REPO, 'packages', 'client', 'README.md'), 'utf8');
const pythonReadme = readFileSync(join(REPO, 'packages', 'python', 'README.md'), 'utf8');
const tsQuickStart = quickStart(section(clientReadme, '## Quick start'), 'ts');
const pythonQuickStart = quickStart(section(pythonReadme, '## Quick start'), 'python');

describe('the client quick-starts, run as written', () => {
  let dir: string;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  /** A key of each plan for each language's quick-start: one grant each, so no run eats another's minute. */
  const planKeys = new Map<string, string>();

  /** The folder of the packed clients. */
  let packed: string;

  /** Runs a README shell block as written in `cwd` (with `apiKey` if given). */
  const shell = (block: string, cwd: string, apiKey?: string) =>
    runOk('bash', ['-euo', 'pipefail', '-c', block], {
      cwd,
      env: apiKey === undefined ? env : { ...env, MDS_API_KEY: apiKey },
      timeout: 120_000,
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-quickstart-'));
    packed = join(dir, 'clients');
    execFileSync(process.execPath, [join(REPO, 'dist/scripts/pack-clients.js'), packed], { stdio: 'ignore' });
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
      for (const language of ['ts', 'python'])
        for (const plan of PLANS) planKeys.set(`${language} ${plan}`, await planKey(store, plan));
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

  it('the plans the quick-starts run with: some give the premium history, some do not', () => {
    expect(PLANS.map(readsPremiumHistory)).toContain(true);
    expect(PLANS.map(readsPremiumHistory)).toContain(false);
  });

  /**
   * What a quick-start prints and writes with a key of `plan`: the two latest rates; then, where
   * the plan gives the premium history, a year of days and the CSV file, else one sentence.
   */
  function expectQuickStartDone(out: string, folder: string, plan: Plan) {
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^EUR parallel: buy \d+(\.\d+)?, sell \d+(\.\d+)? DZD \(\d{4}-\d\d-\d\dT/);
    expect(lines[1]).toMatch(/^EUR official: buy \d+(\.\d+)?, sell \d+(\.\d+)? DZD \(/);
    if (!readsPremiumHistory(plan)) {
      expect(lines.slice(2)).toEqual([
        `premium history skipped: this key (${plan} plan) lacks ${PREMIUM_HISTORY}`,
      ]);
      expect(existsSync(join(folder, 'eur-premium.csv'))).toBe(false);
      return;
    }
    expect(lines).toHaveLength(4);
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
      expect(readdirSync(packed)).toContain(tsQuickStart.file);
      copyFileSync(join(packed, tsQuickStart.file), join(folder, tsQuickStart.file));
      await shell(tsQuickStart.install, folder);
      expect(existsSync(join(folder, 'node_modules', '@mds', 'client', 'dist', 'index.js'))).toBe(true);
      writeFileSync(join(folder, 'quickstart.mjs'), tsQuickStart.code);
      for (const plan of PLANS) {
        rmSync(join(folder, 'eur-premium.csv'), { force: true });
        const out = await shell(tsQuickStart.run, folder, planKeys.get(`ts ${plan}`)!);
        expectQuickStartDone(out, folder, plan);
      }

      // The client README's other blocks: whole programs, run the same way.
      const others = fencedBlocks(clientReadme, 'ts').filter((block) => block !== tsQuickStart.code);
      expect(others.length).toBeGreaterThanOrEqual(2);
      for (const [index, block] of others.entries()) {
        writeFileSync(join(folder, `block-${index}.mjs`), block);
        await shell(`node block-${index}.mjs`, folder);
      }
      expect(readFileSync(join(folder, 'eur.csv'), 'utf8')).toMatch(
        /^currency,source,quote,buy,sell,updatedAt,quality_method,quality_organisations,quality_reporters,quality_excluded,quality_dispersionPercent,quality_confidence\r\n/,
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
      expect(readdirSync(packed)).toContain(pythonQuickStart.file);
      copyFileSync(join(packed, pythonQuickStart.file), join(folder, pythonQuickStart.file));
      await shell(pythonQuickStart.install, folder);
      writeFileSync(join(folder, 'quickstart.py'), pythonQuickStart.code);
      for (const plan of PLANS) {
        rmSync(join(folder, 'eur-premium.csv'), { force: true });
        const out = await shell(pythonQuickStart.run, folder, planKeys.get(`python ${plan}`)!);
        expectQuickStartDone(out, folder, plan);
      }

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
        /^currency,source,quote,buy,sell,updatedAt,quality_method,quality_organisations,quality_reporters,quality_excluded,quality_dispersionPercent,quality_confidence\r\n/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
