/**
 * PostgreSQL's usage commits run on clients held between commits
 * (a pool checkout per commit cost more than the commit's own client work).
 * Held clients must not outlive their server nor keep the store from closing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { createAccount, createGrant } from '../support/keys.js';

const T0 = Date.UTC(2026, 10, 1, 9);

describe.runIf(POSTGRES_URL)('usage commits on held PostgreSQL clients', () => {
  let db: Database;
  let url: string;
  const app = `mds_usage_${randomBytes(4).toString('hex')}`;
  const grants: string[] = [];

  /** Ends, from the server's side, every connection the store under test opened. */
  async function terminateStoreConnections(): Promise<number> {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const r = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [app],
      );
      return r.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const u = new URL(db.url);
    u.searchParams.set('application_name', app);
    url = u.toString();
    const store = openStore(url);
    await store.migrate();
    const account = await createAccount(store, { name: 'Usage' });
    for (let i = 0; i < 2; i++) {
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000,
        requestsPerMinute: 100,
        validFrom: T0,
      });
      grants.push(grant.id);
    }
    await store.close();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('keeps counting after PostgreSQL ends the held connections between commits', async () => {
    const store: Store = openStore(url);
    const grantId = grants[0]!;
    try {
      await Promise.all([
        store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: 2 }], T0),
        store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: 3 }], T0),
      ]);
      expect(await terminateStoreConnections()).toBeGreaterThan(0);
      // The idle held clients learn of it from their socket, as the pool's own would.
      await new Promise((r) => setTimeout(r, 200));
      await store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: 4 }], T0);
      expect(await store.usage.getUsage(grantId, '2026-11')).toBe(9);
    } finally {
      await store.close();
    }
  });

  it('keeps only the clients of its commits in flight: reads still connect after a burst of commits', async () => {
    const store: Store = openStore(url);
    const grantId = grants[0]!;
    try {
      const before = await store.usage.getUsage(grantId, '2026-12');
      // More concurrent commits than the pool has connections (10).
      await Promise.all(
        Array.from({ length: 12 }, () =>
          store.usage.addUsage([{ grantId, period: '2026-12', count: 1 }], T0),
        ),
      );
      expect(await store.usage.getUsage(grantId, '2026-12')).toBe(before + 12);
    } finally {
      await store.close();
    }
  });

  it('closes with clients held, and after a failed commit', async () => {
    const store: Store = openStore(url);
    const grantId = grants[1]!;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: i + 1 }], T0),
      ),
    );
    expect(await store.usage.getUsage(grantId, '2026-11')).toBe(21);
    // A rejected statement (a count beyond bigint) fails that commit only.
    await expect(
      store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: 1e20 }], T0),
    ).rejects.toThrow();
    await store.usage.addUsage([{ grantId: grantId, period: '2026-11', count: 1 }], T0);
    expect(await store.usage.getUsage(grantId, '2026-11')).toBe(22);
    const closed = store.close().then(() => 'closed');
    const timeout = new Promise((r) => setTimeout(() => r('still open after 5 s'), 5_000));
    expect(await Promise.race([closed, timeout])).toBe('closed');
  });
});
