/**
 * The webhook events of access changes (docs/webhooks.md), built inside the
 * change's transaction (access.ts, admin.ts) from the records it wrote.
 */
import type { NewEvent } from '../../domain/webhooks.js';
import type { AuditChanges, GrantRecord, KeyRecord } from '../admin-records.js';
import { auditInstant } from './audit.js';
import type { Runner } from './database.js';

/** A key's event, with the account of its grant (docs/webhooks.md). */
export async function keyEvent(
  trx: Runner,
  type: 'key.created' | 'key.revoked',
  k: KeyRecord,
): Promise<NewEvent> {
  const grant = await trx
    .selectFrom('grants')
    .select('account_id')
    .where('id', '=', k.grantId)
    .executeTakeFirst();
  const accountId = grant?.account_id ?? null;
  return {
    type,
    accountId,
    data: {
      keyId: k.publicId,
      grantId: k.grantId,
      accountId,
      label: k.label,
      environment: k.environment,
      expiresAt: auditInstant(k.expiresAt),
      ...(type === 'key.revoked' ? { revokedAt: auditInstant(k.revokedAt) } : {}),
    },
  };
}

export function grantUpdated(g: GrantRecord, changes: AuditChanges): NewEvent {
  return {
    type: 'grant.updated',
    accountId: g.accountId,
    data: { grantId: g.id, accountId: g.accountId, status: g.status, changes },
  };
}
