/** NDJSON: one JSON object per line; blank lines are skipped. */
import type { RecordInput } from './collect.js';
import { summarizeJsonError } from './json-errors.js';

const CR = 13;

/** Reads the lines of `text` from `start`, the first numbered `firstLine`; returns the number of the line after them. */
export function readNdjson(text: string, start: number, c: RecordInput, firstLine = 1): number {
  const n = text.length;
  let pos = start;
  let line = firstLine;
  while (pos < n) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = n;
    if (eol > pos && !(text.charCodeAt(pos) === CR && eol === pos + 1)) {
      const s = text.slice(pos, eol);
      const brace = s.charCodeAt(0) === 123; // {
      if (brace && c.addCanonical(s, line)) {
        // read in its canonical form
      } else if (brace || s.trim().length > 0) {
        let value: unknown;
        let ok = true;
        try {
          value = JSON.parse(s);
        } catch (err) {
          ok = false;
          c.problem(line, summarizeJsonError(err));
        }
        if (ok) c.add(value, line);
      }
    }
    pos = eol + 1;
    line++;
  }
  return line;
}
