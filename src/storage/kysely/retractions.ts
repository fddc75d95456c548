/**
 * Retractions as Kysely writes them for either dialect (docs/decisions.md,
 * 105): the observation leaves `rates` or `gold`, what it published and why
 * go to `retractions`, with its audit record and `data.retracted` event, and
 * the data version moves so that every instance reloads, all in one
 * transaction. The imports' side (records set aside, `--reinstate`) is
 * `standingIn` and `reinstateIn`, called in the import's transaction.
 */
import { PostgresAdapter, sql } from 'kysely';
import { microsToNumber } from '../../domain/decimal.js';
import { dataRetracted } from '../../domain/webhook-builders.js';
import type { Point } from '../import-records.js';
import {
  keyColumnsOf,
  newRetractionId,
  type ObservationKey,
  type RetractOutcome,
  type RetractRequest,
  type StandingRow,
  toRetraction,
} from '../retraction-records.js';
import { appendAudit, changesOf } from './audit.js';
import { bump, type Db, type Runner } from './database.js';
import { emitIn } from './webhooks.js';

/** Thrown inside the transaction to undo a dry run once its outcome is known. */
class DryRun extends Error {
  constructor(readonly outcome: RetractOutcome) {
    super('dry run');
  }
}

const seriesOf = (k: ObservationKey) =>
  k.kind === 'rates'
    ? { table: sql.table('rates'), where: sql`currency = ${k.currency} and source = ${k.source}` }
    : { table: sql.table('gold'), where: sql`purity = ${k.purity}` };

type Row = { updated_at: number; buy: number; sell: number };
const toPoint = (r: Row): Point => ({
  updatedAt: Number(r.updated_at),
  buy: Number(r.buy),
  sell: Number(r.sell),
});

/** The standing retraction of an observation, if any. */
async function standingOf(db: Runner, key: ObservationKey) {
  const k = keyColumnsOf(key);
  const row = await db
    .selectFrom('retractions')
    .selectAll()
    .where('kind', '=', k.kind)
    .where('code', '=', k.code)
    .where('source', '=', k.source)
    .where('updated_at', '=', k.updated_at)
    .where('reinstated_at', 'is', null)
    .executeTakeFirst();
  return row === undefined ? undefined : toRetraction(row);
}

export async function retract(db: Db, r: RetractRequest): Promise<RetractOutcome> {
  const { table, where } = seriesOf(r.key);
  try {
    return await db.transaction().execute(async (trx) => {
      const already = await standingOf(trx, r.key);
      if (already) return { status: 'already_retracted', retraction: already };
      const removed = await sql<Row>`delete from ${table} where ${where} and updated_at = ${r.key.updatedAt}
        returning updated_at, buy, sell`.execute(trx);
      const published = removed.rows[0];
      if (!published) return { status: 'not_found' };
      const k = keyColumnsOf(r.key);
      const row = {
        id: newRetractionId(),
        ...k,
        buy: Number(published.buy),
        sell: Number(published.sell),
        reason: r.reason,
        actor_id: r.actor.id,
        actor_label: r.actor.label,
        retracted_at: r.now,
        reinstated_by: null,
        reinstated_at: null,
      };
      await trx.insertInto('retractions').values(row).execute();
      const newest = await sql<Row>`select updated_at, buy, sell from ${table} where ${where}
        order by updated_at desc limit 1`.execute(trx);
      const latest = newest.rows[0] ? toPoint(newest.rows[0]) : null;
      const retraction = toRetraction(row);
      // What was published and why, never more: the record is the revision of this change.
      await appendAudit(
        trx,
        r.actor,
        'data.retract',
        row.id,
        changesOf(null, {
          kind: k.kind,
          code: k.code,
          source: k.source,
          updatedAt: new Date(r.key.updatedAt).toISOString(),
          buy: microsToNumber(row.buy),
          sell: microsToNumber(row.sell),
          reason: r.reason,
        }),
        r.now,
      );
      await emitIn(trx, [dataRetracted(retraction, latest)], r.now);
      await bump(trx, 'data');
      // Other instances reload on the version poll; on PostgreSQL NOTIFY only shortens the wait.
      if (trx.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`select pg_notify('mds_changes', 'data')`.execute(trx);
      }
      const outcome: RetractOutcome = { status: 'retracted', retraction, latest, dryRun: r.dryRun === true };
      if (r.dryRun) throw new DryRun(outcome);
      return outcome;
    });
  } catch (err) {
    if (err instanceof DryRun) return err.outcome;
    throw err;
  }
}

/** The retractions of a kind that still stand: what an import sets aside (retraction-records.ts, setAside). */
export async function standingIn(trx: Runner, kind: 'rates' | 'gold'): Promise<StandingRow[]> {
  return trx
    .selectFrom('retractions')
    .select(['id', 'code', 'source', 'updated_at'])
    .where('kind', '=', kind)
    .where('reinstated_at', 'is', null)
    .execute();
}

/** Lifts retractions: the import `importId` brought their records back (`--reinstate`). */
export async function reinstateIn(trx: Runner, ids: readonly string[], importId: string, now: number) {
  if (ids.length === 0) return;
  await trx
    .updateTable('retractions')
    .set({ reinstated_by: importId, reinstated_at: now })
    .where('id', 'in', ids)
    .execute();
}
