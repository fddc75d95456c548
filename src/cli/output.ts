/**
 * CLI output: one JSON document on stdout with --json, readable text otherwise;
 * errors on stderr with a non-zero exit code (decisions §11).
 */
import type { ImportSummary } from '../domain/types.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly problems?: Array<{ line: number; message: string }>,
  ) {
    super(message);
  }
}

export interface Output {
  json: boolean;
  /** The command's result: the JSON document, or text lines. */
  result(doc: unknown, text: string | string[]): void;
  /** Progress and notes for a human; silent with --json. */
  note(text: string): void;
}

export function output(json: boolean): Output {
  return {
    json,
    result(doc, text) {
      if (json) process.stdout.write(`${JSON.stringify(doc)}\n`);
      else process.stdout.write(`${Array.isArray(text) ? text.join('\n') : text}\n`);
    },
    note(text) {
      if (!json) process.stderr.write(`${text}\n`);
    },
  };
}

/** Fixed-width table for terminals. */
export function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** One line for an import's counts. */
export function summaryLine(s: ImportSummary): string {
  return `${s.kind}: ${s.received} received, ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged`;
}
