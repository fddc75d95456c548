/** `mds imports list` and `mds revisions`: what imports wrote and what their corrections replaced (decisions 51). */

import { SOURCES, type Source } from '../../domain/types.js';
import { parseTimestamp } from '../../import/timestamps.js';
import type { RevisionQuery } from '../../storage/import-records.js';
import type { Command } from '../command.js';
import { CliError, retractionDoc, retractionLine, revisionDoc, revisionLine, table } from '../output.js';
import { withStore } from '../with-store.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_LIMIT) {
    throw new CliError(`--limit: "${text.slice(0, 40)}" must be a whole number from 1 to ${MAX_LIMIT}`, 2);
  }
  return n;
}

const iso = (ms: number) => new Date(ms).toISOString();

export const importsCommands: Command[] = [
  {
    name: ['imports', 'list'],
    usage: 'imports list [--limit N]',
    options: { limit: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const limit = limitOf(values.limit as string | undefined);
      const records = await withStore(databaseUrl, (s) => s.imports.listImports(limit));
      const docs = records.map((r) => ({ ...r, createdAt: iso(r.createdAt) }));
      out.result(
        { imports: docs },
        table(
          ['ID', 'AT', 'KIND', 'FILE', 'BY', 'RECEIVED', 'INSERTED', 'UPDATED', 'UNCHANGED', 'OUTLIERS'],
          docs.map((r) => [
            r.id,
            r.createdAt,
            r.kind,
            r.sourceName ?? '-',
            r.actor,
            String(r.received),
            String(r.inserted),
            String(r.updated),
            String(r.unchanged),
            r.acceptedOutliers ? `${r.outliers} accepted` : '-',
          ]),
        ),
      );
    },
  },
  {
    name: ['revisions'],
    usage: 'revisions [--currency C] [--source parallel|official|transfer|gold] [--since ISO] [--limit N]',
    options: {
      currency: { type: 'string' },
      source: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
    },
    async run({ values, out, databaseUrl }) {
      const query: RevisionQuery = { limit: limitOf(values.limit as string | undefined) };
      const currency = values.currency as string | undefined;
      if (currency !== undefined) {
        if (!/^[A-Z0-9]{2,10}$/.test(currency)) {
          throw new CliError(
            `--currency: "${currency.slice(0, 40)}" is not an asset code; write one such as EUR (upper case)`,
            2,
          );
        }
        query.kind = 'rates';
        query.code = currency;
      }
      const source = values.source as string | undefined;
      if (source !== undefined) {
        if (source !== 'gold' && !SOURCES.includes(source as Source)) {
          throw new CliError(
            `--source: "${source.slice(0, 40)}" must be one of ${[...SOURCES, 'gold'].join(', ')}`,
            2,
          );
        }
        if (source === 'gold' && currency !== undefined) {
          throw new CliError('--source gold lists gold revisions: leave out --currency', 2);
        }
        query.source = source as Source | 'gold';
      }
      const since = values.since as string | undefined;
      if (since !== undefined) {
        const at = parseTimestamp(since, Number.MAX_SAFE_INTEGER);
        if (typeof at !== 'number') {
          throw new CliError(`--since: "${since.slice(0, 40)}" ${at}`, 2);
        }
        query.since = at;
      }
      const [revisions, retractions] = await withStore(databaseUrl, (s) =>
        Promise.all([s.imports.listRevisions(query), s.imports.listRetractions(query)]),
      );
      // Corrections and retractions (docs/decisions.md, 105), newest first.
      const lines = [
        ...revisions.map((r) => ({
          at: r.revisedAt,
          text: `${iso(r.revisedAt)}  ${r.importId}  ${revisionLine(r)}`,
        })),
        ...retractions.map((r) => ({
          at: r.retractedAt,
          text: `${iso(r.retractedAt)}  ${r.id}  ${retractionLine(r)}`,
        })),
      ].sort((a, b) => b.at - a.at);
      out.result(
        { revisions: revisions.map(revisionDoc), retractions: retractions.map(retractionDoc) },
        lines.length === 0 ? 'no revisions' : lines.map((l) => l.text),
      );
    },
  },
];
