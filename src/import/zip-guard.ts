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

const ZIP64 = 'it is a ZIP64 archive, which no workbook of rates needs';
const DAMAGED = 'its ZIP central directory is damaged';
/** The ZIP64 extra field of a central directory entry. */
const ZIP64_EXTRA = 0x0001;

/**
 * The end record: the last one, ending the file exactly with its comment. A
 * reader taking the last signature of the file would otherwise read another.
 */
function endRecord(zip: Buffer): number {
  for (let i = zip.length - 4; i >= Math.max(0, zip.length - EOCD_SCAN); i--) {
    if (zip.readUInt32LE(i) !== EOCD) continue;
    if (i + 22 > zip.length || i + 22 + zip.readUInt16LE(i + 20) !== zip.length)
      throw new WorkbookRefused(DAMAGED);
    return i;
  }
  throw new WorkbookRefused('it is not an .xlsx workbook (no ZIP central directory found)');
}

/** Whether an entry's extra fields hold a ZIP64 field. */
function hasZip64Extra(zip: Buffer, from: number, to: number): boolean {
  for (let p = from; p + 4 <= to; p += 4 + zip.readUInt16LE(p + 2)) {
    if (zip.readUInt16LE(p) === ZIP64_EXTRA) return true;
  }
  return false;
}

/**
 * The central directory's entries, read as the spreadsheet library's ZIP
 * reader would and refused wherever it could read another directory
 * (docs/decisions.md 141): one disk, the directory ending exactly at the end
 * record, exactly `count` entries filling it, no name twice, no ZIP64 marker.
 */
function entries(zip: Buffer): Entry[] {
  const end = endRecord(zip);
  const onThisDisk = zip.readUInt16LE(end + 8);
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  const start = zip.readUInt32LE(end + 16);
  const disks = [zip.readUInt16LE(end + 4), zip.readUInt16LE(end + 6), onThisDisk, count];
  // 0xFFFF in any of them sends a reader to a ZIP64 record.
  if (disks.includes(0xffff) || size === 0xffffffff || start === 0xffffffff) throw new WorkbookRefused(ZIP64);
  if (disks[0] !== 0 || disks[1] !== 0 || onThisDisk !== count) {
    throw new WorkbookRefused('it is a ZIP archive split over several disks, or its end record is damaged');
  }
  if (count > MAX_ENTRIES) throw new WorkbookRefused(`it holds ${count} parts, more than ${MAX_ENTRIES}`);
  // Short of the end record, a reader shifts every offset by the gap and reads another directory.
  if (start + size !== end)
    throw new WorkbookRefused(`${DAMAGED} (it does not end where its end record begins)`);
  const found: Entry[] = [];
  const names = new Set<string>();
  let p = start;
  for (let i = 0; i < count; i++) {
    if (p + 46 > end || zip.readUInt32LE(p) !== CENTRAL) throw new WorkbookRefused(DAMAGED);
    const nameLength = zip.readUInt16LE(p + 28);
    const extra = p + 46 + nameLength;
    const next = extra + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
    if (next > end) throw new WorkbookRefused(DAMAGED);
    const entry: Entry = {
      method: zip.readUInt16LE(p + 10),
      compressed: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      offset: zip.readUInt32LE(p + 42),
      name: zip.toString('utf8', p + 46, extra),
    };
    if (
      entry.compressed === 0xffffffff ||
      entry.size === 0xffffffff ||
      entry.offset === 0xffffffff ||
      zip.readUInt16LE(p + 34) === 0xffff ||
      hasZip64Extra(zip, extra, extra + zip.readUInt16LE(p + 30))
    ) {
      throw new WorkbookRefused(ZIP64);
    }
    if (names.has(entry.name)) throw new WorkbookRefused(`it holds the part ${entry.name} twice`);
    names.add(entry.name);
    found.push(entry);
    p = next;
  }
  // Entries past `count` would be read by a reader that reads while the signature matches.
  if (p !== end) {
    throw new WorkbookRefused(`${DAMAGED} (it holds more parts than the ${count} its end record counts)`);
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
