/**
 * CSV (RFC 4180), read with csv-parse. A header row names the columns (any
 * order, exactly the listed ones); assets spread `names` over name_en,
 * name_fr and name_ar. Lines end with LF or CRLF; blank lines are skipped.
 * The fields are separated by `,`, or by `;` or a tab as spreadsheets write
 * them in some locales: the header row tells which, unless the operator said
 * (docs/decisions.md 52).
 *
 * A malformed row is reported with the line where it starts and skipped: the
 * reading starts again on the line after the fault. An unterminated quoted
 * field ends the reading.
 *
 * What spreadsheets add is ignored and counted (docs/decisions.md 94): rows
 * of empty cells (`;;;;`) and blank lines, and columns after the named ones
 * whose header is empty (their cells must be empty too).
 */
import { CsvError, type InfoRecord, type Options, parse } from 'csv-parse/sync';
import { forbiddenCharacters } from '../schemas/admin-check.js';
import type { RecordInput } from './collect.js';
import type { Delimiter } from './detect.js';
import { echo, type ImportKind } from './records.js';

const COLUMNS: Record<ImportKind, readonly string[]> = {
  assets: ['code', 'symbol', 'type', 'name_en', 'name_fr', 'name_ar'],
  rates: ['currency', 'source', 'buy', 'sell', 'updatedAt'],
  gold: ['purity', 'buy', 'sell', 'updatedAt'],
};

/** The column of a record field in messages: `names.en` is `name_en`. */
export function csvLabel(path: string): string {
  return path.startsWith('names.') ? `name_${path.slice('names.'.length)}` : path;
}

/** A JSON-shaped record from a row, given the index of each expected column in the header. */
function builder(kind: ImportKind, idx: number[]): (f: string[]) => Record<string, unknown> {
  if (kind === 'assets') {
    const [code, symbol, type, en, fr, ar] = idx as [number, number, number, number, number, number];
    return (f) => ({
      code: f[code],
      symbol: f[symbol],
      type: f[type],
      names: { en: f[en], fr: f[fr], ar: f[ar] },
    });
  }
  if (kind === 'rates') {
    const [currency, source, buy, sell, updatedAt] = idx as [number, number, number, number, number];
    return (f) => ({
      currency: f[currency],
      source: f[source],
      buy: f[buy],
      sell: f[sell],
      updatedAt: f[updatedAt],
    });
  }
  const [purity, buy, sell, updatedAt] = idx as [number, number, number, number];
  return (f) => ({ purity: f[purity], buy: f[buy], sell: f[sell], updatedAt: f[updatedAt] });
}

/** Thrown from a row to stop csv-parse. */
const STOP = new Error('stop');

const OPTIONS: Options = { record_delimiter: ['\r\n', '\n'], relax_column_count: true };
const OPTIONS_BY_DELIMITER: Record<Delimiter, Options> = {
  ',': OPTIONS,
  ';': { ...OPTIONS, delimiter: ';' },
  '\t': { ...OPTIONS, delimiter: '\t' },
};

/** The names of a header row split at `delimiter`, without spaces or quotes around them. */
function headerNames(row: string, delimiter: Delimiter): string[] {
  return row.split(delimiter).map((f) => {
    const name = f.trim();
    return name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name;
  });
}

/**
 * The delimiter of a file, from its header row (its first non-blank line):
 * the one that splits it into the expected columns; else `;` or a tab when
 * the row holds one and no comma (its header problems then name the columns
 * as split); else `,`. Values are not looked at: a decimal comma in a row
 * would tell nothing sure.
 */
function detectDelimiter(text: string, start: number, expected: readonly string[]): Delimiter {
  let pos = start;
  let row = '';
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = text.length;
    row = text.slice(pos, eol);
    if (!/^[\s,;]*$/.test(row)) break; // a blank line, or a row of empty cells

    pos = eol + 1;
  }
  const candidates: Delimiter[] = [',', ';', '\t'];
  for (const d of candidates) {
    const names = headerNames(row, d);
    while (names.at(-1) === '') names.pop(); // empty columns after the named ones
    if (names.length === expected.length && expected.every((name) => names.includes(name))) return d;
  }
  if (row.includes(',')) return ',';
  if (row.includes(';')) return ';';
  return row.includes('\t') ? '\t' : ',';
}
const LF = 10;
/** Whole lines handed to csv-parse at a time: its rows are read in batches, never all at once. */
const CHUNK_BYTES = 1 << 20;

/** Line ends inside the fields of a row (quoted fields may span lines). */
function lineEndsIn(fields: string[]): number {
  let n = 0;
  for (const f of fields) for (let i = f.indexOf('\n'); i !== -1; i = f.indexOf('\n', i + 1)) n++;
  return n;
}

function countLines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(LF, from); i !== -1 && i < to; i = bytes.indexOf(LF, i + 1)) n++;
  return n;
}

const MALFORMED: Partial<Record<string, string>> = {
  CSV_INVALID_CLOSING_QUOTE: 'malformed CSV: unexpected character after a closing quote',
  INVALID_OPENING_QUOTE: 'malformed CSV: quote inside an unquoted field',
  CSV_QUOTE_NOT_CLOSED: 'malformed CSV: unterminated quoted field',
};

/** The fault of the text `bytes[from, to)` read alone, or null when it reads (or stops inside a quoted field). */
function faultIn(bytes: Buffer, from: number, to: number, options: Options): CsvError | null {
  try {
    parse(bytes.subarray(from, to), { ...options, on_record: () => null });
    return null;
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    return err.code === 'CSV_QUOTE_NOT_CLOSED' ? null : err;
  }
}

/**
 * Where to read again after the malformed row starting at `from`: after the
 * line holding the fault. The row may span lines (a quoted field), so the line
 * is found by reading ever longer runs of whole lines, then halving.
 */
function resumeAfterFault(bytes: Buffer, from: number, options: Options): number {
  const ends: number[] = [];
  const end = (k: number): number => {
    while (ends.length <= k) {
      const lf = bytes.indexOf(LF, ends.length === 0 ? from : (ends.at(-1) as number));
      ends.push(lf === -1 ? bytes.length : lf + 1);
      if (lf === -1) break;
    }
    return ends[Math.min(k, ends.length - 1)] as number;
  };
  let hi = 0;
  while (faultIn(bytes, from, end(hi), options) === null && end(hi) < bytes.length) hi = hi * 2 + 1;
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (faultIn(bytes, from, end(mid), options) === null) lo = mid + 1;
    else hi = mid;
  }
  return end(hi);
}

/** Reads a CSV file; `given` is the delimiter the operator named, else it is found from the header row. */
export function readCsv(
  kind: ImportKind,
  text: string,
  start: number,
  c: RecordInput,
  given?: Delimiter,
): void {
  const expected = COLUMNS[kind];
  const width = expected.length;
  const delimiter = given ?? detectDelimiter(text, start, expected);
  c.useDelimiter(delimiter);
  const options = OPTIONS_BY_DELIMITER[delimiter];
  const columns = expected.join(delimiter === ';' ? ';' : ',');
  let build: ((fields: string[]) => Record<string, unknown>) | null = null;
  let headerFailed = false;
  /** The fields a row may have: the named columns, then the ones with an empty header. */
  let allowed = width;

  const onHeader = (fields: string[], line: number): void => {
    let names = fields.map((f) => f.trim());
    let named = names.length;
    while (named > 0 && names[named - 1] === '') named--;
    if (named < names.length) {
      c.emptyColumns(names.length - named);
      allowed = names.length;
      names = names.slice(0, named);
    }
    const forbidden = forbiddenCharacters(names);
    if (forbidden) {
      c.problem(line, `header: a column name ${forbidden.message} (expected ${columns})`, 'header');
      headerFailed = true;
      return;
    }
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) problems.push(`duplicate column ${echo(name)}`);
      else if (!expected.includes(name)) problems.push(`unknown column ${echo(name)}`);
      seen.add(name);
    }
    for (const name of expected) if (!seen.has(name)) problems.push(`missing column "${name}"`);
    if (problems.length > 0) {
      c.problem(line, `header: ${problems.join('; ')} (expected ${columns})`, 'header');
      headerFailed = true;
      return;
    }
    build = builder(
      kind,
      expected.map((name) => names.indexOf(name)),
    );
  };

  const onRow = (fields: string[], line: number): void => {
    if (fields.every((f) => f.trim() === '')) {
      c.emptyRow(); // a blank line, or a row of empty cells
      return;
    }
    if (build === null) onHeader(fields, line);
    else if (fields.length < width || fields.length > allowed) {
      c.problem(line, `expected ${width} fields, found ${fields.length}`, 'wrong number of fields');
    } else if (fields.length > width && fields.slice(width).some((f) => f.trim() !== '')) {
      c.problem(
        line,
        `a value in a column without a header (after column ${width}): name the column or empty the cell`,
        'value in a column without a header',
      );
    } else c.add(build(fields), line);
  };

  const bytes = Buffer.from(start === 0 ? text : text.slice(start));
  const n = bytes.length;
  /** The end of the line holding offset `at`. */
  const lineEnd = (at: number) => {
    const lf = at >= n ? -1 : bytes.indexOf(LF, at);
    return lf === -1 ? n : lf + 1;
  };
  // `pos` is the offset of the next row, `line` its line; csv-parse's own line
  // count adds one for every line end inside a quoted field.
  let pos = 0;
  let line = 1;
  let size = CHUNK_BYTES;
  while (pos < n && !headerFailed) {
    const end = lineEnd(pos + size);
    let rows: string[][] | undefined;
    try {
      rows = parse(bytes.subarray(pos, end), options);
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      // A quoted field runs on past the chunk: read more at once.
      if (err.code === 'CSV_QUOTE_NOT_CLOSED' && end < n) {
        size *= 2;
        continue;
      }
    }
    if (rows !== undefined) {
      for (const fields of rows) {
        onRow(fields, line);
        if (headerFailed) return;
        line += 1 + lineEndsIn(fields);
      }
      pos = end;
      size = CHUNK_BYTES;
      continue;
    }
    // A fault in [pos, end): the rows before it, then the fault, then on after its line.
    const base = pos;
    try {
      parse(bytes.subarray(base, end), {
        ...options,
        on_record: (fields: string[], context: InfoRecord) => {
          onRow(fields, line);
          if (headerFailed) throw STOP; // nothing more is read
          const next = base + context.bytes;
          line += countLines(bytes, pos, next);
          pos = next;
          return null;
        },
      });
    } catch (err) {
      if (err === STOP) return;
      if (!(err instanceof CsvError)) throw err;
      if (build === null) headerFailed = true;
      c.problem(line, MALFORMED[err.code] ?? `malformed CSV: ${err.message}`, 'malformed CSV');
      if (err.code === 'CSV_QUOTE_NOT_CLOSED') return;
      const next = resumeAfterFault(bytes, pos, options);
      line += countLines(bytes, pos, next);
      pos = next;
    }
  }
  if (build === null && !headerFailed) c.problem(1, `missing header row (expected ${columns})`);
}
