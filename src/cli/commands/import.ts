import { FORMATS, type ImportFormat, parseDelimiter } from '../../import/detect.js';
import type { ImportKind } from '../../import/records.js';
import type { ImportOptions } from '../../import/run.js';
import { DATE_ORDERS, type DateOrder, timeZoneProblem } from '../../import/timestamps.js';
import type { Command } from '../command.js';
import { CliError, type Output, retractedLines, revisionDoc, revisionLine, summaryLine } from '../output.js';
import { applyPriority, parsePriority } from '../priority.js';
import { terminalProgress } from '../progress.js';

const KINDS: readonly ImportKind[] = ['assets', 'rates', 'gold'];

export const importCommand: Command = {
  name: ['import'],
  usage:
    'import assets|rates|gold <file|-> [--format ndjson|csv|json] [--dry-run] [--max-change <percent>] [--accept-outliers] [--reinstate] [--delimiter ,|;|tab] [--timezone <IANA zone>] [--date-order dmy|mdy] [--priority low|normal]',
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
    const [kind, file] = positionals as [string, string];
    if (!KINDS.includes(kind as ImportKind))
      throw new CliError(`import: kind must be one of ${KINDS.join(', ')}`, 2);
    const format = values.format as string | undefined;
    if (format !== undefined && !FORMATS.includes(format as ImportFormat)) {
      throw new CliError(`--format: must be one of ${FORMATS.join(', ')}`, 2);
    }
    const maxChangePercent = maxChangeOf(values['max-change'] as string | undefined);
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
    const dryRun = startImport(values, out);
    await importAndPrint(out, {
      kind: kind as ImportKind,
      file,
      format: format as ImportFormat | undefined,
      databaseUrl,
      maxChangePercent,
      acceptOutliers: values['accept-outliers'] === true,
      dryRun,
      reinstate: values.reinstate === true,
      delimiter,
      timezone,
      dateOrder: dateOrder as DateOrder | undefined,
    });
  },
};

/**
 * `mds import official-boa`: the Bank of Algeria's workbook of official
 * rates, read as `mds import rates <file.xlsx>` (docs/decisions.md 140).
 */
export const officialBoaCommand: Command = {
  name: ['import', 'official-boa'],
  usage:
    'import official-boa <file.xlsx|-> [--dry-run] [--max-change <percent>] [--accept-outliers] [--reinstate] [--priority low|normal]',
  options: {
    'dry-run': { type: 'boolean' },
    'max-change': { type: 'string' },
    'accept-outliers': { type: 'boolean' },
    reinstate: { type: 'boolean' },
    priority: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run({ values, positionals, out, databaseUrl }) {
    const maxChangePercent = maxChangeOf(values['max-change'] as string | undefined);
    const dryRun = startImport(values, out);
    await importAndPrint(out, {
      kind: 'rates',
      file: positionals[0] as string,
      format: 'xlsx',
      databaseUrl,
      maxChangePercent,
      acceptOutliers: values['accept-outliers'] === true,
      dryRun,
      reinstate: values.reinstate === true,
    });
  },
};

/** `--max-change` as a percent, or undefined for the default. */
function maxChangeOf(maxChange: string | undefined): number | undefined {
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
  return maxChangePercent;
}

/** `--priority` applied before anything is read or written; whether it is a dry run. */
function startImport(values: Record<string, unknown>, out: Output): boolean {
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
  return values['dry-run'] === true;
}

/** Runs the import and prints its report (text or `--json`); a refused import is a CliError with its report. */
async function importAndPrint(out: Output, options: Omit<ImportOptions, 'progress'>): Promise<void> {
  const { dryRun = false } = options;
  const started = performance.now();
  // Loaded here: the parsers and the compiled record rules are for this command only.
  const { ImportError, runImport } = await import('../../import/run.js');
  const { notesLines, refusalLines } = await import('../../import/report.js');
  const summary = await runImport({
    ...options,
    progress: terminalProgress(!out.json),
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
    roundedRates,
    ...counts
  } = summary;
  // What a file held besides its records, when it held any (docs/decisions.md 94).
  const notes = {
    ...(duplicateRows.count > 0 ? { duplicateRows } : {}),
    ...(emptyRows > 0 ? { emptyRows } : {}),
    ...(emptyColumns > 0 ? { emptyColumns } : {}),
    ...(skippedSheets ? { skippedSheets } : {}),
    ...(roundedRates ? { roundedRates } : {}),
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
      ...(roundedRates ? [`  ${roundedRates} rate(s) rounded to 6 decimal places`] : []),
    ],
  );
}
