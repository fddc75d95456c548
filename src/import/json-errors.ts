/** JSON syntax errors as an import reports them: no offsets, no echo of the input. */

export function summarizeJsonError(err: unknown): string {
  let msg = err instanceof Error ? err.message : String(err);
  // The line is reported separately; offsets into the document would only confuse.
  msg = msg.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ (?:in JSON )?at position \d+/, '');
  // V8: `Unexpected token 'x', "<echo of the input>" is not valid JSON` — drop the echo.
  const echo = /^(.*?), (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s.exec(msg);
  if (echo) msg = echo[1] as string;
  if (msg.length > 160) msg = `${msg.slice(0, 157)}...`;
  return `invalid JSON: ${msg}`;
}

/** The line of offset `to`, counting from `line` at offset `from`. */
export function lineAt(text: string, from: number, to: number, line: number): number {
  let l = line;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) l++;
  return l;
}
