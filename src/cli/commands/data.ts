import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ImportSummary } from '../../domain/types.js';
import { detectFormat, type ImportFormat } from '../../import/detect.js';
import { type ParseResult, parseImport, parseNdjsonPieces } from '../../import/parse.js';
import type { ImportKind } from '../../import/records.js';
import { generateSample, SAMPLE_NOTICE } from '../../sample/generate.js';
import { DEFAULT_DATABASE, describeStore, openStore } from '../../storage/open.js';
import type { ImportBatch, Store } from '../../storage/store.js';
import type { Command } from '../main.js';
import { CliError } from '../output.js';

const KINDS: readonly ImportKind[] = ['assets', 'rates', 'gold'];
const FORMATS: readonly ImportFormat[] = ['ndjson', 'csv', 'json'];

/**
 * The input as text. An all-ASCII file (the usual export) is copied byte for
 * byte, which is the same string as decoding it as UTF-8 at a third of the
 * cost (100 MB: 0.3 s, issue #5); anything else is decoded as UTF-8.
 */
function decode(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

export async function withStore<T>(url: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Store failures an operator can act on, as a clear error. The import is one
 * transaction (or failed before it began), so nothing was written.
 */
function storeFailure(err: unknown, url: string | undefined): CliError | null {
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
  return new CliError(`import failed: ${reason}; nothing was imported (${where}: ${(err as Error).message})`);
}

function summaryLine(s: ImportSummary): string {
  return `${s.kind}: ${s.received} received, ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged`;
}

/** Bytes read at a time from an NDJSON file: small enough to stay in memory already touched. */
const PIECE_BYTES = 64 * 1024;
const LF = 0x0a;

/**
 * An import's input: its format, its size, and how to parse it. NDJSON from a
 * file is read in pieces that end at line ends (a line end is never inside a
 * UTF-8 sequence), so the file is never whole in memory, as bytes or as text
 * (import/parse.ts, parseNdjsonPieces: why). Standard input, JSON arrays and
 * CSV (whose quoted fields may span lines) are read whole.
 */
interface ImportInput {
  format: ImportFormat;
  bytes: number;
  parse(kind: ImportKind): ParseResult;
  /** Releases the file. */
  close(): void;
}

function readInput(file: string, given: ImportFormat | undefined): ImportInput {
  const whole = (bytes: Buffer): ImportInput => {
    const text = decode(bytes);
    const format = given ?? detectFormat(text, file === '-' ? undefined : file);
    return { format, bytes: bytes.length, parse: (kind) => parseImport(kind, text, format), close() {} };
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
          throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
        }
        if (n === 0) break;
        have += n;
      }
      if (have > 0) yield decode(buf.subarray(0, have));
    }
    return {
      format,
      bytes: size,
      parse: (kind) => parseNdjsonPieces(kind, pieces()),
      close: () => closeSync(fd),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * All or nothing: the whole input is parsed and checked before the store is
 * touched, then written in one transaction. Every problem is reported.
 */
async function importInput(
  store: Store,
  kind: ImportKind,
  input: ImportInput,
  progress?: Progress,
): Promise<ImportSummary> {
  progress?.step(`checking ${input.format} input (${(input.bytes / 1e6).toFixed(1)} MB)`);
  const parsed = input.parse(kind);
  progress?.step(
    `${parsed.records.length.toLocaleString('en')} valid records, ${parsed.problems.length} problems`,
  );
  const problems = [...parsed.problems];
  // Every bad record is reported: the valid ones are checked against the directory too.
  if (parsed.kind === 'rates' && parsed.records.length > 0) {
    const unknown = new Set(await store.unknownAssets(parsed.records.map((r) => r.currency)));
    if (unknown.size > 0) {
      parsed.records.forEach((r, i) => {
        if (unknown.has(r.currency)) {
          problems.push({
            line: parsed.lines[i] ?? i + 1,
            message: `currency: ${r.currency} is not in the asset directory (import it with \`mds import assets\` first)`,
          });
        }
      });
      problems.sort((a, b) => a.line - b.line);
    }
  }
  if (problems.length > 0) {
    throw new CliError(`import refused: ${problems.length} problem(s), nothing was written`, 1, problems);
  }
  progress?.step('writing');
  const summary = await store.import(parsed as ImportBatch, { onProgress: progress?.count });
  progress?.done();
  return summary;
}

/** Progress on a terminal (stderr), for large imports; nothing when piped or with --json. */
export interface Progress {
  step(text: string): void;
  count(done: number, total: number): void;
  done(): void;
}

export function terminalProgress(enabled: boolean): Progress | undefined {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const started = performance.now();
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  return {
    step: (text) => process.stderr.write(`\r\x1b[K[${at()}] ${text}\n`),
    count: (done, total) =>
      process.stderr.write(
        `\r\x1b[K[${at()}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.floor((done / total) * 100)} %)`,
      ),
    done: () => process.stderr.write(`\r\x1b[K`),
  };
}

export const dataCommands: Command[] = [
  {
    name: ['migrate'],
    usage: 'migrate',
    async run({ out, databaseUrl }) {
      const store = openStore(databaseUrl);
      try {
        const applied = await store.migrate();
        out.result(
          { applied, store: describeStore(databaseUrl ?? store.dialect) },
          applied.length ? `applied: ${applied.join(', ')}` : 'already up to date',
        );
      } finally {
        await store.close();
      }
    },
  },
  {
    name: ['import'],
    usage: 'import assets|rates|gold <file|-> [--format ndjson|csv|json]',
    options: { format: { type: 'string' } },
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, out, databaseUrl }) {
      const [kind, file] = positionals as [string, string];
      if (!KINDS.includes(kind as ImportKind))
        throw new CliError(`import: kind must be one of ${KINDS.join(', ')}`, 2);
      const format = values.format as string | undefined;
      if (format !== undefined && !FORMATS.includes(format as ImportFormat)) {
        throw new CliError(`--format: must be one of ${FORMATS.join(', ')}`, 2);
      }
      const started = performance.now();
      let input: ImportInput;
      try {
        input = readInput(file, format as ImportFormat | undefined);
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const summary = await withStore(databaseUrl, (store) =>
        importInput(store, kind as ImportKind, input, terminalProgress(!out.json)),
      )
        .catch((err: unknown) => {
          throw storeFailure(err, databaseUrl) ?? err;
        })
        .finally(() => input.close());
      const seconds = (performance.now() - started) / 1000;
      out.result(
        { ...summary, seconds: Math.round(seconds * 1000) / 1000 },
        `${summaryLine(summary)} in ${seconds.toFixed(2)} s`,
      );
    },
  },
  {
    name: ['seed', 'sample'],
    usage: 'seed sample [--end-date YYYY-MM-DD] [--days N]',
    options: { 'end-date': { type: 'string' }, days: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const endDate = (values['end-date'] as string | undefined) ?? new Date().toISOString().slice(0, 10);
      const days = values.days === undefined ? undefined : Number(values.days);
      if (days !== undefined && !Number.isInteger(days))
        throw new CliError('--days: must be a whole number', 2);
      let sample: ReturnType<typeof generateSample>;
      try {
        sample = generateSample({ endDate, days });
      } catch (err) {
        throw new CliError((err as Error).message, 2);
      }
      const summaries = await withStore(databaseUrl, (store) => seedSample(store, sample));
      out.result({ notice: SAMPLE_NOTICE, endDate, summaries }, [
        `${SAMPLE_NOTICE}`,
        ...summaries.map(summaryLine),
      ]);
    },
  },
];

export async function seedSample(
  store: Store,
  sample: ReturnType<typeof generateSample>,
): Promise<ImportSummary[]> {
  const batches: ImportBatch[] = [
    { kind: 'assets', records: sample.assets },
    { kind: 'rates', records: sample.rates },
    { kind: 'gold', records: sample.gold },
  ];
  const out: ImportSummary[] = [];
  for (const b of batches) out.push(await store.import(b));
  return out;
}
