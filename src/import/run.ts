/**
 * `mds import`: reads the input (a file or standard input), parses and checks
 * all of it, then writes it in one transaction. All or nothing: a problem in
 * any record, or a store that refuses the write, leaves the store as it was.
 */
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import type { ImportMeta, ImportOutcome } from '../storage/import-records.js';
import { newImportId } from '../storage/import-records.js';
import { DEFAULT_DATABASE, describeStore, openStore } from '../storage/open.js';
import type { ImportBatch, Store } from '../storage/store.js';
import type { ImportFormat } from './detect.js';
import { checkChanges, checkDirectory, checkSpreads, DEFAULT_MAX_CHANGE_PERCENT } from './guards.js';
import { ImportError } from './import-error.js';
import { type ImportInput, openInput } from './input.js';
import type { ParseOptions, SkippedSheet } from './parse.js';
import type { ImportKind, ImportProblem } from './records.js';
import { importNotes, refusal } from './report.js';
import { toBeWritten } from './retracted.js';

export { ImportError } from './import-error.js';

/** How an import reports its progress (the CLI draws it on a terminal). */
export interface Progress {
  step(text: string): void;
  count(done: number, total: number): void;
  done(): void;
}

/** How an import is checked and recorded (decisions 51). */
export interface ImportChecks {
  /** The largest change from the previous observation of a series, in percent. */
  maxChangePercent: number;
  /** The file was reviewed: the guards' findings are counted, not refused. */
  acceptOutliers: boolean;
  dryRun: boolean;
  /** Who runs it: `cli:<user>` or an admin token's id. */
  actor: string;
  /** The file's base name, or `stdin`. */
  sourceName: string | null;
  /** Records of retracted observations are written again (docs/decisions.md, 105). */
  reinstate?: boolean;
}

/** What the guards found and, with --accept-outliers, let through; the rows repeated, and what was ignored. */
export interface ImportReport extends ImportOutcome, ReturnType<typeof importNotes> {
  outliers: ImportProblem[];
  /** A workbook's sheets not read, and why (official-boa.ts). */
  skippedSheets?: SkippedSheet[];
  /** A workbook's rates rounded to 6 decimals, when any were (official-boa.ts). */
  roundedRates?: number;
}

/**
 * All or nothing: the whole input is parsed and checked before the store is
 * touched (records, the asset directory, the plausibility guards), then
 * written in one transaction with its record and revisions. Every problem is
 * reported.
 */
async function importInput(
  store: Store,
  kind: ImportKind,
  input: ImportInput,
  checks: ImportChecks,
  progress?: Progress,
): Promise<ImportReport> {
  progress?.step(`checking ${input.format} input (${(input.bytes / 1e6).toFixed(1)} MB)`);
  const parsed = await input.parse(kind, store);
  progress?.step(
    `${parsed.records.length.toLocaleString('en')} valid records, ${parsed.problems.length} problems`,
  );
  const problems = [...parsed.problems];
  // Every problem in one pass: invalid records are checked for what they hold too (their partials).
  // A loop, not push(...list): a list of 300,000 would overflow the call's arguments.
  if (parsed.kind === 'rates') {
    for (const p of await checkDirectory(store, parsed.records, parsed.lines, parsed.partials))
      problems.push(p);
  }
  let outliers: ImportProblem[] = [];
  if (parsed.kind !== 'assets') {
    progress?.step('comparing with the stored observations');
    const { batch, lines } = await toBeWritten(store, parsed, parsed.lines, checks.reinstate === true);
    outliers = [
      ...checkSpreads(batch, lines, parsed.partials),
      ...(batch.records.length > 0 ? await checkChanges(store, batch, lines, checks.maxChangePercent) : []),
    ].sort((a, b) => a.line - b.line);
    if (!checks.acceptOutliers) for (const p of outliers) problems.push(p);
  }
  if (problems.length > 0) {
    const written = checks.dryRun ? 'a real import would write nothing' : 'nothing was written';
    throw new ImportError(
      `import refused: ${problems.length} problem(s), ${written}`,
      refusal(parsed, problems),
    );
  }
  progress?.step(checks.dryRun ? 'writing, then rolling back (dry run)' : 'writing');
  const meta: ImportMeta = {
    id: newImportId(),
    actor: checks.actor,
    sourceName: checks.sourceName,
    format: input.format,
    acceptedOutliers: checks.acceptOutliers,
    outliers: outliers.length,
    maxChangePercent: parsed.kind === 'assets' ? null : checks.maxChangePercent,
  };
  const outcome = await store.imports.import(parsed as ImportBatch, {
    onProgress: progress?.count,
    meta,
    dryRun: checks.dryRun,
    reinstate: checks.reinstate,
  });
  progress?.done();
  const { skippedSheets, roundedRates } = parsed;
  return {
    ...outcome,
    outliers,
    ...importNotes(parsed),
    ...(skippedSheets ? { skippedSheets } : {}),
    ...(roundedRates ? { roundedRates } : {}),
  };
}

/** `runImport` of a file into an open store: the admin API's body, on its thread (import/thread.ts). */
export function importFile(
  store: Store,
  kind: ImportKind,
  file: string,
  format: ImportFormat,
  checks: ImportChecks,
  options: ParseOptions = {},
) {
  const input = openInput(file, format, options);
  return importInput(store, kind, input, checks).finally(() => input.close());
}

/**
 * Store failures an operator can act on, as a clear error. The import is one
 * transaction (or failed before it began), so nothing was written.
 */
function storeFailure(err: unknown, url: string | undefined): ImportError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const reason = code.startsWith('SQLITE_READONLY')
    ? 'the store is read-only (check the permissions of the file and its directory)'
    : code === 'SQLITE_CANTOPEN'
      ? 'the store cannot be opened for writing (check that the file and its directory exist and are writable)'
      : code === 'SQLITE_FULL'
        ? 'the disk holding the store is full'
        : code.startsWith('SQLITE_IOERR')
          ? 'the store had an I/O error'
          : null;
  if (!reason) return null;
  const where = describeStore(url ?? DEFAULT_DATABASE);
  return new ImportError(
    `import failed: ${reason}; nothing was imported (${where}: ${(err as Error).message})`,
  );
}

export interface ImportOptions {
  kind: ImportKind;
  /** A path, or `-` for standard input. */
  file: string;
  /** Detected from the file name or the content when not given. */
  format?: ImportFormat;
  /** The store (migrated first); the embedded default when not given. */
  databaseUrl?: string;
  progress?: Progress;
  /** Percent; DEFAULT_MAX_CHANGE_PERCENT when not given. */
  maxChangePercent?: number;
  acceptOutliers?: boolean;
  dryRun?: boolean;
  reinstate?: boolean;
  /** `cli:<user>` when not given. */
  actor?: string;
  /** A CSV file's delimiter; found from its header row when not given (docs/decisions.md 52). */
  delimiter?: ParseOptions['delimiter'];
  /** The IANA zone local times are read in; without it they are refused (docs/decisions.md 52). */
  timezone?: string;
  /** How `28/11/2026 09:30` is read; without it such dates are refused (docs/decisions.md 94). */
  dateOrder?: ParseOptions['dateOrder'];
}

/** The operating-system user running the CLI, for the import's record. */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** Imports a file into the store; an `ImportError` when nothing was written for a reason the operator can act on. */
export async function runImport(o: ImportOptions): Promise<ImportReport> {
  let input: ImportInput;
  try {
    input = openInput(o.file, o.format, {
      delimiter: o.delimiter,
      timezone: o.timezone,
      dateOrder: o.dateOrder,
    });
  } catch (err) {
    throw new ImportError(`cannot read ${o.file}: ${(err as Error).message}`);
  }
  try {
    const store = openStore(o.databaseUrl);
    try {
      await store.migrate();
      const checks: ImportChecks = {
        maxChangePercent: o.maxChangePercent ?? DEFAULT_MAX_CHANGE_PERCENT,
        acceptOutliers: o.acceptOutliers ?? false,
        dryRun: o.dryRun ?? false,
        actor: o.actor ?? cliActor(),
        sourceName: o.file === '-' ? 'stdin' : basename(o.file),
        reinstate: o.reinstate,
      };
      return await importInput(store, o.kind, input, checks, o.progress);
    } finally {
      await store.close();
    }
  } catch (err) {
    throw storeFailure(err, o.databaseUrl) ?? err;
  } finally {
    input.close();
  }
}
