/**
 * SQLite's bulk import of rates and gold, straight on better-sqlite3: it is
 * synchronous, so it cannot interleave with Kysely's queued queries on the
 * shared connection, and it prepares each statement once.
 */
import type { ImportSummary, RateObservation } from '../domain/types.js';
import {
  DryRunRollback,
  IMPORT_COLUMNS,
  type ImportOutcome,
  importRow,
  importScope,
  importValues,
  metaOf,
  REVISION_COLUMNS,
  REVISIONS_SHOWN,
  type RevisionRecord,
  toRevision,
} from './import-records.js';
import { AUDIT_INSERT_SQL, importAuditRow } from './kysely/audit.js';
import type { Db } from './kysely/database.js';
import { KyselyImports } from './kysely/imports.js';
import {
  columnNames,
  keyColumns,
  type Observation,
  type ObservationBatch,
  observationTable,
} from './observations.js';
import { type SetAside, type StandingRow, setAside } from './retraction-records.js';
import type { RevisionsTable } from './schema.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { type ImportOptions, UnknownAssetsError } from './store.js';

const PROGRESS_EVERY = 50_000;
const STANDING_SQL =
  'select id, code, source, updated_at from retractions where kind = ? and reinstated_at is null';
const REINSTATE_SQL = 'update retractions set reinstated_by = ?, reinstated_at = ? where id = ?';
/** Records per multi-row INSERT of an import (500 bound parameters for rates). */
const CHUNK = 100;

/** The foreign key of rates, for a whole import at once: throws before anything is written. */
function assertKnownCurrencies(conn: SqliteConnection, records: readonly RateObservation[]): void {
  const known = new Set(conn.statement('select code from assets', 'pluck').all() as string[]);
  const unknown = new Set<string>();
  for (const r of records) if (!known.has(r.currency)) unknown.add(r.currency);
  if (unknown.size > 0) throw new UnknownAssetsError([...unknown].sort());
}

export function importObservations(
  conn: SqliteConnection,
  batch: ObservationBatch,
  { onProgress, meta: given, dryRun = false, reinstate = false }: ImportOptions,
): ImportOutcome {
  const meta = metaOf(given);
  const now = Date.now();
  const summary: ImportSummary = {
    kind: batch.kind,
    received: batch.records.length,
    inserted: 0,
    updated: 0,
    unchanged: 0,
  };
  const raw = conn.db;
  const table = observationTable(batch.kind);
  let records: readonly Observation[] = batch.records;
  let aside: SetAside = { records, retracted: 0, reinstated: [] };
  const columns = columnNames(table);
  const width = columns.length;
  const key = keyColumns(table);
  const cols = `(${columns.join(', ')})`;
  const row = `(${columns.map(() => '?').join(', ')})`;
  const insertChunk = conn.statement(
    `insert into ${table.name} ${cols} values ${Array(CHUNK).fill(row).join(', ')} on conflict do nothing`,
  );
  const insert = conn.statement(`insert into ${table.name} ${cols} values ${row} on conflict do nothing`);
  const where = key.map((c) => `${c} = ?`).join(' and ');
  const find = conn.statement(`select buy, sell from ${table.name} where ${where}`, 'raw');
  const update = conn.statement(`update ${table.name} set buy = ?, sell = ? where ${where}`);
  const savepoint = conn.statement('savepoint chunk');
  const release = conn.statement('release chunk');
  const rollback = conn.statement('rollback to chunk');
  const insertImport = conn.statement(
    `insert into imports (${IMPORT_COLUMNS.join(', ')}) values (${IMPORT_COLUMNS.map(() => '?').join(', ')})`,
  );
  const countImport = conn.statement(
    'update imports set inserted = ?, updated = ?, unchanged = ? where id = ?',
  );
  const insertRevision = conn.statement(
    `insert into revisions (${REVISION_COLUMNS.join(', ')}) values (${REVISION_COLUMNS.map(() => '?').join(', ')})`,
  );
  const revisions: RevisionRecord[] = [];
  /** What the stored observation was: a revision of this import (decisions 51). */
  const revise = (k: Array<string | number>, old: number[], r: Observation) => {
    const row: RevisionsTable = {
      import_id: meta.id,
      seq: summary.updated,
      kind: batch.kind,
      code: k[0] as string,
      source: batch.kind === 'rates' ? (k[1] as string) : 'gold',
      updated_at: k[table.keyWidth - 1] as number,
      old_buy: old[0]!,
      old_sell: old[1]!,
      new_buy: r.buy,
      new_sell: r.sell,
      revised_at: now,
    };
    insertRevision.run(REVISION_COLUMNS.map((c) => row[c]));
    if (revisions.length < REVISIONS_SHOWN) revisions.push(toRevision(row));
  };

  /** One record on its own: insert, or compare with the stored one and update if it differs. */
  const values = new Array<string | number>(width);
  const one = (r: Observation) => {
    table.fill(r, values, 0);
    if (insert.run(values).changes === 1) {
      summary.inserted++;
      return;
    }
    const k = values.slice(0, table.keyWidth);
    const old = find.get(k) as number[];
    if (old[0] !== r.buy || old[1] !== r.sell) {
      update.run(r.buy, r.sell, ...k);
      revise(k, old, r);
      summary.updated++;
    } else summary.unchanged++;
  };

  // New observations (the common case) go in CHUNK rows per statement: half the
  // time of a statement per row (bench: 2.0 s → 1.0 s per million). A chunk
  // that meets a stored key is rolled back to its savepoint and taken row by
  // row, which tells inserted, updated and unchanged records apart.
  const run = () => {
    const params = new Array<string | number>(CHUNK * width);
    let i = 0;
    for (; i + CHUNK <= records.length; i += CHUNK) {
      for (let j = 0; j < CHUNK; j++) table.fill(records[i + j]!, params, j * width);
      savepoint.run();
      if (insertChunk.run(params).changes === CHUNK) summary.inserted += CHUNK;
      else {
        rollback.run();
        for (let j = 0; j < CHUNK; j++) one(records[i + j]!);
      }
      release.run();
      if (onProgress && (i + CHUNK) % PROGRESS_EVERY === 0) onProgress(i + CHUNK, records.length);
    }
    for (; i < records.length; i++) one(records[i]!);
  };
  // The foreign key of rates (currency → assets) is checked once per import,
  // inside its transaction, instead of by SQLite on every row: that per-row
  // lookup in assets was a tenth of the import (profile). The pragma
  // applies to this connection only and is restored before anything else can
  // run on it (this block is synchronous). Gold has no foreign key.
  const checkAssetsHere =
    batch.kind === 'rates' && conn.statement('pragma foreign_keys', 'pluck').get() === 1;
  if (checkAssetsHere) raw.exec('pragma foreign_keys = OFF');
  try {
    // IMMEDIATE: the batch reads before it writes, and a deferred transaction
    // upgrading to a writer fails at once ("database is locked") when another
    // process (a running server, a second import) has written meanwhile.
    raw
      .transaction(() => {
        if (checkAssetsHere) assertKnownCurrencies(conn, records as readonly RateObservation[]);
        // Retracted observations stay out unless the import reinstates them (docs/decisions.md, 105).
        const standing = conn.statement(STANDING_SQL).all(batch.kind) as StandingRow[];
        aside = setAside(batch, standing, reinstate);
        records = aside.records;
        // The record first: the revisions refer to it; its counts are known at the end.
        insertImport.run(importValues(importRow(meta, summary, now, importScope(batch.kind, records))));
        run();
        countImport.run(summary.inserted, summary.updated, summary.unchanged, meta.id);
        const lift = conn.statement(REINSTATE_SQL);
        for (const id of aside.reinstated) lift.run(meta.id, now, id);
        // Its audit record, beside its own (docs/decisions.md, 57).
        const label = conn.statement('select label from admin_tokens where id = ?', 'pluck').get(meta.actor);
        conn.statement(AUDIT_INSERT_SQL).run(importAuditRow(meta, summary, now, label as string | undefined));
        if (summary.inserted + summary.updated > 0) {
          conn.statement("update versions set value = value + 1 where name = 'data'").run();
        }
        // A dry run: everything was checked and counted by the real statements; undo it all.
        if (dryRun) throw new DryRunRollback(outcome());
      })
      .immediate();
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  } finally {
    if (checkAssetsHere) raw.exec('pragma foreign_keys = ON');
  }
  return outcome();

  function outcome(): ImportOutcome {
    return {
      ...summary,
      importId: meta.id,
      revisions,
      dryRun,
      retracted: aside.retracted,
      reinstated: aside.reinstated.length,
    };
  }
}

/** The import repository with SQLite's bulk write of rates and gold, on a connection of its own. */
export class SqliteImports extends KyselyImports {
  private conn?: SqliteConnection;

  constructor(
    db: Db,
    /** The store's connection: the import's own in memory, where nothing else can open the file. */
    private readonly shared: SqliteConnection,
    private readonly connect: (() => SqliteConnection) | undefined,
  ) {
    super(db);
  }

  protected override async importObservations(
    batch: ObservationBatch,
    options: ImportOptions,
  ): Promise<ImportOutcome> {
    this.conn ??= this.connect?.() ?? this.shared;
    return importObservations(this.conn, batch, options);
  }

  /** Closes the import's connection, if it opened one of its own. */
  closeConnection(): void {
    if (this.conn !== this.shared) this.conn?.close();
  }
}
