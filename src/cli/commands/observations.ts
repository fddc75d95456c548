/**
 * `mds observations retract`: takes a published observation back
 * (docs/decisions.md, 105 and 106), a thin command over
 * src/use-cases/retractions.ts, as POST /admin/v1/data/retractions.
 */
import { type RetractInput, retractObservation } from '../../use-cases/retractions.js';
import type { Command } from '../command.js';
import { cliActor, instant, outcome, str } from '../operation.js';
import { withStore } from '../with-store.js';

/** `21` is the purity `21K`, as an operator says it; anything else goes to the operation as given. */
const purityOf = (v: unknown) => {
  const text = str(v);
  return text !== undefined && /^\d+$/.test(text) ? `${text}K` : text;
};

export const observationCommands: Command[] = [
  {
    name: ['observations', 'retract'],
    usage:
      'observations retract (--currency C --source parallel|official|transfer | --purity 18|21|24) --at ISO --reason TEXT [--dry-run]',
    options: {
      currency: { type: 'string' },
      source: { type: 'string' },
      purity: { type: 'string' },
      at: { type: 'string' },
      reason: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    async run({ values, out, databaseUrl }) {
      // A missing --at or --reason is the operation's to refuse, with the admin API's sentence.
      const input = {
        currency: str(values.currency),
        source: str(values.source),
        purity: purityOf(values.purity),
        at: instant(values.at),
        reason: str(values.reason),
        dryRun: values['dry-run'] === true,
      } as RetractInput;
      const done = await withStore(databaseUrl, async (s) =>
        outcome(await retractObservation(s, cliActor(), input)),
      );
      const r = done.retraction;
      const series = r.kind === 'rates' ? `${r.code} ${r.source}` : `gold ${r.code}`;
      const latest = done.latest
        ? `${done.latest.updatedAt}: buy ${done.latest.buy}, sell ${done.latest.sell}`
        : 'none (no observation left)';
      out.result(
        done,
        done.dryRun
          ? [
              `dry run, nothing changed: would retract ${series} at ${r.updatedAt} (buy ${r.buy}, sell ${r.sell})`,
              `latest ${series} would become ${latest}`,
            ]
          : [
              `retracted ${series} at ${r.updatedAt} (buy ${r.buy}, sell ${r.sell}): ${r.id}`,
              `latest ${series} is now ${latest}`,
            ],
      );
    },
  },
];
