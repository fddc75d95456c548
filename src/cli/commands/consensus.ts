/**
 * `mds consensus explain` and `mds consensus verify`: thin commands over
 * src/use-cases/consensus.ts (docs/decisions.md 112, 113). Verify uses the
 * consensus settings of the environment, MDS_CONSENSUS_WINDOW and
 * MDS_CONSENSUS_QUORUM, as `mds serve` does: run it with the server's.
 */
import { readConsensusSettings } from '../../config.js';
import type { ExplainQuery } from '../../schemas/admin-consensus.js';
import { explainPoint, verifyPoints } from '../../use-cases/consensus.js';
import type { Command } from '../command.js';
import { cliActor, outcome, str } from '../operation.js';
import { CliError, table } from '../output.js';
import { withStore } from '../with-store.js';

const money = (v: number) => v.toFixed(4).replace(/\.?0+$/, '');

export const consensusCommands: Command[] = [
  {
    name: ['consensus', 'explain'],
    usage: 'consensus explain (--currency EUR | --purity 21K) [--at ISO]   (default: the latest point)',
    options: { currency: { type: 'string' }, purity: { type: 'string' }, at: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const input = {
        currency: str(values.currency),
        purity: str(values.purity),
        at: str(values.at),
      } as ExplainQuery;
      const e = await withStore(databaseUrl, async (s) => outcome(await explainPoint(s, cliActor(), input)));
      const q = e.quality;
      const excluded = e.organisations.filter((o) => o.excluded !== null);
      out.result(e, [
        `${e.market} at ${e.at} (method version ${e.methodVersion}): buy ${money(e.buy)}, sell ${money(e.sell)}`,
        `quality: ${q.organisations} organisations, ${q.reporters} reporters, ${q.excluded} excluded, ` +
          `dispersion ${q.dispersionPercent ?? '-'} %, confidence ${q.confidence}`,
        '',
        ...table(
          ['QUOTE', 'REPORTER', 'ORGANISATION', 'BUY', 'SELL', 'OBSERVED', 'AGE', 'USED'],
          e.quotes.map((x) => [
            x.id,
            x.reporterId,
            x.organisation ?? x.organisationId,
            money(x.buy),
            money(x.sell),
            x.observedAt,
            `${Math.round(x.ageSeconds / 60)} min`,
            x.used ? 'yes' : `no (${x.excluded})`,
          ]),
        ),
        ...excluded.flatMap((o) => ['', `${o.organisation ?? o.organisationId} excluded: ${o.reason}.`]),
      ]);
    },
  },
  {
    name: ['consensus', 'verify'],
    usage:
      'consensus verify [--since ISO]   (exit code 1 when a point does not recompute to what was published)',
    options: { since: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const settings = readConsensusSettings(process.env);
      const input = { since: str(values.since) };
      const v = await withStore(databaseUrl, async (s) =>
        outcome(await verifyPoints(s, cliActor(), input, settings)),
      );
      const scope = v.since ? `since ${v.since}` : 'ever published';
      if (v.differences.length === 0) {
        out.result(v, `${v.checked} points ${scope} recomputed: no difference`);
        return;
      }
      const lines = table(
        ['MARKET', 'AT', 'FIELD', 'STORED', 'RECOMPUTED'],
        v.differences.map((d) => [d.market, d.at, d.field, d.stored, d.recomputed]),
      );
      throw new CliError(`${v.differences.length} differences in ${v.checked} points ${scope}`, 1, {
        text: lines,
        json: v as unknown as Record<string, unknown>,
      });
    },
  },
];
