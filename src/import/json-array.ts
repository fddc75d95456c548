/**
 * A JSON array of objects. `JSON.parse` reads it; the line of each element (for
 * problems) comes from a scan of the text that tracks strings and nesting.
 */
import type { RecordInput } from './collect.js';
import { lineAt, summarizeJsonError } from './json-errors.js';
import { isObject } from './records.js';

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const CLOSE_BRACE = 125;
const BACKSLASH = 92;

interface ElementSpans {
  /** 1-based line where each element starts. */
  lines: number[];
  /** Offsets of each element's first character and of the `,` or `]` after it. */
  starts: number[];
  ends: number[];
}

/**
 * Finds the elements of the top-level array by tracking strings and nesting. Exact when
 * `text` is valid JSON; on invalid text it still gives usable spans for error reporting.
 */
function arrayElements(text: string, start: number): ElementSpans {
  const lines: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const n = text.length;
  let line = 1;
  let depth = 0;
  let expect = false;
  let open = false;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      line++;
      continue;
    }
    if (c === SPACE || c === TAB || c === CR) continue;
    if (depth === 1 && expect) {
      expect = false;
      if (c !== CLOSE_BRACKET || open) {
        lines.push(line);
        starts.push(i);
        open = true;
      }
    }
    if (c === QUOTE) {
      // Valid JSON strings hold no raw newlines: skip to the closing quote.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
        else if (d === LF) line++;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      depth++;
      if (depth === 1) expect = true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (depth === 1 && open) {
        ends.push(i);
        open = false;
      }
      depth--;
    } else if (c === COMMA && depth === 1) {
      if (open) ends.push(i);
      open = true;
      expect = true;
    }
  }
  if (open) ends.push(n);
  return { lines, starts, ends };
}

/** Line of a JSON syntax error: V8 (Node 20) does not always give a position. */
function jsonErrorLine(text: string, start: number, err: unknown): { line: number; message: string } {
  const message = summarizeJsonError(err);
  const pos = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (pos) return { line: lineAt(text, start, Math.min(text.length, start + Number(pos[1])), 1), message };
  // Find the first element that does not parse on its own.
  const spans = arrayElements(text, start);
  for (let k = 0; k < spans.starts.length; k++) {
    const from = spans.starts[k] as number;
    const to = spans.ends[k] as number;
    if (text.slice(from, to).trim() === '') {
      return {
        line: spans.lines[k] as number,
        message: 'invalid JSON: missing array element (extra comma?)',
      };
    }
    try {
      JSON.parse(text.slice(from, to));
    } catch (inner) {
      const at = /at position (\d+)/.exec(inner instanceof Error ? inner.message : '');
      const line = spans.lines[k] as number;
      return {
        line: at ? lineAt(text, from, Math.min(text.length, from + Number(at[1])), line) : line,
        message: summarizeJsonError(inner),
      };
    }
  }
  if (message.includes('end of JSON input'))
    return { line: lineAt(text, start, text.trimEnd().length, 1), message };
  return { line: 1, message };
}

export function readJsonArray(text: string, start: number, c: RecordInput): void {
  let doc: unknown;
  try {
    doc = start === 0 ? JSON.parse(text) : JSON.parse(text.slice(start));
  } catch (err) {
    const { line, message } = jsonErrorLine(text, start, err);
    c.problem(line, message);
    return;
  }
  if (!Array.isArray(doc)) {
    let i = start;
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    c.problem(lineAt(text, start, i, 1), 'the document must be a JSON array of objects');
    return;
  }
  const lines = arrayElements(text, start).lines;
  for (let i = 0; i < doc.length; i++) {
    const line = lines[i] ?? 1;
    const el: unknown = doc[i];
    doc[i] = undefined; // let the parsed tree go as records are built
    if (!isObject(el)) c.problem(line, 'array element must be a JSON object');
    else c.add(el, line);
  }
}
