/**
 * A workbook's bytes, read within its caps (docs/decisions.md 141): the file
 * at most MDS_WORKBOOK_MAX_MB, checked before it is read (standard input:
 * read in chunks, stopped past the cap), and its
 * parts at most MDS_WORKBOOK_UNPACKED_MB unpacked, checked before
 * the spreadsheet library unpacks any of it (zip-guard.ts).
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { setting } from '../config/setting.js';
import { ImportError } from './import-error.js';
import { checkUnpackedSize, WorkbookRefused } from './zip-guard.js';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** The largest workbook file, in bytes (the admin API's body cap for a workbook too). */
export const workbookMaxBytes = (): number => Number(setting('MDS_WORKBOOK_MAX_MB')) * MB;

const tooLarge = (bytes: number, max: number) =>
  new ImportError(
    `the workbook is ${(bytes / MB).toFixed(1)} MB, more than the ${max / MB} MB a workbook may be (MDS_WORKBOOK_MAX_MB)`,
  );

/** Standard input read in chunks, stopped one byte past the cap: its end need not come. */
function stdinBytes(max: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, max + 1 - total));
    const n = readSync(0, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, n));
    total += n;
    if (total > max) throw tooLarge(total, max);
  }
}

/** The file's bytes, or an ImportError naming the cap it exceeds; `-` is standard input. */
export function workbookBytes(file: string): Buffer {
  const max = workbookMaxBytes();
  let bytes: Buffer;
  if (file === '-') {
    bytes = stdinBytes(max);
  } else {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > max) throw tooLarge(size, max);
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  if (bytes.length > max) throw tooLarge(bytes.length, max);
  try {
    checkUnpackedSize(bytes, Number(setting('MDS_WORKBOOK_UNPACKED_MB')) * MB);
  } catch (err) {
    if (err instanceof WorkbookRefused) throw new ImportError(`the workbook is refused: ${err.message}`);
    throw err;
  }
  return bytes;
}
