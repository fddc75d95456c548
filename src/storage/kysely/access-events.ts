/**
 * What the webhook events of access changes need that the change's records do
 * not hold, read inside the change's transaction (access.ts, admin.ts); the
 * events themselves are built by domain/webhook-events.ts.
 */
import type { Runner } from './database.js';

/** The account of a key's grant, for the key's events (grants are never deleted). */
export async function grantAccount(trx: Runner, grantId: string): Promise<string> {
  const grant = await trx
    .selectFrom('grants')
    .select('account_id')
    .where('id', '=', grantId)
    .executeTakeFirstOrThrow();
  return grant.account_id;
}
