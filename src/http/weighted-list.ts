/**
 * The one scanner of RFC 9110's weighted lists (§12.4.2), for `Accept`
 * (accept.ts) and `Accept-Encoding` (compression.ts): `value *( ; param ) ,
 * …`, where only the `q` parameter means anything to us. Both headers are read
 * on the request path, so it walks the string once by character code, without
 * splitting, regular expressions or an object per member: `readMember` fills
 * the module's `member` and returns where the next one starts.
 */

/** Weights are kept in thousandths (at most three decimals). */
export const INVALID = -2;

/** The member `readMember` read last: its value `s[start, end)` and its weight, INVALID if unreadable. */
export const member = { start: 0, end: 0, q: 0 };

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;

export const skipSpace = (s: string, i: number): number => {
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
};

/** RFC 9110 tchar: visible ASCII except delimiters. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TCHAR[c.charCodeAt(0)] = 1;
}
export const isTokenChar = (c: number): boolean => c < 128 && TCHAR[c] === 1;

/**
 * Reads the member at `i` into `member` and returns the index past its comma.
 * The value is a token, or `type/subtype` (the caller checks its shape); a
 * parameter value may be a token or a quoted string, but a weight must be a
 * bare qvalue. A member that does not parse has `q` INVALID.
 */
export function readMember(s: string, i: number): number {
  const n = s.length;
  i = skipSpace(s, i);
  const start = i;
  while (i < n && (isTokenChar(s.charCodeAt(i)) || s.charCodeAt(i) === SLASH)) i++;
  member.start = start;
  member.end = i;
  let q = 1000;
  i = skipSpace(s, i);
  while (i < n && s.charCodeAt(i) === SEMICOLON) {
    i = skipSpace(s, i + 1);
    const nameStart = i;
    while (i < n && isTokenChar(s.charCodeAt(i))) i++;
    const isQ = i - nameStart === 1 && (s.charCodeAt(nameStart) | 0x20) === 0x71;
    i = skipSpace(s, i);
    if (i < n && s.charCodeAt(i) === EQUALS) {
      i = skipSpace(s, i + 1);
      const valueStart = i;
      if (i < n && s.charCodeAt(i) === QUOTE) {
        i++;
        while (i < n && s.charCodeAt(i) !== QUOTE) i += s.charCodeAt(i) === BACKSLASH ? 2 : 1;
        if (i >= n) q = INVALID; // unterminated
        i++;
        if (isQ) q = INVALID;
      } else {
        while (i < n && isTokenChar(s.charCodeAt(i))) i++;
        if (isQ) q = weight(s, valueStart, i);
      }
      i = skipSpace(s, i);
    } else if (isQ) {
      q = INVALID;
    }
  }
  if (i < n && s.charCodeAt(i) !== COMMA) {
    // Not a member we can read (`gz ip`): skip to the next one.
    q = INVALID;
    while (i < n && s.charCodeAt(i) !== COMMA) i++;
  }
  member.q = q;
  return i + 1; // past the comma
}

/** Case-insensitive comparison of s[start, end) with a lower-case literal. */
export function equalsLower(s: string, start: number, end: number, literal: string): boolean {
  if (end - start !== literal.length) return false;
  for (let k = 0; k < literal.length; k++) {
    const c = s.charCodeAt(start + k);
    const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    if (lower !== literal.charCodeAt(k)) return false;
  }
  return true;
}

/** qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths; INVALID otherwise. */
export function weight(s: string, start: number, end: number): number {
  const len = end - start;
  if (len === 0 || len > 5) return INVALID;
  const first = s.charCodeAt(start);
  if (first !== 0x30 && first !== 0x31) return INVALID;
  if (len === 1) return first === 0x31 ? 1000 : 0;
  if (s.charCodeAt(start + 1) !== 0x2e) return INVALID;
  let value = 0;
  let scale = 100;
  for (let k = start + 2; k < end; k++, scale /= 10) {
    const d = s.charCodeAt(k) - 0x30;
    if (d < 0 || d > 9) return INVALID;
    value += d * scale;
  }
  if (first === 0x31) return value === 0 ? 1000 : INVALID;
  return value;
}
