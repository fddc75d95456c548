/**
 * The clients as files a customer installs (docs/clients.md): the pack script
 * that `npm run clients:pack` runs makes the npm tarball, the wheel and the
 * sdist (here into a temp folder, not the checkout's dist/clients/); then, in
 * empty folders outside the repository with a customer's environment (npm
 * offline, pip without an index), the customer's commands of docs/clients.md
 * run as written with the file beside them, and each installed client reads
 * `GET /v1/me` from the real server with a key of the free plan.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../src/storage/admin-records.js';
import { openStore } from '../../src/storage/open.js';
import { createGrant } from '../../src/use-cases/grants.js';
import { createAccount, createKey } from '../support/keys.js';
import { customerEnv, fencedBlocks, REPO, runOk } from '../support/python.js';
import { CLI, type ServerProcess, spawnServer } from '../support/server-process.js';

const DOC = readFileSync(join(REPO, 'docs', 'clients.md'), 'utf8');
const [packCommand, npmInstall, pipInstall] = fencedBlocks(DOC, 'sh');
const tsVersion = (
  JSON.parse(readFileSync(join(REPO, 'packages/client/package.json'), 'utf8')) as { version: string }
).version;
const pyVersion = /^version = "([^"]+)"$/m.exec(
  readFileSync(join(REPO, 'packages/python/pyproject.toml'), 'utf8'),
)![1];
const FILES = [
  `mds-client-${tsVersion}.tgz`,
  `mds_client-${pyVersion}-py3-none-any.whl`,
  `mds_client-${pyVersion}.tar.gz`,
] as const;

describe('the clients as files (docs/clients.md)', () => {
  let dir: string;
  let packed: string;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  let listed: string[];

  /** A new empty folder outside the repository holding `file` from the packed ones. */
  function folderWith(file: string): string {
    const folder = mkdtempSync(join(dir, 'customer-'));
    copyFileSync(join(packed, file), join(folder, file));
    return folder;
  }

  const shell = (block: string, cwd: string) =>
    runOk('bash', ['-euo', 'pipefail', '-c', block], { cwd, env, timeout: 120_000 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mds-packages-'));
    packed = join(dir, 'clients');
    // `npm run clients:pack -- <folder>`, less npm: the build is the test run's.
    listed = execFileSync(process.execPath, [join(REPO, 'dist/scripts/pack-clients.js'), packed], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .trim()
      .split('\n');
    const db = join(dir, 'mds.sqlite');
    execFileSync(process.execPath, [CLI, 'seed', 'sample', '--db', db], { stdio: 'ignore' });
    const store = openStore(db);
    let key: string;
    try {
      await store.migrate();
      const account = await createAccount(store, { name: 'Packaged client customer' });
      const grant = await createGrant(store, SYSTEM_ACTOR, { accountId: account.id, plan: 'free' });
      if (!grant.ok) throw new Error(grant.error.message);
      key = (await createKey(store, { grantId: grant.value.id })).key;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db });
    env = customerEnv({ MDS_BASE_URL: server.url, MDS_API_KEY: key });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the pack makes the three files the docs name, and lists them on stdout', () => {
    expect(packCommand).toBe('npm run clients:pack\n');
    expect(readdirSync(packed).sort()).toEqual([...FILES].sort());
    expect(listed.map((line) => basename(line)).sort()).toEqual([...FILES].sort());
    for (const file of FILES) expect(DOC).toContain(`\`${file}\``);
    // The npm tarball installs offline because the client needs nothing else.
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', join(packed, FILES[0]), 'package/package.json'], { encoding: 'utf8' }),
    ) as { dependencies?: object; peerDependencies?: object };
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
  });

  it('TypeScript: `npm install ./mds-client-….tgz` in an empty folder, then the client reads /v1/me', async () => {
    expect(npmInstall).toBe(`npm install ./${FILES[0]}\n`);
    const folder = folderWith(FILES[0]);
    await shell(npmInstall!, folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual({ '@mds/client': `file:${FILES[0]}` });
    writeFileSync(
      join(folder, 'me.mjs'),
      `import { MdsClient } from '@mds/client';
const mds = new MdsClient({ baseUrl: process.env.MDS_BASE_URL, apiKey: process.env.MDS_API_KEY });
console.log(JSON.stringify((await mds.getMe()).data));
`,
    );
    const me = JSON.parse(await runOk(process.execPath, ['me.mjs'], { cwd: folder, env }));
    expect(me.grant.plan).toBe('free');
  }, 120_000);

  for (const file of [FILES[1], FILES[2]]) {
    it(`Python: a venv and \`pip install ./${file}\` in an empty folder, then the client reads /v1/me`, async () => {
      expect(pipInstall).toContain(`.venv/bin/pip install ./${FILES[1]}\n`);
      const folder = folderWith(file);
      await shell(pipInstall!.replace(FILES[1], file), folder);
      const me = JSON.parse(
        await runOk(
          join(folder, '.venv', 'bin', 'python'),
          [
            '-c',
            'import json; from mds_client import MdsClient; print(json.dumps(MdsClient().get_me()["data"]))',
          ],
          { cwd: folder, env },
        ),
      );
      expect(me.grant.plan).toBe('free');
    }, 120_000);
  }
});
