/**
 * Durable usage reads, and the store limiter's minute give-back, as Kysely
 * writes them for either dialect. The commits on the request path (addUsage,
 * consumeUsage) are each backend's own: sqlite.ts, postgres.ts.
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

export async function getUsage(db: Db, grantId: string, period: string): Promise<number> {
  const r = await db
    .selectFrom('usage')
    .select('used')
    .where('grant_id', '=', grantId)
    .where('period', '=', period)
    .executeTakeFirst();
  return r ? Number(r.used) : 0;
}

export async function getMinuteUsage(db: Db, grantId: string, window: number): Promise<number> {
  const r = await db
    .selectFrom('minute_usage')
    .select(['window_start', 'used'])
    .where('grant_id', '=', grantId)
    .executeTakeFirst();
  return r && Number(r.window_start) === window ? Number(r.used) : 0;
}

export async function releaseMinute(db: Db, grantId: string, window: number, count: number): Promise<void> {
  await db
    .updateTable('minute_usage')
    .set({ used: sql`case when used > ${count} then used - ${count} else 0 end` })
    .where('grant_id', '=', grantId)
    .where('window_start', '=', window)
    .execute();
}
