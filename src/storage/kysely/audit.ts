/**
 * The audit log as Kysely writes and reads it for either dialect
 * (docs/decisions.md, 57): one record appended inside the transaction of the
 * change it describes, never updated or deleted.
 */
import { randomBytes } from 'node:crypto';
import type { ImportSummary } from '../../domain/types.js';
import type { AuditActor, AuditChanges, AuditRecord } from '../admin-records.js';
import { SYSTEM_ACTOR } from '../admin-records.js';
import { errorCode } from '../errors.js';
import type { ImportMeta } from '../import-records.js';
import type { AuditLogTable } from '../schema.js';
import type { Runner } from './database.js';

let sequence = 0;

/**
 * `aud_` + the time (base 36, fixed width) + a counter of this process + random
 * letters. The log is listed by (at, id): two records of one millisecond from
 * one process keep the order they were written in (a grant's create before
 * its update), and a cursor on (at, id) is stable.
 */
export const newAuditId = (at: number = Date.now()): string => {
  sequence = (sequence + 1) % 36 ** 4;
  const random = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').toLowerCase();
  return `aud_${at.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${random}`;
};

/** An instant as the audit log shows it. */
export const auditInstant = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();

/**
 * The fields whose values differ between `before` and `after` (null: the
 * record did not exist). Values are compared as JSON: lists by content.
 */
export function changesOf(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): AuditChanges {
  const changes: AuditChanges = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of fields) {
    const b = before?.[field] ?? null;
    const a = after?.[field] ?? null;
    if (JSON.stringify(b) !== JSON.stringify(a)) changes[field] = { before: b, after: a };
  }
  return changes;
}

export function auditRow(
  actor: AuditActor | undefined,
  action: string,
  targetId: string,
  changes: AuditChanges,
  at: number,
): AuditLogTable {
  const who = actor ?? SYSTEM_ACTOR;
  return {
    id: newAuditId(at),
    at,
    actor_id: who.id,
    actor_label: who.label,
    action,
    target_id: targetId,
    changes: JSON.stringify(changes),
    request_id: who.requestId,
  };
}

/** Appends one record, on the runner of the change's own transaction. */
export async function appendAudit(
  trx: Runner,
  actor: AuditActor | undefined,
  action: string,
  targetId: string,
  changes: AuditChanges,
  at: number,
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values(auditRow(actor, action, targetId, changes, at))
    .execute();
}

export function toAudit(r: AuditLogTable): AuditRecord {
  return {
    id: r.id,
    at: Number(r.at),
    actorId: r.actor_id,
    actorLabel: r.actor_label,
    action: r.action,
    targetId: r.target_id,
    changes: JSON.parse(r.changes) as AuditChanges,
    requestId: r.request_id,
  };
}

/** A unique index refused the row (SQLite's extended code, PostgreSQL's SQLSTATE). */
export const isUniqueViolation = (err: unknown): boolean => {
  const code = errorCode(err);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
};

/**
 * The actor of an import's record as the audit log names it: `cli:<user>` is
 * the CLI and its operating-system user, `system` the service, anything else
 * an admin token's id, labelled with the token's label when it has one.
 */
export function importActor(actor: string, tokenLabel: string | undefined): AuditActor {
  const colon = actor.indexOf(':');
  if (colon > 0) return { id: actor.slice(0, colon), label: actor.slice(colon + 1), requestId: null };
  return { id: actor, label: tokenLabel ?? actor, requestId: null };
}

/** The `data.import` record of an import that wrote: its kind and counts, target the import's id. */
export function importAuditRow(
  meta: ImportMeta,
  summary: ImportSummary,
  now: number,
  tokenLabel: string | undefined,
): AuditLogTable {
  const counts = {
    kind: summary.kind,
    received: summary.received,
    inserted: summary.inserted,
    updated: summary.updated,
    unchanged: summary.unchanged,
  };
  return auditRow(importActor(meta.actor, tokenLabel), 'data.import', meta.id, changesOf(null, counts), now);
}

/** The same, written on a Kysely runner inside the import's transaction. */
export async function appendImportAudit(
  trx: Runner,
  meta: ImportMeta,
  summary: ImportSummary,
  now: number,
): Promise<void> {
  const token = await trx
    .selectFrom('admin_tokens')
    .select('label')
    .where('id', '=', meta.actor)
    .executeTakeFirst();
  await trx
    .insertInto('audit_log')
    .values(importAuditRow(meta, summary, now, token?.label))
    .execute();
}

const AUDIT_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'actor_label',
  'action',
  'target_id',
  'changes',
  'request_id',
] as const satisfies ReadonlyArray<keyof AuditLogTable>;

/** The INSERT of one audit row with named parameters, for the SQLite import's raw connection. */
export const AUDIT_INSERT_SQL = `insert into audit_log (${AUDIT_COLUMNS.join(', ')}) values (${AUDIT_COLUMNS.map((c) => `@${c}`).join(', ')})`;
