/**
 * Scale-out backend: PostgreSQL through a pg pool. BIGINT columns come back as
 * strings from pg by default; every value we store fits a double exactly
 * (micro-units and epoch ms), so this pool parses them as numbers.
 */

import { createRequire } from 'node:module';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type { Pool } from 'pg';
import type { GoldObservation, ImportSummary, RateObservation } from '../domain/types.js';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import type { ImportBatch, ImportOptions, UsageIncrement } from './store.js';

const INT8_OID = 20;
const CHUNK = 20_000;

export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres' as const;

  private constructor(
    db: Kysely<Database>,
    readonly pool: Pool,
  ) {
    super(db);
  }

  static open(url: string, options: { max?: number } = {}): PostgresStore {
    const pool = openPool(url, options.max ?? 10);
    return new PostgresStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool);
  }

  protected async importObservations(
    batch: Exclude<ImportBatch, { kind: 'assets' }>,
    { onProgress }: ImportOptions,
  ): Promise<ImportSummary> {
    const summary: ImportSummary = {
      kind: batch.kind,
      received: batch.records.length,
      inserted: 0,
      updated: 0,
      unchanged: 0,
    };
    const records: ReadonlyArray<RateObservation | GoldObservation> = batch.records;
    const upsert = batch.kind === 'rates' ? upsertRates : upsertGold;
    const encode = batch.kind === 'rates' ? rateColumns : goldColumns;
    await this.db.transaction().execute(async (trx) => {
      // One statement per chunk, straight from arrays: the upsert skips identical rows
      // (its WHERE), and `xmax = 0` tells an inserted row from an updated one.
      let columns = encode(records.slice(0, CHUNK) as never);
      for (let i = 0; i < records.length; i += CHUNK) {
        const running = upsert(trx, columns);
        // The next chunk is encoded while PostgreSQL works on this one (the query
        // is on the wire by the time a setImmediate callback runs): the client's
        // share of the import no longer adds to the server's (issue #5).
        const following =
          i + CHUNK < records.length
            ? new Promise<string[]>((resolve, reject) =>
                setImmediate(() => {
                  try {
                    resolve(encode(records.slice(i + CHUNK, i + 2 * CHUNK) as never));
                  } catch (err) {
                    reject(err);
                  }
                }),
              )
            : Promise.resolve([]);
        // A failed chunk fails the import; the encoding then in progress is dropped with it.
        following.catch(() => {});
        const counted = await running;
        summary.inserted += Number(counted.rows[0]?.inserted ?? 0);
        summary.updated += Number(counted.rows[0]?.updated ?? 0);
        onProgress?.(Math.min(i + CHUNK, records.length), records.length);
        columns = await following;
      }
      summary.unchanged = summary.received - summary.inserted - summary.updated;
      if (summary.inserted + summary.updated > 0) await this.bump(trx, 'data');
      // Other instances refresh on the version poll; NOTIFY only shortens the wait.
      await sql`select pg_notify('mds_changes', 'data')`.execute(trx);
    });
    return summary;
  }

  /**
   * One statement for the whole tick: the group commit of every request waiting
   * on it, as a named prepared statement (parsed once per connection). It is a
   * synchronous commit, like every other: decisions §5 wants answered units to
   * survive a crash of any process, PostgreSQL's included, so the commit waits
   * for its WAL flush. The usage recorder keeps a few commits in flight, so
   * PostgreSQL flushes them together.
   */
  override async addUsage(increments: readonly UsageIncrement[], now: number): Promise<void> {
    if (increments.length === 0) return;
    await this.pool.query({
      name: 'mds_add_usage',
      text: `insert into usage (grant_id, period, used, updated_at)
        select g, p, c, $4 from unnest($1::text[], $2::text[], $3::bigint[]) as t(g, p, c)
        on conflict (grant_id, period) do update set used = usage.used + excluded.used, updated_at = excluded.updated_at`,
      values: [
        increments.map((i) => i.grantId),
        increments.map((i) => i.period),
        increments.map((i) => i.count),
        now,
      ],
    });
  }
}

/**
 * pg is loaded when a PostgreSQL store is opened, not with this module: the
 * embedded default never needs it, and loading it (it probes for undici) was a
 * tenth of the time from process start to the first answer (issue #5).
 */
const loadPg = (): typeof import('pg') => createRequire(import.meta.url)('pg');

function openPool(url: string, max: number): Pool {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 2_000,
    // A query stuck behind a dead server must fail fast enough to answer 503.
    query_timeout: 5_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // A client in use when the server goes away emits 'error' too; the query it
  // was running rejects on its own (→ 503), so the event needs only a listener.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

type Counted = { rows: Array<{ inserted: number; updated: number }> };

/**
 * A PostgreSQL array literal, sent as one text parameter and cast in the query:
 * built here in one pass rather than by pg element by element.
 */
const textArray = (values: readonly string[]) =>
  `{${values.map((v) => (v.includes('"') || v.includes('\\') ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`)).join(',')}}`;
const numberArray = (values: readonly number[]) => `{${values.join(',')}}`;

/** A chunk of rates as the array literals of `upsertRates`, column by column. */
function rateColumns(part: readonly RateObservation[]): string[] {
  return [
    textArray(part.map((r) => r.currency)),
    textArray(part.map((r) => r.source)),
    numberArray(part.map((r) => r.updatedAt)),
    numberArray(part.map((r) => r.buy)),
    numberArray(part.map((r) => r.sell)),
  ];
}

function goldColumns(part: readonly GoldObservation[]): string[] {
  return [
    textArray(part.map((g) => g.purity)),
    numberArray(part.map((g) => g.updatedAt)),
    numberArray(part.map((g) => g.buy)),
    numberArray(part.map((g) => g.sell)),
  ];
}

function upsertRates(
  trx: Transaction<Database>,
  [currency, source, at, buy, sell]: string[],
): Promise<Counted> {
  return sql<{ inserted: number; updated: number }>`
    with up as (
      insert into rates (currency, source, updated_at, buy, sell)
      select * from unnest(${currency}::text[], ${source}::text[], ${at}::bigint[], ${buy}::bigint[], ${sell}::bigint[])
      on conflict (currency, source, updated_at) do update set buy = excluded.buy, sell = excluded.sell
      where rates.buy <> excluded.buy or rates.sell <> excluded.sell
      returning (xmax = 0) as fresh)
    select count(*) filter (where fresh) as inserted, count(*) filter (where not fresh) as updated from up`.execute(
    trx,
  );
}

function upsertGold(trx: Transaction<Database>, [purity, at, buy, sell]: string[]): Promise<Counted> {
  return sql<{ inserted: number; updated: number }>`
    with up as (
      insert into gold (purity, updated_at, buy, sell)
      select * from unnest(${purity}::text[], ${at}::bigint[], ${buy}::bigint[], ${sell}::bigint[])
      on conflict (purity, updated_at) do update set buy = excluded.buy, sell = excluded.sell
      where gold.buy <> excluded.buy or gold.sell <> excluded.sell
      returning (xmax = 0) as fresh)
    select count(*) filter (where fresh) as inserted, count(*) filter (where not fresh) as updated from up`.execute(
    trx,
  );
}
