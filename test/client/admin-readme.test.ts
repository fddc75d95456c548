/**
 * packages/client/README.md's "Provision a customer from a payment webhook",
 * run exactly as written: its program saved as `provision.mjs` in a fresh
 * folder outside the repository where the client was installed as a customer
 * installs it (npm, offline, from packages/client), run with plain Node
 * against a real server with the admin listener (`MDS_ADMIN_PORT`) and an
 * admin token, twice, as a redelivered webhook would: one account, one grant,
 * one key. It also type-checks as `provision.mts`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { TEST_ACTOR } from '../support/admin.js';
import { customerEnv, fencedBlocks, REPO, runOk, strictTsc } from '../support/python.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';

const HEADING = '## Provision a customer from a payment webhook';
const readme = readFileSync(join(REPO, 'packages', 'client', 'README.md'), 'utf8');
/** The section: from its heading to the next `## ` heading, or the end. */
const rest = readme.slice(readme.indexOf(HEADING) + HEADING.length);
const next = rest.search(/^## /m);
const [program] = fencedBlocks(next === -1 ? rest : rest.slice(0, next), 'typescript');

/** The admin URL the banner prints (`Metrics: <url>/metrics`). */
async function adminUrlOf(server: ServerProcess): Promise<string> {
  const end = Date.now() + 5_000;
  while (Date.now() < end) {
    const m = /Metrics: (\S+)\/metrics/.exec(server.stdout());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server did not print its admin URL: ${server.stdout()}`);
}

describe('the admin client README, run as written', () => {
  let dir: string;
  let db: string;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    expect(readme).toContain(HEADING);
    expect(program, 'one typescript block in the section').toBeDefined();
    dir = mkdtempSync(join(tmpdir(), 'mds-admin-readme-'));
    db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    let token: string;
    try {
      await store.migrate();
      const created = await createAdminToken(store, TEST_ACTOR, {
        label: 'billing',
        scopes: ['accounts:read', 'accounts:write', 'keys:write'],
      });
      if (!created.ok) throw new Error(JSON.stringify(created.error));
      token = created.value.token;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db, env: { MDS_ADMIN_PORT: '0' } });
    env = customerEnv({ MDS_ADMIN_URL: await adminUrlOf(server), MDS_ADMIN_TOKEN: token });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('provisions one account, one grant and one key, however often the webhook is delivered', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mds-admin-reader-'));
    try {
      const shell = (command: string) =>
        runOk('bash', ['-euo', 'pipefail', '-c', command], { cwd: folder, env, timeout: 120_000 });
      await shell(`npm init -y >/dev/null && npm install ${join(REPO, 'packages', 'client')} >/dev/null`);
      writeFileSync(join(folder, 'provision.mjs'), program!);
      const first = await shell('node provision.mjs');
      expect(first).toMatch(/^new key mds_live_[a-z0-9]+ for account acc_[a-z0-9]+\n$/);
      const again = await shell('node provision.mjs');
      expect(again).toMatch(/^account acc_[a-z0-9]+ already has key mds_live_[a-z0-9]+\n$/);
      // No secret printed: the prefix only.
      expect(first).not.toMatch(/mds_live_[a-z0-9]+_/);

      const store = openStore(db);
      try {
        const accounts = await store.access.listAccounts({ externalId: 'cus_9s8d7f6g' }, { limit: 10 });
        expect(accounts).toHaveLength(1);
        const grants = await store.access.listGrants(
          { provider: 'stripe', externalId: 'sub_1a2b3c' },
          { limit: 10 },
        );
        expect(grants).toHaveLength(1);
        expect(grants[0]).toMatchObject({ accountId: accounts[0]!.id, plan: 'pro' });
        expect(await store.access.listKeys(grants[0]!.id)).toHaveLength(1);
      } finally {
        await store.close();
      }

      writeFileSync(join(folder, 'provision.mts'), program!);
      await runOk(...strictTsc(['provision.mts']), { cwd: folder, env, timeout: 120_000 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
