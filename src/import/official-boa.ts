/**
 * The Bank of Algeria's workbook of official reference rates (docs/decisions.md
 * 140, 143): one sheet per currency named `<CCY> - DZD` (`EURO` for EUR), a heading
 * row (text in column A, or in column B beside an empty A), then the Excel
 * date in column A and the dinars per unit in column B (per 100 units for
 * JPY), rounded to 6 decimals (143). Each dated row is an `official`
 * observation at 12:00 Africa/Algiers of its date, buy = sell = the rate,
 * handed to the same collector, record rules, guards and writer as every
 * import (run.ts). A record's line is its row in its sheet; every problem
 * names the sheet. Sheets of other names, or of currencies not in the asset
 * directory, are skipped and listed.
 */
import type { CellValue, Workbook } from 'exceljs';
import { SCALE_DIGITS } from '../domain/decimal.js';
import type { RateObservation } from '../domain/types.js';
import type { Store } from '../storage/store.js';
import { Collector } from './collect.js';
import { ImportError } from './import-error.js';
import { type ParseResult, result, type SkippedSheet } from './parse.js';
import { type ImportKind, kindRule } from './records.js';
import { DAY_MS, Zone } from './timestamps.js';

/** `USD - DZD`, any case and spacing; the workbook names the euro's sheet `EURO` (or `EURO - DZD`). */
const SHEET = /^\s*([A-Za-z]{3})\s*-\s*DZD\s*$/i;
const EURO = /^\s*EURO\s*(?:-\s*DZD\s*)?$/i;
/** Currencies quoted per 10^n units: the decimal point moves n places (exact, no arithmetic on doubles). */
const PER_POWER_OF_TEN: Readonly<Record<string, number>> = { JPY: 2 };
/** Day 0 of Excel's serial dates (the 1900 system, with its phantom 29 February 1900), and of the 1904 system. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
/** The publisher's zone and the hour its reference rate is stamped at (docs/decisions.md 140). */
const ZONE = 'Africa/Algiers';
const NOON_MS = 12 * 3_600_000;

/** The currency a sheet's name stands for, or null. */
function currencyOf(sheet: string): string | null {
  if (EURO.test(sheet)) return 'EUR';
  return SHEET.exec(sheet)?.[1]?.toUpperCase() ?? null;
}

/** A cell's value as typed in: a formula's result, rich text's text. */
function plain(value: CellValue): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if ('result' in value) return value.result ?? null;
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('text' in value) return value.text;
  return value;
}

const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/** The UTC midnight of a date cell (a serial number or a Date), or the problem. */
function dayOf(v: unknown, epoch: number): number | string {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 1)
      return `column A: ${v} is not a whole Excel date (a serial day number)`;
    return epoch + v * DAY_MS;
  }
  if (v instanceof Date) {
    const t = v.getTime();
    if (Number.isNaN(t) || t % DAY_MS !== 0)
      return 'column A: the date holds a time of day; write the date alone';
    return t;
  }
  return `column A: ${JSON.stringify(String(v).slice(0, 40))} is not a date; write it as an Excel date`;
}

/** A rate as decimal text, and whether it held more than 6 decimals (rounded). */
interface Rate {
  text: string;
  rounded: boolean;
}

/**
 * The rate as decimal text: the number as Excel keeps it (15 significant
 * digits), divided by 10^shift by moving the point, then rounded half away
 * from zero to 6 decimals (docs/decisions.md 143); or the problem.
 */
function rateOf(v: unknown, shift: number): Rate | { problem: string } {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) {
    const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);
    return { problem: `column B: ${shown} is not a rate; write the dinars per unit as a positive number` };
  }
  const text = String(Number(v.toPrecision(15)));
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null) return { problem: `column B: ${text} is not a rate in dinars` };
  const [int, frac = ''] = [m[1] as string, m[2]];
  const padded = int.padStart(shift + 1, '0');
  const whole = padded.slice(0, padded.length - shift);
  const decimals = (padded.slice(padded.length - shift) + frac).replace(/0+$/, '');
  const rounded = decimals.length > SCALE_DIGITS;
  // Positive: half away from zero is half up, on the micro-units.
  const micros =
    BigInt(whole + decimals.slice(0, SCALE_DIGITS).padEnd(SCALE_DIGITS, '0')) +
    (rounded && (decimals[SCALE_DIGITS] as string) >= '5' ? 1n : 0n);
  const digits = micros.toString().padStart(SCALE_DIGITS + 1, '0');
  const units = digits.slice(0, -SCALE_DIGITS);
  const fraction = digits.slice(-SCALE_DIGITS).replace(/0+$/, '');
  if (micros === 0n)
    return { problem: `column B: ${text} rounds to 0 at 6 decimal places; it is not a rate` };
  return { text: fraction === '' ? units : `${units}.${fraction}`, rounded };
}

/** A collector whose problems name the sheet being read. */
class SheetCollector extends Collector<RateObservation> {
  sheet = '';
  override problem(line: number, message: string, kind?: string): void {
    super.problem(line, `sheet "${this.sheet}": ${message}`, kind);
  }
}

async function load(bytes: Buffer): Promise<Workbook> {
  // Loaded here: only a workbook's import needs the library.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as Parameters<Workbook['xlsx']['load']>[0]);
  } catch (err) {
    throw new ImportError(`the workbook cannot be read: ${(err as Error).message}`);
  }
  return workbook;
}

/** The workbook's records (bytes already within the caps, workbook.ts), as every format's parse gives them. */
export async function readOfficialWorkbook(
  kind: ImportKind,
  bytes: Buffer,
  store: Store,
): Promise<ParseResult> {
  if (kind !== 'rates') {
    throw new ImportError(
      `a workbook holds official rates: import it with \`mds import official-boa\` (or as rates), not as ${kind}`,
    );
  }
  const workbook = await load(bytes);
  const sheets = workbook.worksheets.map((ws) => ({ ws, currency: currencyOf(ws.name) }));
  const named = [...new Set(sheets.flatMap((s) => (s.currency === null ? [] : [s.currency])))];
  const unknown = new Set(named.length > 0 ? await store.imports.unknownAssets(named) : []);
  const skippedSheets: SkippedSheet[] = [];
  const c = new SheetCollector(kindRule('rates'), false);
  const epoch = workbook.properties.date1904 ? EPOCH_1904 : EPOCH_1900;
  const zone = new Zone(ZONE);
  let read = 0;
  let rounded = 0;
  for (const { ws, currency } of sheets) {
    if (currency === null) {
      skippedSheets.push({ sheet: ws.name, reason: 'not named "<currency> - DZD" (or EURO)' });
      continue;
    }
    if (unknown.has(currency)) {
      skippedSheets.push({ sheet: ws.name, reason: `${currency} is not in the asset directory` });
      continue;
    }
    read++;
    c.sheet = ws.name;
    const shift = PER_POWER_OF_TEN[currency] ?? 0;
    let dated = false;
    ws.eachRow({ includeEmpty: true }, (row, line) => {
      const a = plain(row.getCell(1).value);
      const b = plain(row.getCell(2).value);
      if (blank(a) && blank(b)) return c.emptyRow();
      // Before the first date, text in column A, or column A empty and text in column B: the heading.
      if (!dated && (typeof a === 'string' || (blank(a) && typeof b === 'string'))) return;
      dated = true;
      const day = dayOf(a, epoch);
      if (typeof day === 'string') return c.problem(line, day);
      // A date without a rate: a day the bank published none, ignored as an empty row.
      if (blank(b)) return c.emptyRow();
      const rate = rateOf(b, shift);
      if ('problem' in rate) return c.problem(line, rate.problem);
      if (rate.rounded) rounded++;
      // Noon in Algiers: the offset the zone's rules give that day (UTC+1, no summer time since 1981).
      const noon = day + NOON_MS;
      const instant = noon - (zone.offsetsAt(noon)[0] ?? 0) * 60_000;
      c.add(
        {
          currency,
          source: 'official',
          buy: rate.text,
          sell: rate.text,
          updatedAt: new Date(instant).toISOString(),
        },
        line,
      );
    });
  }
  if (read === 0) {
    const skipped = skippedSheets.map((s) => `"${s.sheet}": ${s.reason}`).join('; ');
    throw new ImportError(
      `the workbook holds no sheet of a currency in the asset directory, named "<currency> - DZD" (EURO for EUR)${skipped === '' ? '' : ` (${skipped})`}`,
    );
  }
  return { ...result({ kind: 'rates', c }), skippedSheets, roundedRates: rounded };
}
