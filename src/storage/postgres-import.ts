/**
 * PostgreSQL's bulk import of rates and gold: one upsert statement per chunk,
 * its rows sent as one array literal per column and expanded by `unnest`.
 */
import { sql, type Transaction } from 'kysely';
import type { ImportSummary } from '../domain/types.js';
import {
  DryRunRollback,
  type ImportMeta,
  type ImportOutcome,
  importScope,
  metaOf,
} from './import-records.js';
import { appendImportAudit } from './kysely/audit.js';
import { bump, type Db } from './kysely/database.js';
import { firstRevisions, insertImport, KyselyImports, unknownAssets } from './kysely/imports.js';
import { reinstateIn, standingIn } from './kysely/retractions.js';
import {
  columnNames,
  keyColumns,
  type Observation,
  type ObservationBatch,
  type ObservationTable,
  observationTable,
} from './observations.js';
import { type SetAside, setAside } from './retraction-records.js';
import type { Database } from './schema.js';
import { type ImportOptions, UnknownAssetsError } from './store.js';

const CHUNK = 20_000;

export async function importObservations(
  db: Db,
  batch: ObservationBatch,
  { onProgress, meta: given, dryRun = false, reinstate = false }: ImportOptions,
): Promise<ImportOutcome> {
  const meta = metaOf(given);
  const now = Date.now();
  const summary: ImportSummary = {
    kind: batch.kind,
    received: batch.records.length,
    inserted: 0,
    updated: 0,
    unchanged: 0,
  };
  let records: readonly Observation[] = batch.records;
  let aside: SetAside = { records, retracted: 0, reinstated: [] };
  const table = observationTable(batch.kind);
  const encode = (part: readonly Observation[]) => encodeColumns(table, part);
  let outcome: ImportOutcome | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      // Each chunk's statement is planned afresh and costs more than PostgreSQL's JIT
      // threshold: compiling it took 20-30 ms a chunk, about a seventh of a million-row
      // import (docs/performance-notes.md, "the PostgreSQL import's own plan").
      await sql`set local jit = off`.execute(trx);
      // Rates need their asset (decisions 3), checked once per import here rather than
      // by a foreign key on every row (decisions 77).
      if (batch.kind === 'rates') {
        const unknown = await unknownAssets(
          trx,
          batch.records.map((r) => r.currency),
        );
        if (unknown.length > 0) throw new UnknownAssetsError(unknown);
      }
      // Retracted observations stay out unless the import reinstates them (docs/decisions.md, 105).
      aside = setAside(batch, await standingIn(trx, batch.kind), reinstate);
      records = aside.records;
      // The record first: the revisions refer to it; its counts are known at the end.
      await insertImport(trx, meta, summary, now, importScope(batch.kind, records));
      let columns = encode(records.slice(0, CHUNK));
      for (let i = 0; i < records.length; i += CHUNK) {
        const running = upsert(trx, table, columns, { meta, now, seq: summary.updated });
        // The next chunk is encoded while PostgreSQL works on this one (the query
        // is on the wire by the time a setImmediate callback runs): the client's
        // share of the import no longer adds to the server's.
        const following =
          i + CHUNK < records.length
            ? new Promise<string[]>((resolve, reject) =>
                setImmediate(() => {
                  try {
                    resolve(encode(records.slice(i + CHUNK, i + 2 * CHUNK)));
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
      summary.unchanged = summary.received - summary.inserted - summary.updated - aside.retracted;
      await reinstateIn(trx, aside.reinstated, meta.id, now);
      await trx
        .updateTable('imports')
        .set({ inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged })
        .where('id', '=', meta.id)
        .execute();
      // Its audit record, beside its own (docs/decisions.md, 57).
      await appendImportAudit(trx, meta, summary, now);
      if (summary.inserted + summary.updated > 0) await bump(trx, 'data');
      // Other instances refresh on the version poll; NOTIFY only shortens the wait.
      await sql`select pg_notify('mds_changes', 'data')`.execute(trx);
      outcome = {
        ...summary,
        importId: meta.id,
        revisions: await firstRevisions(trx, meta.id),
        dryRun,
        retracted: aside.retracted,
        reinstated: aside.reinstated.length,
      };
      // A dry run: everything was checked and counted by the real statements; undo it all.
      if (dryRun) throw new DryRunRollback(outcome);
    })
    .catch((err: unknown) => {
      if (!(err instanceof DryRunRollback)) throw err;
    });
  return outcome as ImportOutcome;
}

type Counted = { rows: Array<{ inserted: number; updated: number }> };

/**
 * A PostgreSQL array literal, sent as one text parameter and cast in the query:
 * built here in one pass rather than by pg element by element.
 */
const textArray = (values: readonly string[]) =>
  `{${values.map((v) => (v.includes('"') || v.includes('\\') ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`)).join(',')}}`;
const numberArray = (values: readonly number[]) => `{${values.join(',')}}`;

/** A chunk as one array literal per column, in table order. */
function encodeColumns(table: ObservationTable, part: readonly Observation[]): string[] {
  const width = table.columns.length;
  const row = new Array<string | number>(width);
  const columns = table.columns.map(() => new Array<string | number>(part.length));
  for (let i = 0; i < part.length; i++) {
    table.fill(part[i]!, row, 0);
    for (let c = 0; c < width; c++) columns[c]![i] = row[c]!;
  }
  return table.columns.map(({ type }, c) =>
    type === 'text' ? textArray(columns[c] as string[]) : numberArray(columns[c] as number[]),
  );
}

/** Where a chunk's revisions go: its import, the time, and the revisions before it. */
interface Revising {
  meta: ImportMeta;
  now: number;
  seq: number;
}

/**
 * One chunk in two statements. The first records the chunk's revisions (decisions
 * 51): the values of stored rows the chunk changes. It looks rows up by primary key
 * (a lateral `limit 1`: a join let the planner hash the whole table once per chunk,
 * so a million-row import grew with the square of its size), and only the rows no
 * later than their series' last stored instant (`last`, one index probe a series):
 * the rest are new, and an import of newer observations, the usual one, looks none
 * up. It runs before the upsert: in one statement with it, PostgreSQL ran it after,
 * and every probe then stepped over the entries the upsert had just added.
 * The upsert skips identical rows (its WHERE), and `xmax = 0` tells an inserted row
 * from an updated one.
 */
async function upsert(
  trx: Transaction<Database>,
  table: ObservationTable,
  columns: string[],
  r: Revising,
): Promise<Counted> {
  const t = sql.table(table.name);
  const names = columnNames(table);
  const keys = keyColumns(table);
  const list = sql.raw(names.join(', '));
  const arrays = sql.join(columns.map((a, i) => sql`${a}::${sql.raw(table.columns[i]!.type)}[]`));
  const rows = sql`select * from unnest(${arrays}) as i(${list})`;
  const joined = sql.raw(keys.map((k) => `t.${k} = i.${k}`).join(' and '));
  const code = sql.raw(table.name === 'rates' ? 'o.currency' : 'o.purity');
  const source = sql.raw(table.name === 'rates' ? 'o.source' : "'gold'");
  const order = sql.raw(keys.map((k) => `o.${k}`).join(', '));
  // A series is the key without its instant: (currency, source) or (purity).
  const series = keys.filter((k) => k !== 'updated_at');
  const seriesList = sql.raw(series.join(', '));
  const inSeries = (a: string, b: string) =>
    sql.raw(series.map((k) => `${a}.${k} = ${b}.${k}`).join(' and '));
  await sql`
    with i as materialized (${rows}),
    last as materialized (
      select s.*, (select t.updated_at from ${t} t where ${inSeries('t', 's')}
        order by t.updated_at desc limit 1) as updated_at
      from (select distinct ${seriesList} from i) s),
    o as (
      select ${sql.raw(keys.map((k) => `t.${k}`).join(', '))}, t.buy as old_buy, t.sell as old_sell,
        i.buy as new_buy, i.sell as new_sell
      from i join last on ${inSeries('i', 'last')} and i.updated_at <= last.updated_at
      cross join lateral (select * from ${t} t where ${joined} limit 1) t
      where t.buy <> i.buy or t.sell <> i.sell)
    insert into revisions (import_id, seq, kind, code, source, updated_at, old_buy, old_sell, new_buy, new_sell, revised_at)
    select ${r.meta.id}, ${r.seq} + row_number() over (order by ${order}) - 1, ${table.name}, ${code}, ${source},
      o.updated_at, o.old_buy, o.old_sell, o.new_buy, o.new_sell, ${r.now}::bigint
    from o`.execute(trx);
  return sql<{ inserted: number; updated: number }>`
    with up as (
      insert into ${t} (${list}) ${rows}
      on conflict (${sql.raw(keys.join(', '))}) do update set buy = excluded.buy, sell = excluded.sell
      where ${t}.buy <> excluded.buy or ${t}.sell <> excluded.sell
      returning (xmax = 0) as fresh)
    select count(*) filter (where fresh) as inserted, count(*) filter (where not fresh) as updated from up`.execute(
    trx,
  );
}

/** The import repository with PostgreSQL's bulk write of rates and gold. */
export class PostgresImports extends KyselyImports {
  protected override importObservations(
    batch: ObservationBatch,
    options: ImportOptions,
  ): Promise<ImportOutcome> {
    return importObservations(this.db, batch, options);
  }
}
