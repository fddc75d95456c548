/**
 * Workbooks in the Bank of Algeria's layout (docs/decisions.md 140), built
 * with exceljs as the publisher's spreadsheet would save them, and ZIP
 * archives made by hand to try the caps (docs/decisions.md 141).
 */
import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';

/** A cell of column A: an Excel serial day number, a Date (a cell with a date format), or text (refused). */
export type DateCell = number | Date | string;

/** Excel's serial day number of a UTC date: days since 1899-12-30 (45658 is 2025-01-01). */
export const serial = (iso: string) => (Date.parse(`${iso}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;

export interface Sheet {
  name: string;
  rows: Array<[DateCell, number | string]>;
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

/** One sheet each, a heading row of text first. */
export async function boaWorkbook(sheets: Sheet[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  for (const s of sheets) {
    const ws = wb.addWorksheet(s.name);
    ws.addRow(['Date', `Cours moyen ${s.name}`]);
    for (const row of s.rows) ws.addRow(row);
    for (let i = 0; i < (s.emptyTrailingRows ?? 0); i++) ws.addRow(['', '']);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/**
 * A deflated ZIP archive of these parts; `declared` is the uncompressed size
 * its directories state (the true size unless given: a lie to try the guard).
 */
export function zipOf(parts: Array<{ name: string; data: Buffer; declared?: number }>): Buffer {
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
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
