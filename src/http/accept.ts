/**
 * Content negotiation of the history pages (decisions §12): CSV when the
 * request's `Accept` ranks `text/csv` strictly above `application/json`
 * (RFC 9110 §12.5.1), JSON otherwise (no header, `*` / `*`, a tie, or nothing
 * acceptable: an answer beats a 406 for a GET that succeeded, as for
 * Accept-Encoding, docs/decisions.md 11a).
 *
 * Each type takes the weight of the most specific range that matches it
 * (`text/csv` over `text/*` over `*` / `*`); a range listed twice counts with its
 * highest weight; a member with an invalid weight, or one we cannot read, is
 * ignored rather than the whole header. Media-type parameters other than `q`
 * are ignored: we have one CSV (UTF-8, with a header row) and one JSON.
 *
 * It runs on every history request, so common values come from a table and
 * the rest is read by the scanner Accept-Encoding shares (weighted-list.ts).
 */
import { equalsLower, INVALID, member, readMember } from './weighted-list.js';

const COMMON = new Map<string, boolean>([
  ['*/*', false],
  ['application/json', false],
  ['application/json, text/plain, */*', false],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
  ['text/csv', true],
]);

/** How specific the range that set a weight was: none, `*` / `*`, `type/*`, `type/subtype`. */
const NONE = 0;
const ANY = 1;
const TYPE = 2;
const EXACT = 3;

const SLASH = 0x2f;
const STAR = 0x2a;

export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const common = COMMON.get(accept);
  if (common !== undefined) return common;

  // Weights in thousandths, with the specificity of the range that set them.
  let csv = 0;
  let csvBy = NONE;
  let json = 0;
  let jsonBy = NONE;
  for (let i = 0; i < accept.length; ) {
    i = readMember(accept, i);
    const { start, end, q } = member;
    if (q === INVALID) continue;
    // A media range is `type/subtype`, each side a non-empty token.
    let slash = start;
    while (slash < end && accept.charCodeAt(slash) !== SLASH) slash++;
    const typeStart = start;
    const typeEnd = slash;
    const subStart = slash + 1;
    const subEnd = end;
    if (typeEnd === typeStart || subStart >= subEnd) continue;
    let extra = subStart;
    while (extra < subEnd && accept.charCodeAt(extra) !== SLASH) extra++;
    if (extra < subEnd) continue; // `a/b/c`

    const anySub = subEnd - subStart === 1 && accept.charCodeAt(subStart) === STAR;
    let csvRange = NONE;
    let jsonRange = NONE;
    if (typeEnd - typeStart === 1 && accept.charCodeAt(typeStart) === STAR) {
      if (!anySub) continue; // `*/csv` is not a media range
      csvRange = ANY;
      jsonRange = ANY;
    } else if (equalsLower(accept, typeStart, typeEnd, 'text')) {
      csvRange = anySub ? TYPE : equalsLower(accept, subStart, subEnd, 'csv') ? EXACT : NONE;
    } else if (equalsLower(accept, typeStart, typeEnd, 'application')) {
      jsonRange = anySub ? TYPE : equalsLower(accept, subStart, subEnd, 'json') ? EXACT : NONE;
    }
    if (csvRange !== NONE && csvRange >= csvBy) {
      csv = csvRange === csvBy ? Math.max(csv, q) : q;
      csvBy = csvRange;
    }
    if (jsonRange !== NONE && jsonRange >= jsonBy) {
      json = jsonRange === jsonBy ? Math.max(json, q) : q;
      jsonBy = jsonRange;
    }
  }
  return csv > json;
}
