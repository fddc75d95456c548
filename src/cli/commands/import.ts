import { FORMATS, type ImportFormat, parseDelimiter } from '../../import/detect.js';
import type { ImportKind } from '../../import/records.js';
import { DATE_ORDERS, type DateOrder, timeZoneProblem } from '../../import/timestamps.js';
import type { Command } from '../command.js';
import { CliError, retractedLines, revisionDoc, revisionLine, summaryLine } from '../output.js';
import { applyPriority, parsePriority } from '../priority.js';
import { terminalProgress } from '../progress.js';

/** `official-boa`: the Bank of Algeria's workbook, official rates (docs/decisions.md 140). */
const KINDS: readonly string[] = ['assets', 'rates', 'gold', 'official-boa'];

export const importCommand: Command = {
  name: ['import'],
  usage:
    'import assets|rates|gold|official-boa <file|-> [--format ndjson|csv|json|xlsx] [--dry-run] [--max-change <percent>] [--accept-outliers] [--reinstate] [--delimiter ,|;|tab] [--timezone <IANA zone>] [--date-order dmy|mdy] [--priority low|normal]',
  options: {
    format: { type: 'string' },
    'dry-run': { type: 'boolean' },
    'max-change': { type: 'string' },
    'accept-outliers': { type: 'boolean' },
    reinstate: { type: 'boolean' },
    delimiter: { type: 'string' },
    timezone: { type: 'string' },
    'date-order': { type: 'string' },
    priority: { type: 'string' },
  },
  positionals: { min: 2, max: 2 },
  async run({ values, positionals, out, databaseUrl }) {
    const [named, file] = positionals as [string, string];
    if (!KINDS.includes(named)) throw new CliError(`import: kind must be one of ${KINDS.join(', ')}`, 2);
    const workbook = named === 'official-boa';
    const kind: ImportKind = workbook ? 'rates' : (named as ImportKind);
    const format = workbook ? 'xlsx' : (values.format as string | undefined);
    if (format !== undefined && !FORMATS.includes(format as ImportFormat)) {
      throw new CliError(`--format: must be one of ${FORMATS.join(', ')}`, 2);
    }
    if (workbook && values.format !== undefined && values.format !== 'xlsx') {
      throw new CliError('--format: official-boa reads a workbook (xlsx); leave --format out', 2);
    }
    const maxChange = values['max-change'] as string | undefined;
    const maxChangePercent = maxChange === undefined ? undefined : Number(maxChange);
    if (
      maxChange !== undefined &&
      (!/^\d+(\.\d+)?$/.test(maxChange) || !(maxChangePercent! > 0 && maxChangePercent! <= 10_000))
    ) {
      throw new CliError(
        `--max-change: "${maxChange.slice(0, 40)}" is not a percent; write a number above 0 and at most 10000, such as --max-change 35`,
        2,
      );
    }
    // A spreadsheet's CSV (docs/decisions.md 52): its delimiter, and the zone of its local times.
    const delimiterText = values.delimiter as string | undefined;
    const delimiter = delimiterText === undefined ? undefined : parseDelimiter(delimiterText);
    if (delimiter === null) {
      throw new CliError(
        `--delimiter: "${delimiterText!.slice(0, 40)}" is not a delimiter; write , or ; or tab, such as --delimiter ';'`,
        2,
      );
    }
    const timezone = values.timezone as string | undefined;
    const zoneProblem = timezone === undefined ? null : timeZoneProblem(timezone);
    if (zoneProblem !== null) throw new CliError(`--timezone: ${zoneProblem}`, 2);
    const dateOrder = values['date-order'] as string | undefined;
    if (dateOrder !== undefined && !DATE_ORDERS.includes(dateOrder as DateOrder)) {
      throw new CliError(
        `--date-order: "${dateOrder.slice(0, 40)}" is not a date order; write dmy (28/11/2026: day first) or mdy (11/28/2026: month first)`,
        2,
      );
    }
    const priorityText = values.priority as string | undefined;
    const priority = parsePriority(priorityText);
    if (priority === null) {
      throw new CliError(
        `--priority: "${priorityText!.slice(0, 40)}" is not a priority; write low (the default: serving processes on this machine come first) or normal`,
        2,
      );
    }
    // Before anything is read or written: the whole import runs at that priority.
    const refused = applyPriority(priority);
    if (refused !== null) out.note(refused);
    const dryRun = values['dry-run'] === true;
    const started = performance.now();
    // Loaded here: the parsers and the compiled record rules are for this command only.
    const { ImportError, runImport } = await import('../../import/run.js');
    const { notesLines, refusalLines } = await import('../../import/report.js');
    const summary = await runImport({
      kind,
      file,
      format: format as ImportFormat | undefined,
      databaseUrl,
      progress: terminalProgress(!out.json),
      maxChangePercent,
      acceptOutliers: values['accept-outliers'] === true,
      dryRun,
      reinstate: values.reinstate === true,
      delimiter,
      timezone,
      dateOrder: dateOrder as DateOrder | undefined,
    }).catch((err: unknown) => {
      if (!(err instanceof ImportError)) throw err;
      const report = err.report && { text: refusalLines(err.report), json: { report: err.report } };
      throw new CliError(err.message, 1, report);
    });
    const seconds = (performance.now() - started) / 1000;
    const {
      importId,
      revisions,
      outliers,
      dryRun: _,
      duplicateRows,
      emptyRows,
      emptyColumns,
      skippedSheets,
      ...counts
    } = summary;
    // What a file held besides its records, when it held any (docs/decisions.md 94).
    const notes = {
      ...(duplicateRows.count > 0 ? { duplicateRows } : {}),
      ...(emptyRows > 0 ? { emptyRows } : {}),
      ...(emptyColumns > 0 ? { emptyColumns } : {}),
      ...(skippedSheets ? { skippedSheets } : {}),
    };
    const more = summary.updated - revisions.length;
    out.result(
      {
        ...counts,
        seconds: Math.round(seconds * 1000) / 1000,
        importId: dryRun ? null : importId,
        dryRun,
        revisions: revisions.map(revisionDoc),
        revisionsNotShown: more,
        acceptedOutliers: outliers.map(({ line, message }) => ({ line, message })),
        ...notes,
      },
      [
        `${dryRun ? 'dry run, nothing written: ' : ''}${summaryLine(summary)} in ${seconds.toFixed(2)} s${dryRun ? '' : ` (import ${importId})`}`,
        ...revisions.map((r) => `  updated ${revisionLine(r)}`),
        ...(more > 0 ? [`  … and ${more} more updated`] : []),
        ...retractedLines(summary),
        ...(outliers.length > 0
          ? [
              `  accepted ${outliers.length} outlier(s) (--accept-outliers):`,
              ...outliers.map((p) => `    line ${p.line}: ${p.message}`),
            ]
          : []),
        ...notesLines(summary).map((line) => `  ${line}`),
        ...(skippedSheets ?? []).map((s) => `  skipped sheet "${s.sheet}": ${s.reason}`),
      ],
    );
  },
};
