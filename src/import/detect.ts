/**
 * The format of an import: from the file's extension, else from its first
 * non-blank character. `xlsx` is the Bank of Algeria's workbook of official
 * rates, the one workbook layout read (official-boa.ts, docs/decisions.md 140).
 */

export type ImportFormat = 'ndjson' | 'csv' | 'json' | 'xlsx';
/** The formats `--format` names; a workbook is read by `mds import official-boa` or its extension. */
export const FORMATS: readonly ImportFormat[] = ['ndjson', 'csv', 'json'];

const BOM = 0xfeff;

/** Where the text starts: after a byte-order mark, if any. */
export function textStart(text: string): number {
  return text.charCodeAt(0) === BOM ? 1 : 0;
}

export function detectFormat(text: string, fileName?: string): ImportFormat {
  if (fileName !== undefined) {
    const lower = fileName.toLowerCase();
    if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
    if (lower.endsWith('.csv')) return 'csv';
    if (lower.endsWith('.json')) return 'json';
    if (lower.endsWith('.xlsx')) return 'xlsx';
  }
  const n = text.length;
  for (let i = textStart(text); i < n; i++) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (c === '[') return 'json';
    if (c === '{') return 'ndjson';
    return 'csv';
  }
  return 'csv';
}

/**
 * The separator of a CSV file's fields: `,`, or `;` (what a spreadsheet in a
 * locale with a decimal comma writes, French among them), or a tab
 * (docs/decisions.md 52).
 */
export type Delimiter = ',' | ';' | '\t';

/** The delimiter an operator names (`,`, `;`, `tab` or `\t`), or null for any other text. */
export function parseDelimiter(text: string): Delimiter | null {
  if (text === ',' || text === ';' || text === '\t') return text;
  if (text === 'tab' || text === '\\t') return '\t';
  return null;
}
