/**
 * `mds backup <file>` (decisions 56): a copy taken while `mds serve` serves
 * under a little load is a store that serves the same answers, with the same
 * keys; it never overwrites a file; on PostgreSQL it names pg_dump.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { type CliServer, mds, serve } from '../support/cli.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';

const PATHS = [
  '/v1/assets',
  '/v1/rates/latest',
  '/v1/rates/latest?currency=EUR,USD&source=official',
  '/v1/rates/history?currency=EUR&source=parallel&limit=50',
];

describe('mds backup', () => {
  let db: Database;
  let key: string;
  const servers: CliServer[] = [];

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    const store = db.open();
    try {
      await store.migrate();
      await seedSample(store, generateSample({ endDate: '2025-12-31', days: 60 }));
      const account = await createAccount(store, { name: 'Backup' });
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 1_000_000,
        validFrom: Date.now() - 86_400_000,
      });
      key = (await createKey(store, { grantId: grant.id, label: 'backup' })).key;
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  const get = async (url: string, path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as { data: unknown; meta?: unknown } };
  };

  it('copies a store being served; the copy serves the same answers to the same key', async () => {
    const live = await serve([], { db: db.url });
    servers.push(live);
    // A little load while the copy is taken: usage commits on every tick.
    let loading = true;
    let answered = 0;
    const load = (async () => {
      while (loading) {
        const r = await get(live.url, '/v1/rates/latest?currency=EUR');
        expect(r.status).toBe(200);
        answered++;
      }
    })();
    while (answered < 20) await new Promise((r) => setTimeout(r, 5));

    const copy = join(db.url, '..', 'copy.sqlite');
    const result = await mds(['backup', copy, '--json'], { db: db.url });
    loading = false;
    await load;
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const doc = result.json();
    expect(doc.files).toEqual([copy, join(db.url, '..', 'copy-usage.sqlite')]);
    expect(doc.bytes).toBeGreaterThan(0);
    expect(existsSync(`${copy}-wal`)).toBe(false);

    const restored = await serve([], { db: copy });
    servers.push(restored);
    expect(restored.url).not.toBe(live.url);
    for (const path of PATHS) {
      const [a, b] = [await get(live.url, path), await get(restored.url, path)];
      expect(b.status, path).toBe(200);
      expect(b.body.data, path).toEqual(a.body.data);
    }
    // The key is accepted and its usage was copied with the store (at least the load before the copy).
    const me = await get(restored.url, '/v1/me');
    expect(me.status).toBe(200);
  }, 60_000);

  it('refuses to overwrite a file, naming it', async () => {
    const taken = join(db.url, '..', 'taken.sqlite');
    writeFileSync(taken, 'precious');
    const r = await mds(['backup', taken, '--json'], { db: db.url });
    expect(r.status).toBe(2);
    expect(r.errorJson().error.message).toBe(
      `${taken} already exists: choose another name, or delete it first`,
    );
  });

  it('on PostgreSQL, names the pg_dump command instead', async () => {
    const r = await mds(['backup', 'x.sqlite'], { db: 'postgres://mds:secret@db.example/mds' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('pg_dump -Fc');
    expect(r.stderr).not.toContain('secret');
  });
});
