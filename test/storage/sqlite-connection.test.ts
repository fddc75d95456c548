/**
 * SqliteConnection keeps what it prepares and reuses it per SQL text and row
 * mode (src/storage/sqlite-connection.ts: a better-sqlite3 object freed by the
 * collector aborts Node 24), so what a serving process keeps stays bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { SqliteConnection } from '../../src/storage/sqlite-connection.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteConnection', () => {
  it('gives the same statement for the same SQL and mode, another for another mode', () => {
    const conn = SqliteConnection.open(':memory:');
    try {
      const a = conn.statement('select 1 as one');
      expect(conn.statement('select 1 as one')).toBe(a);
      expect(a.get()).toEqual({ one: 1 });
      const plucked = conn.statement('select 1 as one', 'pluck');
      expect(plucked).not.toBe(a);
      expect(plucked.get()).toBe(1);
      expect(conn.statement('select 1 as one', 'raw').get()).toEqual([1]);
      expect(conn.statementCount).toBe(3);
    } finally {
      conn.close();
    }
  });

  it('keeps as many statements after 200 rounds of queries as after 10', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-conn-'));
    dirs.push(dir);
    const store = SqliteStore.open(join(dir, 'db.sqlite'));
    const conn = (store as unknown as { conn: SqliteConnection }).conn;
    try {
      await store.migrate();
      const names = { en: 'Euro', fr: 'Euro', ar: 'Euro' };
      const rounds = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const records = [{ code: 'EUR', symbol: `E${i}`, names, type: 'currency' as const }];
          await store.imports.import({ kind: 'assets', records });
          await store.market.listAssets();
          await store.access.touchKeys([{ publicId: 'none', at: i }]);
        }
      };
      await rounds(0, 10);
      const kept = conn.statementCount;
      await rounds(10, 200);
      expect(conn.statementCount).toBe(kept);
    } finally {
      await store.close();
    }
  });
});
