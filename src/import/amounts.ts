/**
 * The `buy` and `sell` of an imported observation: a JSON number or decimal
 * text, read to micro-units. In a `;`- or tab-separated file a decimal comma
 * is read too. In a CSV file, thousands separators are read where the file's
 * locale makes them sure (docs/decisions.md 94); a mark that could be either
 * is refused rather than guessed (docs/decisions.md 52).
 */
import { MAX_AMOUNT, parseMicros, SCALE } from '../domain/decimal.js';
import type { Delimiter } from './detect.js';

export const MSG_AMOUNT = 'must be a positive decimal number with at most 6 decimal places';

const FRAC_SCALE = [1, 100_000, 10_000, 1_000, 100, 10, 1];

/**
 * `parseMicros` with a fast path for the common shape (at most 9 integer digits, at most 6
 * decimals, nothing else), where it computes the same exact integer; every other input goes
 * to `parseMicros` itself.
 */
export function toMicros(value: unknown): number | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && value >= 0 && value < MAX_AMOUNT) {
    // The double nearest to m·10⁻⁶ prints with at most 6 decimals, which is what parseMicros
    // accepts; below 1e9 the product is within 0.2 of m, so the rounding finds m exactly.
    const m = Math.round(value * SCALE);
    if (m / SCALE === value) return m;
    return parseMicros(value);
  } else return parseMicros(value);
  const n = text.length;
  let i = 0;
  let whole = 0;
  const first = text.charCodeAt(0) - 48;
  if (first === 0) {
    i = 1;
  } else if (first >= 1 && first <= 9) {
    for (; i < n && i < 9; i++) {
      const d = text.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) break;
      whole = whole * 10 + d;
    }
  } else {
    return parseMicros(value);
  }
  if (i === n) return whole * SCALE;
  if (text.charCodeAt(i) !== 46 || n - i - 1 < 1 || n - i - 1 > 6) return parseMicros(value);
  let frac = 0;
  for (let k = i + 1; k < n; k++) {
    const d = text.charCodeAt(k) - 48;
    if (!(d >= 0 && d <= 9)) return parseMicros(value);
    frac = frac * 10 + d;
  }
  return whole * SCALE + frac * FRAC_SCALE[n - i - 1]!;
}

/** Micro-units of a positive amount, or the problem (without the field name nor the value). */
function checked(value: unknown, micros: number | null): number | string {
  if (micros !== null && micros > 0) return micros;
  if (micros === null && (typeof value === 'number' || typeof value === 'string')) {
    const n = Number(value);
    if (Number.isFinite(n) && n > MAX_AMOUNT) return `must not exceed ${MAX_AMOUNT}`;
  }
  return MSG_AMOUNT;
}

/** Digits, one mark, digits; the mark may be a thousands separator when three digits follow a short head. */
const ONE_MARK = /^(\d+)([.,])(\d+)$/;
const MAY_GROUP = /^[1-9]\d{0,2}$/;
/**
 * Groups of three digits after spaces (NBSP and the narrow NBSP too), dots or
 * commas, then maybe decimals after the other mark: the integer part and the decimals.
 */
const GROUPED = [
  /^(\d{1,3}(?:[ \u00a0\u202f]\d{3})+)(?:[.,](\d+))?$/,
  /^(\d{1,3}(?:\.\d{3})+)(?:,(\d+))?$/,
  /^(\d{1,3}(?:,\d{3})+)(?:\.(\d+))?$/,
];

/**
 * The problem of a number written the way a spreadsheet writes it in some
 * locale, in a file of this delimiter (none: JSON or NDJSON); null when
 * there is none to name (a decimal comma the file may hold, a plain decimal,
 * or a text the general message is for).
 */
function localForm(text: string, delimiter: Delimiter | undefined): string | null {
  const commaFile = delimiter === ';' || delimiter === '\t';
  const mark = commaFile ? ',' : '.';
  const one = ONE_MARK.exec(text);
  if (one !== null) {
    const [, head, sep, tail] = one as unknown as [string, string, string, string];
    // `1,262` (or `1.262` in a file whose decimal mark may be a comma): a thousands separator or a decimal mark.
    if (tail.length === 3 && MAY_GROUP.test(head) && (sep === ',' || commaFile)) {
      if (sep === ',' && delimiter === ';') return null; // the decimal comma of the locale: read by the caller
      const decimal = delimiter === '\t' ? `${head}.${tail}0` : `${head}${mark}${tail}`;
      return `is ambiguous: "${sep}" may be a thousands separator or a decimal mark; write ${head}${tail} or ${decimal}`;
    }
    if (sep === ',' && !commaFile) {
      const fix = `${head}.${tail}`;
      return delimiter === ','
        ? `uses a decimal comma; in a comma-separated file write ${fix} (or save the file with ; as the separator)`
        : `uses a decimal comma: write ${fix}`;
    }
    return null;
  }
  for (const re of GROUPED) {
    const m = re.exec(text);
    if (m === null) continue;
    const whole = (m[1] as string).replace(/[^0-9]/g, '');
    const fix = m[2] === undefined ? whole : `${whole}${mark}${m[2]}`;
    return `has thousands separators: write the number without them, e.g. ${fix}`;
  }
  return null;
}

/** Groups of three digits after a head of one to three, one separator throughout, then maybe a decimal mark and decimals. */
const GROUPED_NUMBER = /^([1-9]\d{0,2})([ \u00a0\u202f.,])(\d{3}(?:\2\d{3})*)(?:([.,])(\d+))?$/;
const SPACES = ' \u00a0\u202f';
/**
 * The thousands separators of a file's locale, by its delimiter: a space (and
 * the no-break spaces) in any; a comma where the decimal mark is a point (a
 * comma-separated file); a point where it may be a comma (`;`); either in a
 * tab-separated file, the decimal mark being the other.
 */
const GROUPING: Record<Delimiter, string> = { ',': `${SPACES},`, ';': `${SPACES}.`, '\t': `${SPACES}.,` };
const DECIMAL_MARKS: Record<Delimiter, string> = { ',': '.', ';': ',.', '\t': ',.' };

/**
 * Micro-units of a number written with thousands separators as the file's
 * locale writes them (`1 262,50`, `1.262,50`, `1.262.000` in a `;` file), or
 * null. One point or comma group and no decimals (`1.262`) may be a decimal:
 * null, and the caller names the ambiguity.
 */
function readGrouped(text: string, delimiter: Delimiter): number | null {
  const m = GROUPED_NUMBER.exec(text);
  if (m === null) return null;
  const [, head, sep, groups, mark, decimals] = m as unknown as [
    string,
    string,
    string,
    string,
    string?,
    string?,
  ];
  if (!GROUPING[delimiter].includes(sep)) return null;
  if (mark !== undefined && (mark === sep || !DECIMAL_MARKS[delimiter].includes(mark))) return null;
  if (mark === undefined && !SPACES.includes(sep) && groups.length === 3) return null;
  const digits = head + groups.replaceAll(sep, '');
  return toMicros(decimals === undefined ? digits : `${digits}.${decimals}`);
}

/** Whether a text read as a decimal may be `1.262` with a German thousands separator: a dot 1-3 digits in, 3 after. */
function mayGroup(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const dot = value.indexOf('.');
  return dot >= 1 && dot <= 3 && value.length - dot === 4 && value.charCodeAt(0) !== 48;
}

/**
 * Micro-units of a positive amount, or the problem (without the field name nor
 * the value). `delimiter`: the CSV file's, none for JSON and NDJSON. The
 * common shapes are read first (a plain decimal; a decimal comma in a
 * `;`-separated file); the rules of docs/decisions.md 52 only on the way to a problem.
 */
export function readAmount(value: unknown, delimiter?: Delimiter): number | string {
  if (delimiter === ';' && typeof value === 'string') {
    const comma = value.indexOf(',');
    if (comma > 0) {
      const dotted = toMicros(`${value.slice(0, comma)}.${value.slice(comma + 1)}`);
      if (dotted !== null && dotted > 0) return dotted;
    }
  }
  const micros = toMicros(value);
  if (micros !== null && micros > 0) {
    if (delimiter === undefined || delimiter === ',' || !mayGroup(value)) return micros;
  }
  if (typeof value !== 'string') return checked(value, micros);
  const text = value.trim();
  if (delimiter !== undefined) {
    const grouped = readGrouped(text, delimiter);
    if (grouped !== null) return checked(text, grouped);
  }
  const local = localForm(text, delimiter);
  if (local !== null) return local;
  if (micros !== null) return checked(value, micros);
  if (delimiter === ';' || delimiter === '\t') {
    const one = ONE_MARK.exec(text);
    if (one !== null && one[2] === ',') {
      const dotted = `${one[1]}.${one[3]}`;
      return checked(dotted, toMicros(dotted));
    }
  }
  return checked(value, micros);
}
