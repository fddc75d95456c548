/**
 * `mds init` (see init-flow.ts) on PostgreSQL, and what `mds serve --first-run`
 * says there: it provisions nothing on PostgreSQL (only the embedded SQLite
 * store gets the sample data and a demo key) and names the commands that do,
 * rather than claiming accounts the store does not have. vitest.config.ts
 * leaves this file out when MDS_TEST_POSTGRES_URL is not set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, type Database, freshDatabase } from '../support/backends.js';
import { type CliServer, mds, serve } from '../support/cli.js';
import { initFlow } from './init-flow.js';

const postgres = backends().find((b) => b.name === 'postgres');
if (!postgres)
  throw new Error('MDS_TEST_POSTGRES_URL is not set: vitest.config.ts should have left this file out');
initFlow(postgres);

describe('mds serve --first-run on PostgreSQL', () => {
  let db: Database;
  const servers: CliServer[] = [];

  beforeAll(async () => {
    db = await freshDatabase('postgres');
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  it('says first-run provisioning is for SQLite only and names the commands to run; provisions nothing', async () => {
    const s = await serve(['--first-run'], { db: db.url });
    servers.push(s);
    await s.stop();
    expect(s.stdout).not.toContain('already has accounts');
    expect(s.stdout).not.toContain('Loaded the sample data set');
    expect(s.stdout).not.toMatch(/mds_(live|test)_/);
    expect(s.stdout).toContain(
      'First-run provisioning (sample data, demo key) is only for the embedded SQLite store; this PostgreSQL store was left as it is.',
    );
    for (const command of [
      '`mds init`',
      '`mds import rates <file>`',
      '`mds accounts create`',
      '`mds grants create --account <id> --plan <plan>`',
      '`mds keys create --grant <id>`',
    ])
      expect(s.stdout).toContain(command);

    const keys = await mds(['keys', 'list', '--json'], { db: db.url });
    expect(keys.status).toBe(0);
    expect(keys.json().keys).toEqual([]);
    const store = db.open();
    try {
      expect(await store.access.countAccounts()).toBe(0);
      expect(await store.market.listAssets()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('--json carries the same note in one document', async () => {
    const s = await serve(['--first-run', '--json'], { db: db.url });
    servers.push(s);
    await s.stop();
    const doc = JSON.parse(s.stdout);
    expect(doc).toMatchObject({ url: s.url, seeded: false });
    expect(doc.key).toBeUndefined();
    expect(doc.firstRun).toMatch(
      /^First-run provisioning .* only for the embedded SQLite store; .*`mds init`/,
    );
  });
});
