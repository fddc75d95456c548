/**
 * A workbook (an .xlsx file is a ZIP archive) checked before a spreadsheet
 * library unpacks it (docs/decisions.md 141): the central directory's
 * uncompressed sizes must add up to at most the cap, and every entry must
 * inflate to no more than its declared size, so that a zip bomb, or an
 * archive that lies about its sizes, is refused having cost at most the cap.
 */
import { inflateRawSync } from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record (22 bytes) and the longest archive comment it may be followed by. */
const EOCD_SCAN = 22 + 0xffff;
/** More entries than any workbook of a few sheets holds. */
const MAX_ENTRIES = 10_000;
const STORED = 0;
const DEFLATED = 8;

/** Why the archive is refused, as a sentence naming the problem; the caller adds what it is. */
export class WorkbookRefused extends Error {}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

interface Entry {
  name: string;
  method: number;
  compressed: number;
  size: number;
  offset: number;
}

function endRecord(zip: Buffer): number {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - EOCD_SCAN); i--) {
    if (zip.readUInt32LE(i) === EOCD) return i;
  }
  throw new WorkbookRefused('it is not an .xlsx workbook (no ZIP central directory found)');
}

/** The central directory's entries; ZIP64 archives (over 4 GB or 65,535 entries) are refused. */
function entries(zip: Buffer): Entry[] {
  const end = endRecord(zip);
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  const start = zip.readUInt32LE(end + 16);
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff) {
    throw new WorkbookRefused('it is a ZIP64 archive, which no workbook of rates needs');
  }
  if (count > MAX_ENTRIES) throw new WorkbookRefused(`it holds ${count} parts, more than ${MAX_ENTRIES}`);
  if (start + size > end) throw new WorkbookRefused('its ZIP central directory is damaged');
  const found: Entry[] = [];
  let p = start;
  for (let i = 0; i < count; i++) {
    if (p + 46 > end || zip.readUInt32LE(p) !== CENTRAL) {
      throw new WorkbookRefused('its ZIP central directory is damaged');
    }
    const nameLength = zip.readUInt16LE(p + 28);
    const entry: Entry = {
      method: zip.readUInt16LE(p + 10),
      compressed: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      offset: zip.readUInt32LE(p + 42),
      name: zip.toString('utf8', p + 46, p + 46 + nameLength),
    };
    if (entry.compressed === 0xffffffff || entry.size === 0xffffffff || entry.offset === 0xffffffff) {
      throw new WorkbookRefused('it is a ZIP64 archive, which no workbook of rates needs');
    }
    found.push(entry);
    p += 46 + nameLength + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return found;
}

/** The bytes of an entry's data, as its local header places them. */
function dataOf(zip: Buffer, e: Entry): Buffer {
  const p = e.offset;
  if (p + 30 > zip.length || zip.readUInt32LE(p) !== LOCAL) {
    throw new WorkbookRefused(`its part ${e.name} is damaged`);
  }
  const start = p + 30 + zip.readUInt16LE(p + 26) + zip.readUInt16LE(p + 28);
  if (start + e.compressed > zip.length) throw new WorkbookRefused(`its part ${e.name} is cut short`);
  return zip.subarray(start, start + e.compressed);
}

/**
 * Refuses (WorkbookRefused) an archive whose parts unpack to more than
 * `maxUnpacked` bytes in all, by their declared sizes first (nothing
 * inflated), then by inflating each at most to its declared size.
 */
export function checkUnpackedSize(zip: Buffer, maxUnpacked: number): void {
  const list = entries(zip);
  const declared = list.reduce((sum, e) => sum + e.size, 0);
  if (declared > maxUnpacked) {
    throw new WorkbookRefused(
      `it unpacks to ${mb(declared)}, more than the ${mb(maxUnpacked)} a workbook may (MDS_WORKBOOK_UNPACKED_MB)`,
    );
  }
  for (const e of list) {
    const data = dataOf(zip, e);
    if (e.method === STORED) {
      if (data.length !== e.size) throw new WorkbookRefused(`its part ${e.name} is damaged`);
      continue;
    }
    if (e.method !== DEFLATED) {
      throw new WorkbookRefused(`its part ${e.name} is compressed with method ${e.method}, not deflate`);
    }
    let out: Buffer;
    try {
      // One byte more than declared: inflating further shows the size was a lie.
      out = inflateRawSync(data, { maxOutputLength: e.size + 1 });
    } catch {
      throw new WorkbookRefused(`its part ${e.name} does not inflate to its declared size (a zip bomb?)`);
    }
    if (out.length !== e.size) {
      throw new WorkbookRefused(`its part ${e.name} does not inflate to its declared size (a zip bomb?)`);
    }
  }
}
