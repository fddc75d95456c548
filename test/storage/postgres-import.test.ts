/**
 * PostgreSQL's bulk import finds the rows it replaces (its revisions) by primary key.
 * It once joined each chunk with the whole table, which PostgreSQL answered by reading
 * the table through, once per chunk: a million-row import then grew with the square of
 * its size (docs/performance-notes.md, "the PostgreSQL import's own plan"). PostgreSQL's
 * own counters tell: an import must not read `rates` sequentially at all.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateObservation } from '../../src/domain/types.js';
import type { Store } from '../../src/storage/store.js';
import { type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { waitFor } from '../support/wait.js';

const T0 = Date.UTC(2025, 0, 1, 9);
const HOUR = 3_600_000;

interface TableCounters {
  seqScan: number;
  inserted: number;
  updated: number;
}

describe.runIf(POSTGRES_URL)('the PostgreSQL import', () => {
  let db: Database;
  let schema: string;

  /** The server's counters for `rates` in this schema (a closed store's backends have reported theirs). */
  async function counters(): Promise<TableCounters> {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    try {
      const r = await c.query<{ seq_scan: string; n_tup_ins: string; n_tup_upd: string }>(
        'select seq_scan, n_tup_ins, n_tup_upd from pg_stat_user_tables where schemaname = $1 and relname = $2',
        [schema, 'rates'],
      );
      const row = r.rows[0];
      return row
        ? { seqScan: Number(row.seq_scan), inserted: Number(row.n_tup_ins), updated: Number(row.n_tup_upd) }
        : { seqScan: 0, inserted: 0, updated: 0 };
    } finally {
      await c.end();
    }
  }

  /** Runs `work` on a store of its own, closes it, and waits for its backends' counters to reach `until`. */
  async function onStore<T>(work: (store: Store) => Promise<T>, until: (c: TableCounters) => boolean) {
    const store = db.open();
    let result: T;
    try {
      result = await work(store);
    } finally {
      await store.close();
    }
    // A backend reports its counters when it exits; the store's close does not wait for that.
    await waitFor(async () => until(await counters()), {
      timeout: 15_000,
      what: "the closed store's counters",
    });
    return result;
  }

  const rate = (i: number, buy: number): RateObservation => ({
    currency: i % 2 === 0 ? 'EUR' : 'USD',
    source: 'parallel',
    buy,
    sell: buy + 2_000_000,
    updatedAt: T0 + i * HOUR,
  });

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    schema = new URL(db.url).searchParams.get('options')!.replace('-c search_path=', '');
    await onStore(
      async (store) => {
        await store.migrate();
        await store.imports.import({
          kind: 'assets',
          records: ['EUR', 'USD'].map((code) => ({
            code,
            symbol: code,
            names: { en: code, fr: code, ar: code },
            type: 'currency' as const,
          })),
        });
        await store.imports.import({
          kind: 'rates',
          records: Array.from({ length: 3_000 }, (_, i) => rate(i, 260_000_000)),
        });
      },
      (c) => c.inserted >= 3_000,
    );
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('finds the rows it replaces by key, never by reading the table through', async () => {
    const before = await counters();
    // 1,000 rows revised, 1,000 the same, 1,000 new after the stored ones and 500 new
    // between them (no later than their series' last stored instant): one chunk.
    const records = [
      ...Array.from({ length: 1_000 }, (_, i) => rate(i, 261_000_000)),
      ...Array.from({ length: 1_000 }, (_, i) => rate(1_000 + i, 260_000_000)),
      ...Array.from({ length: 1_000 }, (_, i) => rate(3_000 + i, 262_000_000)),
      ...Array.from({ length: 500 }, (_, i) => ({
        ...rate(i, 263_000_000),
        updatedAt: T0 + i * HOUR + HOUR / 2,
      })),
    ];
    const outcome = await onStore(
      (store) => store.imports.import({ kind: 'rates', records }),
      (c) => c.inserted >= before.inserted + 1_500 && c.updated >= before.updated + 1_000,
    );
    expect(outcome).toMatchObject({ received: 3_500, inserted: 1_500, updated: 1_000, unchanged: 1_000 });
    const after = await counters();
    expect(after.seqScan - before.seqScan, 'sequential reads of rates during the import').toBe(0);

    // The revisions are still the replaced values.
    expect(outcome.revisions[0]).toMatchObject({ old: { buy: 260_000_000 }, new: { buy: 261_000_000 } });
    const store = db.open();
    try {
      expect(await store.imports.listRevisions({ kind: 'rates', limit: 5_000 })).toHaveLength(1_000);
    } finally {
      await store.close();
    }
  });
});
