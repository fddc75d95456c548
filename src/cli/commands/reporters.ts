/**
 * Organisations and street-rate reporters: thin commands over the operations
 * (src/use-cases/reporters.ts, docs/decisions.md 108). A reporter's token is
 * printed once, by `reporters create` and `reporters roll`.
 */

import { type ReporterStatisticsView, reporterStatistics } from '../../use-cases/reporter-watch.js';
import {
  createOrganisation,
  createReporter,
  listOrganisations,
  listReporters,
  removeReporter,
  rollReporterToken,
  updateReporter,
} from '../../use-cases/reporters.js';
import type { Command } from '../command.js';
import { cliActor, everything, list, outcome, str, wholeNumber } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const ONCE = 'This is the only time the token is shown: give it to the reporter now.';

type ReporterRow = { id: string; label: string; organisationId: string; markets: string[]; status: string };

const reporterTable = (reporters: (ReporterRow & { flagged?: boolean })[]) => {
  const listed = reporters.some((r) => r.flagged !== undefined);
  return table(
    ['ID', 'LABEL', 'ORGANISATION', 'MARKETS', 'STATUS', ...(listed ? ['FLAGGED'] : [])],
    reporters.map((r) => [
      r.id,
      r.label,
      r.organisationId,
      r.markets.join(','),
      r.status,
      ...(listed ? [r.flagged ? 'yes' : ''] : []),
    ]),
  );
};

const percent = (v: number | null) => (v === null ? '-' : `${v.toFixed(2)}%`);
const statisticsTable = (stats: ReporterStatisticsView[]) =>
  table(
    [
      'ID',
      'ORGANISATION',
      'STATUS',
      'QUOTES',
      'JUDGED',
      'FAILED',
      'FAILED %',
      'MEDIAN DEVIATION',
      'LAST 20',
      'FLAGGED',
    ],
    stats.map((s) => [
      s.reporterId,
      s.organisationId,
      s.status,
      String(s.quotes),
      String(s.judged),
      String(s.failed),
      percent(s.failedPercent),
      percent(s.medianDeviationPercent),
      `${s.lastQuotes.failed}/${s.lastQuotes.sample} failed`,
      s.flagged ? 'yes' : '',
    ]),
  );

/** `suspend`, `activate` and `remove` are one change of status each. */
const statusCommand = (
  verb: 'suspend' | 'activate' | 'remove',
  status: 'suspended' | 'active' | null,
): Command => ({
  name: ['reporters', verb],
  usage: `reporters ${verb} ID`,
  positionals: { min: 1, max: 1 },
  async run({ positionals, out, databaseUrl }) {
    const id = positionals[0]!;
    const reporter = await withStore(databaseUrl, async (s) =>
      outcome(
        status === null
          ? await removeReporter(s, cliActor(), { id })
          : await updateReporter(s, cliActor(), { id, status }),
      ),
    );
    out.result({ reporter }, `${reporter.id}: ${reporter.status}`);
  },
});

export const reporterCommands: Command[] = [
  {
    name: ['organisations', 'create'],
    usage: 'organisations create --name N',
    options: { name: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const organisation = await withStore(databaseUrl, async (s) =>
        outcome(await createOrganisation(s, cliActor(), { name: str(values.name)! })),
      );
      out.result({ organisation }, organisation.id);
    },
  },
  {
    name: ['organisations', 'list'],
    usage: 'organisations list',
    async run({ out, databaseUrl }) {
      const organisations = await withStore(databaseUrl, (s) =>
        everything((cursor) => listOrganisations(s, cliActor(), { cursor, limit: 1000 })),
      );
      out.result(
        { organisations },
        table(
          ['ID', 'NAME', 'CREATED'],
          organisations.map((o) => [o.id, o.name, o.createdAt]),
        ),
      );
    },
  },
  {
    name: ['reporters', 'create'],
    usage: 'reporters create --organisation ID --label L --markets EUR,USD,21K',
    options: { organisation: { type: 'string' }, label: { type: 'string' }, markets: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const input = {
        organisationId: str(values.organisation)!,
        label: str(values.label)!,
        markets: list(values.markets)!,
      };
      const created = await withStore(databaseUrl, async (s) =>
        outcome(await createReporter(s, cliActor(), input)),
      );
      out.result(created, [created.token, '', ONCE, `The reporter's pseudonym: ${created.reporter.id}`]);
    },
  },
  {
    name: ['reporters', 'list'],
    usage: 'reporters list [--organisation ID]',
    options: { organisation: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const organisationId = str(values.organisation);
      const reporters = await withStore(databaseUrl, (s) =>
        everything((cursor) =>
          listReporters(s, cliActor(), {
            cursor,
            limit: 1000,
            ...(organisationId ? { organisationId } : {}),
          }),
        ),
      );
      out.result({ reporters }, reporterTable(reporters));
    },
  },
  {
    name: ['reporters', 'stats'],
    usage:
      'reporters stats [ID]   (the last 30 days: quotes, failed on their own, median deviation, flagged)',
    positionals: { min: 0, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const id = positionals[0];
      const stats = await withStore(databaseUrl, async (s) => {
        const ids =
          id === undefined
            ? (await everything((cursor) => listReporters(s, cliActor(), { cursor, limit: 1000 }))).map(
                (r) => r.id,
              )
            : [id];
        // One instant for every reporter's period.
        const now = Date.now();
        const views: ReporterStatisticsView[] = [];
        for (const each of ids)
          views.push(outcome(await reporterStatistics(s, cliActor(), { id: each }, { now })));
        return views;
      });
      out.result(id === undefined ? { reporters: stats } : { statistics: stats[0] }, statisticsTable(stats));
    },
  },
  {
    name: ['reporters', 'update'],
    usage: 'reporters update ID [--label L] [--organisation ID] [--markets EUR,USD]',
    options: { label: { type: 'string' }, organisation: { type: 'string' }, markets: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const input = {
        id: positionals[0]!,
        label: str(values.label),
        organisationId: str(values.organisation),
        markets: list(values.markets),
      };
      const reporter = await withStore(databaseUrl, async (s) =>
        outcome(await updateReporter(s, cliActor(), input)),
      );
      out.result({ reporter }, reporterTable([reporter]));
    },
  },
  statusCommand('suspend', 'suspended'),
  statusCommand('activate', 'active'),
  statusCommand('remove', null),
  {
    name: ['reporters', 'roll'],
    usage: 'reporters roll ID [--grace-period SECONDS]   (default 86400: the old token works one more day)',
    options: { 'grace-period': { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const input = { id: positionals[0]!, gracePeriodSeconds: wholeNumber(values['grace-period']) };
      const rolled = await withStore(databaseUrl, async (s) =>
        outcome(await rollReporterToken(s, cliActor(), input)),
      );
      out.result(rolled, [
        rolled.token,
        '',
        ONCE,
        `The previous token works until ${rolled.previousExpiresAt}.`,
      ]);
    },
  },
];
