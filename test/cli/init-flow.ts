/**
 * `mds init` through the built CLI (decisions 54): on an empty store it applies
 * the migrations and loads the shipped asset directory, after which `mds import
 * rates` is accepted (before `mds init` existed, a store created for production
 * refused every rate: "EUR is not in the asset directory"); a second run
 * changes nothing and says so; a directory that already has entries is left
 * as it is.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_DIRECTORY_FILE } from '../../src/cli/commands/init.js';
import type { Asset } from '../../src/domain/types.js';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';

const SHIPPED = JSON.parse(readFileSync(ASSET_DIRECTORY_FILE, 'utf8')) as Asset[];
const byCode = (assets: Asset[]) => [...assets].sort((a, b) => (a.code < b.code ? -1 : 1));

/** EUR and USD on both markets: what an operator imports first. */
const RATES_CSV = [
  'currency,source,buy,sell,updatedAt',
  'EUR,parallel,255.5,258,2026-01-05T09:00:00Z',
  'EUR,official,151.2,151.9,2026-01-05T10:00:00Z',
  'USD,parallel,236,238.5,2026-01-05T09:00:00Z',
  'USD,official,131.6,132.2,2026-01-05T10:00:00Z',
].join('\n');

const OWN_EUR: Asset = {
  code: 'EUR',
  symbol: 'EUR',
  names: { en: 'Euro (own)', fr: 'Euro (à nous)', ar: 'يورو خاص' },
  type: 'currency',
};

function ok(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r;
}

/** The suite on one backend; init.test.ts runs it on SQLite, init-postgres.test.ts on PostgreSQL. */
export function initFlow(backend: Backend): void {
  describe(`mds init on ${backend.name}`, () => {
    const dbs: Database[] = [];
    const fresh = async () => {
      const db = await freshDatabase(backend.name);
      dbs.push(db);
      return db;
    };
    const listAssets = async (db: Database) => {
      const store = db.open();
      try {
        return byCode(await store.market.listAssets());
      } finally {
        await store.close();
      }
    };
    let db: Database;

    beforeAll(async () => {
      db = await fresh();
    });
    afterAll(async () => {
      await Promise.all(dbs.map((d) => d.drop()));
    });

    it('on an empty store applies the migrations and loads the shipped directory (--json: one document)', async () => {
      const r = ok(await mds(['init', '--json'], { db: db.url }));
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const doc = r.json();
      expect(Object.keys(doc).sort()).toEqual(['assets', 'migrationsApplied', 'store']);
      expect(typeof doc.store).toBe('string');
      expect(doc.store).not.toMatch(/:[^:@/]+@/); // never a password
      expect(doc.migrationsApplied.length).toBeGreaterThan(0);
      expect(doc.migrationsApplied).toEqual([...doc.migrationsApplied].sort());
      expect(doc.assets).toEqual({ loaded: SHIPPED.length, file: 'config/assets.json' });
      expect(await listAssets(db)).toEqual(byCode(SHIPPED));
    });

    it('then rates import on the otherwise empty store', async () => {
      const r = ok(
        await mds(['import', 'rates', '-', '--format', 'csv', '--json'], { db: db.url, input: RATES_CSV }),
      );
      expect(r.json()).toMatchObject({ kind: 'rates', received: 4, inserted: 4 });
    });

    it('a second run changes nothing and says so', async () => {
      const json = ok(await mds(['init', '--json'], { db: db.url })).json();
      expect(json).toEqual({
        store: json.store,
        migrationsApplied: [],
        assets: { loaded: 0, skipped: `the asset directory already has ${SHIPPED.length} entries` },
      });
      const text = ok(await mds(['init'], { db: db.url })).stdout;
      expect(text).toContain('migrations: already up to date\n');
      expect(text).toContain(
        `asset directory left as it is: the asset directory already has ${SHIPPED.length} entries`,
      );
      expect(text).toContain('`mds import rates <file>`');
      expect(await listAssets(db)).toEqual(byCode(SHIPPED));
    });

    it('leaves a directory that already has entries as it is, even one entry', async () => {
      const own = await fresh();
      ok(
        await mds(['import', 'assets', '-', '--format', 'ndjson'], {
          db: own.url,
          input: JSON.stringify(OWN_EUR),
        }),
      );
      const doc = ok(await mds(['init', '--json'], { db: own.url })).json();
      expect(doc.migrationsApplied).toEqual([]);
      expect(doc.assets).toEqual({ loaded: 0, skipped: 'the asset directory already has 1 entry' });
      expect(await listAssets(own)).toEqual([OWN_EUR]);
    });

    it('text output: what it did, and the next step', async () => {
      const empty = await fresh();
      const text = ok(await mds(['init'], { db: empty.url })).stdout;
      const lines = text.split('\n');
      expect(lines[0]).toMatch(/^migrations applied: 0001_\w+(, \d{4}_\w+)*$/);
      expect(lines[1]).toBe(`asset directory: loaded ${SHIPPED.length} assets from config/assets.json`);
      expect(text).toContain('Next: import rates');
      expect(text).toContain('`mds accounts create`');
      expect(text).toContain('`mds keys create --grant <id>`');
    });
  });
}
