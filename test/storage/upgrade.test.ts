/**
 * A store deployed before the migrations moved to a file each upgrades with
 * this code, on both backends. The fixtures (fixtures/upgrade-479b40e/) were
 * made by the CLI of commit 479b40e: `mds init`, `mds seed sample --days 3
 * --end-date 2026-01-31` (2 days on PostgreSQL), an account, a `pro` grant and
 * a key, and one request served with that key; on SQLite also an admin token
 * and a webhook subscription. The SQLite store is its two files as the old
 * code left them; the PostgreSQL one is `pg_dump --no-owner --no-privileges
 * --inserts` of the schema the old code migrated (its `\restrict` lines
 * dropped), loaded here into a fresh schema.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/access/authenticator.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import {
  type BackendName,
  backends,
  type Database,
  freshDatabase,
  POSTGRES_URL,
} from '../support/backends.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'upgrade-479b40e');
/** The schema the dump was taken of: replaced by the test's own. */
const DUMPED_SCHEMA = 'mds_upgrade_fixture';

/** What the old code wrote, per backend. */
const WRITTEN: Record<BackendName, { key: string; publicId: string; grantId: string; accountId: string }> = {
  sqlite: {
    key: 'mds_live_6tqb3r9mnibm_ds6XSXmlbbDswigavINRM7p9ElYkz3CGIFMalcVP4jO41Ep25',
    publicId: '6tqb3r9mnibm',
    grantId: 'grt_fqndxdeizdq6',
    accountId: 'acc_bss3hrpqcl3u',
  },
  postgres: {
    key: 'mds_live_oe58jfrj4tb5_VkgoUnHilXTYw1muR2OqxrnrITRjZdQXnnmXWrSIzem0qHopc',
    publicId: 'oe58jfrj4tb5',
    grantId: 'grt_knwdua2bmcwd',
    accountId: 'acc_xklmjwfmefi3',
  },
};
/** Released after 479b40e (0011_rates_asset_check its last): each applied once, on the old store as on a new one. */
const SINCE_479B40E = Object.keys(migrations).filter((n) => n > '0011_rates_asset_check');
/** The month of the request the old code served. */
const PERIOD = '2026-11';

/** A SQLite store as the old code left it: both files, in a directory of their own. */
function oldSqliteStore(): { open: () => Store; drop: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mds-upgrade-'));
  for (const file of ['mds.sqlite', 'mds-usage.sqlite']) copyFileSync(join(FIXTURES, file), join(dir, file));
  return {
    open: () => openStore(join(dir, 'mds.sqlite')),
    drop: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The dump loaded into the fresh schema of `db`. */
async function loadPostgresDump(db: Database): Promise<void> {
  const schema = /search_path=(\w+)/.exec(decodeURIComponent(db.url))?.[1];
  if (!schema) throw new Error(`no schema in ${db.url}`);
  const dump = readFileSync(join(FIXTURES, 'postgres.sql'), 'utf8')
    .replace(`CREATE SCHEMA ${DUMPED_SCHEMA};`, '')
    .replaceAll(DUMPED_SCHEMA, schema);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(dump);
  } finally {
    await client.end();
  }
}

describe.each(backends())('a store made by 479b40e, upgraded, on $name', ({ name }) => {
  const written = WRITTEN[name];
  let store: Store;
  let drop: () => unknown;

  beforeAll(async () => {
    if (name === 'sqlite') {
      const old = oldSqliteStore();
      store = old.open();
      drop = old.drop;
    } else {
      const db = await freshDatabase('postgres');
      await loadPostgresDump(db);
      store = db.open();
      drop = () => db.drop();
    }
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it('knows every migration by the name it was recorded under: applies only those made since', async () => {
    expect(await store.migrate()).toEqual(SINCE_479B40E);
    expect(await store.migrate()).toEqual([]);
    expect(Object.keys(migrations)).toEqual([...Object.keys(migrations)].sort());
  });

  it('reads the market data, the imports and the access records', async () => {
    const assets = await store.market.listAssets();
    expect(assets.map((a) => a.code)).toContain('EUR');
    const latest = await store.market.latestRates();
    expect(latest.find((r) => r.currency === 'EUR' && r.source === 'parallel')?.updatedAt).toBe(
      Date.UTC(2026, 0, 31, 9),
    );
    expect((await store.market.latestGold()).length).toBeGreaterThan(0);
    expect((await store.imports.listImports(10)).length).toBeGreaterThan(0);
    expect(await store.access.getAccount(written.accountId)).toMatchObject({ name: 'Upgrade Co' });
    expect(await store.access.getGrant(written.grantId)).toMatchObject({ plan: 'pro', status: 'active' });
    expect(await store.access.getKey(written.publicId)).toMatchObject({ status: 'active', label: 'fixture' });
    expect(await store.access.countAccounts()).toBe(1);
    const audit = await store.operator.listAudit({ targetId: written.accountId }, { limit: 10 });
    expect(audit.map((a) => a.action)).toContain('account.create');
  });

  it('authenticates the key the old code issued', async () => {
    const auth = await new Authenticator(store).authenticate(
      { authorization: `Bearer ${written.key}` },
      Date.now(),
    );
    expect(auth.ok).toBe(true);
    if (auth.ok) expect(auth.access.grant.id).toBe(written.grantId);
  });

  it('keeps counting usage where the old code left it', async () => {
    expect(await store.usage.getUsage(written.grantId, PERIOD)).toBe(1);
    const window = Date.UTC(2026, 10, 30, 12, 0);
    const [outcome] = await store.usage.consumeUsage(
      [
        {
          grantId: written.grantId,
          period: PERIOD,
          window,
          requestsPerMinute: 300,
          monthlyRequestLimit: 1_000_000,
          count: 2,
          keyIds: [written.publicId, written.publicId],
        },
      ],
      window + 1_000,
    );
    expect(outcome).toMatchObject({ monthUsed: 1, allowed: 2 });
    expect(await store.usage.getUsage(written.grantId, PERIOD)).toBe(3);
  });

  it.runIf(name === 'sqlite')('reads the operator tokens and webhook subscriptions', async () => {
    expect(await store.operator.listAdminTokens({ limit: 10 })).toMatchObject([{ label: 'fixture' }]);
    expect(await store.webhooks.listSubscriptions({}, { limit: 10 })).toMatchObject([
      { url: 'https://hooks.example/mds', eventTypes: ['data.imported'] },
    ]);
  });
});
