/**
 * `mds import`: reads the input (a file or standard input), parses and checks
 * all of it, then writes it in one transaction. All or nothing: a problem in
 * any record, or a store that refuses the write, leaves the store as it was.
 *
 * Longer than 300 lines because it is one import's whole path in the order it
 * runs (reading, checking, writing, the store's failures as sentences).
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import type { ImportRefusal } from '../schemas/import-report.js';
import type { ImportMeta, ImportOutcome } from '../storage/import-records.js';
import { newImportId } from '../storage/import-records.js';
import { DEFAULT_DATABASE, describeStore, openStore } from '../storage/open.js';
import type { ImportBatch, Store } from '../storage/store.js';
import { detectFormat, type ImportFormat } from './detect.js';
import { checkChanges, checkDirectory, checkSpreads, DEFAULT_MAX_CHANGE_PERCENT } from './guards.js';
import { type ParseOptions, type ParseResult, parseImport, parseNdjsonPieces } from './parse.js';
import type { ImportKind, ImportProblem } from './records.js';
import { importNotes, refusal } from './report.js';
import { toBeWritten } from './retracted.js';

/** An import that did not happen: nothing was written. `report` lists a refused input's problems (report.ts). */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly report?: ImportRefusal,
  ) {
    super(message);
  }
}

/** How an import reports its progress (the CLI draws it on a terminal). */
export interface Progress {
  step(text: string): void;
  count(done: number, total: number): void;
  done(): void;
}

/**
 * The input as text. An all-ASCII file (the usual export) is copied byte for
 * byte, which is the same string as decoding it as UTF-8 at a third of the
 * cost (100 MB: 0.3 s); anything else is decoded as UTF-8.
 */
function decode(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Bytes read at a time from an NDJSON file: small enough to stay in memory already touched. */
const PIECE_BYTES = 64 * 1024;
const LF = 0x0a;

/**
 * An import's input: its format, its size, and how to parse it. NDJSON from a
 * file is read in pieces that end at line ends (a line end is never inside a
 * UTF-8 sequence), so the file is never whole in memory, as bytes or as text
 * (parse.ts, parseNdjsonPieces: why). Standard input, JSON arrays and CSV
 * (whose quoted fields may span lines) are read whole.
 */
interface ImportInput {
  format: ImportFormat;
  bytes: number;
  parse(kind: ImportKind): ParseResult;
  /** Releases the file. */
  close(): void;
}

function openInput(file: string, given: ImportFormat | undefined, options: ParseOptions): ImportInput {
  const whole = (bytes: Buffer): ImportInput => {
    const text = decode(bytes);
    const format = given ?? detectFormat(text, file === '-' ? undefined : file);
    return {
      format,
      bytes: bytes.length,
      parse: (kind) => parseImport(kind, text, format, options),
      close() {},
    };
  };
  if (file === '-') return whole(readFileSync(0));
  const fd = openSync(file, 'r');
  try {
    let buf = Buffer.allocUnsafe(PIECE_BYTES);
    let have = readSync(fd, buf, 0, buf.length, null);
    const format = given ?? detectFormat(buf.toString('utf8', 0, have), file);
    if (format !== 'ndjson') {
      closeSync(fd);
      return whole(readFileSync(file));
    }
    const size = fstatSync(fd).size;
    function* pieces(): Generator<string> {
      for (;;) {
        const cut = buf.lastIndexOf(LF, have - 1);
        if (have > 0 && cut !== -1) {
          yield decode(buf.subarray(0, cut + 1));
          buf.copy(buf, 0, cut + 1, have);
          have -= cut + 1;
        }
        // A line longer than the buffer: room for more of it.
        if (have === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, have);
          buf = bigger;
        }
        let n: number;
        try {
          n = readSync(fd, buf, have, buf.length - have, null);
        } catch (err) {
          throw new ImportError(`cannot read ${file}: ${(err as Error).message}`);
        }
        if (n === 0) break;
        have += n;
      }
      if (have > 0) yield decode(buf.subarray(0, have));
    }
    return {
      format,
      bytes: size,
      parse: (kind) => parseNdjsonPieces(kind, pieces(), options),
      close: () => closeSync(fd),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
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
  const parsed = input.parse(kind);
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
  return { ...outcome, outliers, ...importNotes(parsed) };
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
