/**
 * `mds audit`: the audit log, newest first (src/use-cases/audit.ts,
 * docs/decisions.md, 57). It shows what the store recorded of each change:
 * never a secret, a digest or a full key.
 */
import { listAudit } from '../../use-cases/audit.js';
import type { AuditView } from '../../use-cases/views.js';
import type { Command } from '../command.js';
import { cliActor, instant, outcome, str, wholeNumber } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const show = (v: unknown) =>
  v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v);

/** `field: before -> after` for each changed field; a created record shows its values. */
function changesLine(r: AuditView): string {
  return Object.entries(r.changes)
    .map(([field, c]) =>
      c.before === null ? `${field}=${show(c.after)}` : `${field}: ${show(c.before)} -> ${show(c.after)}`,
    )
    .join('; ');
}

export const auditCommand: Command = {
  name: ['audit'],
  usage:
    'audit [--since ISO] [--until ISO] [--target ID] [--actor cli|system|adm_…] [--action A] [--limit 100] [--cursor C]',
  options: {
    since: { type: 'string' },
    until: { type: 'string' },
    target: { type: 'string' },
    actor: { type: 'string' },
    action: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
  },
  async run({ values, out, databaseUrl }) {
    const input = {
      from: instant(values.since),
      to: instant(values.until),
      targetId: str(values.target),
      actor: str(values.actor),
      action: str(values.action),
      limit: wholeNumber(values.limit),
      cursor: str(values.cursor),
    };
    const page = await withStore(databaseUrl, async (s) => outcome(await listAudit(s, cliActor(), input)));
    out.result({ records: page.items, nextCursor: page.nextCursor }, [
      ...table(
        ['AT', 'ACTOR', 'ACTION', 'TARGET', 'CHANGES'],
        page.items.map((r) => [
          r.at,
          `${r.actor.id} (${r.actor.label})`,
          r.action,
          r.targetId,
          changesLine(r),
        ]),
      ),
      ...(page.nextCursor ? ['', `More: mds audit --cursor ${page.nextCursor} (with the same filters)`] : []),
    ]);
  },
};
