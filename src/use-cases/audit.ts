/**
 * The audit log, read (docs/decisions.md, 57): newest first, filtered by
 * actor, target, action and a window of time. Records are written by the
 * store, in the transaction of each change; nothing here writes one.
 */
import { AuditWindow } from '../schemas/admin.js';
import type { AuditFilter } from '../storage/admin-records.js';
import type { Store } from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import { checked, invalid, keysetOf, pageOf, refusing } from './rules.js';
import { type AuditView, auditView } from './views.js';

export interface AuditListInput extends ListOptions {
  /** An actor id: `cli`, `system` or an admin token's `adm_…`. */
  actor?: string;
  targetId?: string;
  action?: string;
  /** ISO 8601: records at or after it. */
  from?: string;
  /** ISO 8601: records at or before it. */
  to?: string;
}

export function listAudit(
  store: Store,
  _actor: Actor,
  input: AuditListInput = {},
): Promise<Result<Page<AuditView>>> {
  return refusing(async () => {
    const filter: AuditFilter = {};
    if (input.actor !== undefined) filter.actor = input.actor;
    if (input.targetId !== undefined) filter.targetId = input.targetId;
    if (input.action !== undefined) filter.action = input.action;
    const window = checked(AuditWindow, { from: input.from, to: input.to });
    if (window.from !== undefined) filter.from = Date.parse(window.from);
    if (window.to !== undefined) filter.to = Date.parse(window.to);
    if (filter.from !== undefined && filter.to !== undefined && filter.to < filter.from) {
      throw invalid('to', 'must not be before from');
    }
    const page = keysetOf(input);
    const rows = await store.operator.listAudit(filter, page);
    return pageOf(rows, page, (r) => ({ at: r.at, id: r.id }), auditView);
  });
}
