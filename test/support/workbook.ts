/**
 * Workbooks in the Bank of Algeria's layout (docs/decisions.md 140), built
 * with exceljs as the publisher's spreadsheet would save them, and ZIP
 * archives made by hand to try the caps (docs/decisions.md 141).
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';

/** A cell of column A: an Excel serial day number, a Date (a cell with a date format), or text (refused). */
export type DateCell = number | Date | string;

/** Excel's serial day number of a UTC date: days since 1899-12-30 (45658 is 2025-01-01). */
export const serial = (iso: string) => (Date.parse(`${iso}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;

export interface Sheet {
  name: string;
  rows: Array<[DateCell, number | string]>;
  /** The heading row (null: an empty cell); `Date`, `Cours moyen <name>` unless given. */
  heading?: Array<string | null>;
  /** Rows left empty after the data (blank text cells, as a spreadsheet saves cleared cells). */
  emptyTrailingRows?: number;
}

/**
 * The publisher's layout over two days of `month` (`2020-03`: the 2nd and
 * 3rd): EUR's sheet is `EURO` with date cells, the others serial numbers;
 * JPY per 100 (89.5321: 0.895321 per yen); USD's sheet ends with two empty
 * rows; XAF is a currency the test directories do not hold.
 */
export function layoutSheets(month: string, usdOnThe3rd: number): Sheet[] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return [
    {
      name: 'EURO',
      rows: [
        [new Date(Date.UTC(y, m - 1, 2)), 150.25],
        [new Date(Date.UTC(y, m - 1, 3)), 150.5],
      ],
    },
    {
      name: 'USD - DZD',
      rows: [
        [serial(`${month}-02`), 134.1],
        [serial(`${month}-03`), usdOnThe3rd],
      ],
      emptyTrailingRows: 2,
    },
    { name: 'JPY - DZD', rows: [[serial(`${month}-02`), 89.5321]] },
    { name: 'XAF - DZD', rows: [[serial(`${month}-02`), 0.2234]] },
  ];
}

/** One sheet each, a heading row first. */
export async function boaWorkbook(sheets: Sheet[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  for (const s of sheets) {
    const ws = wb.addWorksheet(s.name);
    ws.addRow(s.heading ?? ['Date', `Cours moyen ${s.name}`]);
    for (const row of s.rows) ws.addRow(row);
    for (let i = 0; i < (s.emptyTrailingRows ?? 0); i++) ws.addRow(['', '']);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

interface Part {
  name: string;
  data: Buffer;
  /** The uncompressed size its directory states: the true size unless given (a lie to try the guard). */
  declared?: number;
}

/** The parts' local records, and their central directory placing the first at `base` (or at `at`, when given). */
function records(parts: Part[], base = 0, at?: number): { locals: Buffer; directory: Buffer } {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const packed = deflateRawSync(p.data);
    const size = p.declared ?? p.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((at ?? base) + offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  return { locals: Buffer.concat(locals), directory: Buffer.concat(centrals) };
}

/** The end record: `count` entries, a directory of `size` bytes at `offset`. */
function endRecord(count: number, size: number, offset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return end;
}

/** A deflated ZIP archive of these parts. */
export function zipOf(parts: Part[]): Buffer {
  const { locals, directory } = records(parts);
  return Buffer.concat([locals, directory, endRecord(parts.length, directory.length, locals.length)]);
}

/** A workbook's one part, its end record's number of this disk 0xFFFF: a ZIP64 marker. */
export function zip64Marked(): Buffer {
  const zip = zipOf([{ name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') }]);
  zip.writeUInt16LE(0xffff, zip.length - 22 + 4);
  return zip;
}

/** 50 MB of spaces: about 51 KB deflated. */
const bombPart = (): Part => ({ name: 'xl/bomb.xml', data: Buffer.alloc(50 * 1024 * 1024, 0x20) });

/**
 * Two parts, the second 50 MB of spaces, the end record counting one: a
 * reader that reads entries while their signature matches unpacks both.
 */
export function uncountedBomb(): Buffer {
  const { locals, directory } = records([
    { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
    bombPart(),
  ]);
  return Buffer.concat([locals, directory, endRecord(1, directory.length, locals.length)]);
}

/**
 * [benign local][benign directory][bomb local][bomb directory][end record],
 * the end record pointing at the benign directory but giving the bomb
 * directory's size: a reader that takes the gap up to the end record for
 * bytes prepended shifts every offset by it and reads the bomb's directory
 * (whose offset is written shifted back). The benign part is incompressible
 * and larger than the bomb's, so that the shifted offset is not negative.
 */
export function shiftedBomb(): Buffer {
  const benign = records([{ name: 'xl/workbook.xml', data: randomBytes(64 * 1024) }]);
  const bombLocal = records([bombPart()]).locals;
  const gap = benign.directory.length + bombLocal.length;
  const bomb = records([bombPart()], 0, benign.locals.length + benign.directory.length - gap);
  return Buffer.concat([
    benign.locals,
    benign.directory,
    bomb.locals,
    bomb.directory,
    endRecord(1, bomb.directory.length, benign.locals.length),
  ]);
}
