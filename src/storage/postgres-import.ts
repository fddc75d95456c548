/**
 * PostgreSQL's bulk import of rates and gold: one upsert statement per chunk,
 * its rows sent as one array literal per column and expanded by `unnest`.
 */
import { sql, type Transaction } from 'kysely';
import type { ImportSummary } from '../domain/types.js';
import { bump, type Db } from './kysely/database.js';
import {
  columnNames,
  keyColumns,
  type Observation,
  type ObservationBatch,
  type ObservationTable,
  observationTable,
} from './observations.js';
import type { Database } from './schema.js';
import type { ImportOptions } from './store.js';

const CHUNK = 20_000;

export async function importObservations(
  db: Db,
  batch: ObservationBatch,
  { onProgress }: ImportOptions,
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    kind: batch.kind,
    received: batch.records.length,
    inserted: 0,
    updated: 0,
    unchanged: 0,
  };
  const records: readonly Observation[] = batch.records;
  const table = observationTable(batch.kind);
  const encode = (part: readonly Observation[]) => encodeColumns(table, part);
  await db.transaction().execute(async (trx) => {
    let columns = encode(records.slice(0, CHUNK));
    for (let i = 0; i < records.length; i += CHUNK) {
      const running = upsert(trx, table, columns);
      // The next chunk is encoded while PostgreSQL works on this one (the query
      // is on the wire by the time a setImmediate callback runs): the client's
      // share of the import no longer adds to the server's (issue #5).
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
    summary.unchanged = summary.received - summary.inserted - summary.updated;
    if (summary.inserted + summary.updated > 0) await bump(trx, 'data');
    // Other instances refresh on the version poll; NOTIFY only shortens the wait.
    await sql`select pg_notify('mds_changes', 'data')`.execute(trx);
  });
  return summary;
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

/**
 * One chunk in one statement: the upsert skips identical rows (its WHERE), and
 * `xmax = 0` tells an inserted row from an updated one.
 */
function upsert(trx: Transaction<Database>, table: ObservationTable, columns: string[]): Promise<Counted> {
  const t = sql.table(table.name);
  const names = sql.raw(columnNames(table).join(', '));
  const arrays = sql.join(columns.map((a, i) => sql`${a}::${sql.raw(table.columns[i]!.type)}[]`));
  return sql<{ inserted: number; updated: number }>`
    with up as (
      insert into ${t} (${names}) select * from unnest(${arrays})
      on conflict (${sql.raw(keyColumns(table).join(', '))}) do update set buy = excluded.buy, sell = excluded.sell
      where ${t}.buy <> excluded.buy or ${t}.sell <> excluded.sell
      returning (xmax = 0) as fresh)
    select count(*) filter (where fresh) as inserted, count(*) filter (where not fresh) as updated from up`.execute(
    trx,
  );
}
