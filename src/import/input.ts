/**
 * An import's input (a file or standard input): its format, its size, and how
 * to parse it, whatever the format; run.ts checks and writes what it yields.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Store } from '../storage/store.js';
import { detectFormat, type ImportFormat } from './detect.js';
import { ImportError } from './import-error.js';
import { readOfficialWorkbook } from './official-boa.js';
import { type ParseOptions, type ParseResult, parseImport, parseNdjsonPieces } from './parse.js';
import type { ImportKind } from './records.js';
import { workbookBytes } from './workbook.js';

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
export interface ImportInput {
  format: ImportFormat;
  bytes: number;
  /** The store is read by a workbook's parse only: the directory names the sheets it reads (official-boa.ts). */
  parse(kind: ImportKind, store: Store): ParseResult | Promise<ParseResult>;
  /** Releases the file. */
  close(): void;
}

export function openInput(file: string, given: ImportFormat | undefined, options: ParseOptions): ImportInput {
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
  if (given === 'xlsx' || (given === undefined && detectFormat('', file) === 'xlsx')) {
    const bytes = workbookBytes(file);
    return {
      format: 'xlsx',
      bytes: bytes.length,
      parse: (kind, store) => readOfficialWorkbook(kind, bytes, store),
      close() {},
    };
  }
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
