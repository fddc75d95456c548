/**
 * CLI output: one JSON document on stdout with --json, readable text otherwise;
 * errors on stderr with a non-zero exit code (decisions §11).
 */
import { microsToNumber } from '../domain/decimal.js';
import type { ImportSummary } from '../domain/types.js';
import type { RevisionRecord } from '../storage/import-records.js';
import type { RetractionRecord } from '../storage/retraction-records.js';

/** What an error adds to its message: lines for a person, members of `error` for --json. */
export interface ErrorReport {
  text: string[];
  json: Record<string, unknown>;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly report?: ErrorReport,
  ) {
    super(message);
  }
}

/** Where a run of the CLI reads its environment and writes: the process's own, or a test's (main.ts). */
export interface Io {
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export interface Output {
  json: boolean;
  /** The command's result: the JSON document, or text lines. */
  result(doc: unknown, text: string | string[]): void;
  /** Progress and notes for a human; silent with --json. */
  note(text: string): void;
}

export function output(json: boolean, io: Io = process): Output {
  return {
    json,
    result(doc, text) {
      if (json) io.stdout.write(`${JSON.stringify(doc)}\n`);
      else io.stdout.write(`${Array.isArray(text) ? text.join('\n') : text}\n`);
    },
    note(text) {
      if (!json) io.stderr.write(`${text}\n`);
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

/** What an import did with records of retracted observations (docs/decisions.md, 105). */
export function retractedLines(o: { retracted: number; reinstated: number }): string[] {
  return [
    ...(o.retracted > 0
      ? [`  ${o.retracted} left out: retracted observation(s) (--reinstate writes them again)`]
      : []),
    ...(o.reinstated > 0 ? [`  ${o.reinstated} retracted observation(s) reinstated`] : []),
  ];
}

/** A retraction as `mds revisions` prints it: what was published, why, by whom, and whether it was lifted. */
export function retractionDoc(r: RetractionRecord) {
  const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    retractionId: r.id,
    kind: r.kind,
    ...(r.kind === 'rates' ? { currency: r.code, source: r.source } : { purity: r.code }),
    updatedAt: new Date(r.updatedAt).toISOString(),
    published: { buy: microsToNumber(r.buy), sell: microsToNumber(r.sell) },
    reason: r.reason,
    actor: r.actor,
    retractedAt: new Date(r.retractedAt).toISOString(),
    reinstatedBy: r.reinstatedBy,
    reinstatedAt: isoOrNull(r.reinstatedAt),
  };
}

export function retractionLine(r: RetractionRecord): string {
  const what = r.kind === 'rates' ? `${r.code} ${r.source}` : `gold ${r.code}`;
  const lifted = r.reinstatedBy === null ? '' : ` (reinstated by ${r.reinstatedBy})`;
  return (
    `${what} at ${new Date(r.updatedAt).toISOString()}: retracted buy ${microsToNumber(r.buy)}, ` +
    `sell ${microsToNumber(r.sell)} by ${r.actor.label}: ${r.reason}${lifted}`
  );
}

/** A revision as the CLI prints it: amounts as decimal numbers, instants as ISO 8601 (decisions 51). */
export function revisionDoc(r: RevisionRecord) {
  return {
    importId: r.importId,
    kind: r.kind,
    ...(r.kind === 'rates' ? { currency: r.code, source: r.source } : { purity: r.code }),
    updatedAt: new Date(r.updatedAt).toISOString(),
    old: { buy: microsToNumber(r.old.buy), sell: microsToNumber(r.old.sell) },
    new: { buy: microsToNumber(r.new.buy), sell: microsToNumber(r.new.sell) },
    revisedAt: new Date(r.revisedAt).toISOString(),
  };
}

/** One line for a revision: the series and instant, then each value that changed. */
export function revisionLine(r: RevisionRecord): string {
  const what = r.kind === 'rates' ? `${r.code} ${r.source}` : `gold ${r.code}`;
  const side = (name: 'buy' | 'sell') =>
    r.old[name] === r.new[name]
      ? `${name} ${microsToNumber(r.new[name])}`
      : `${name} ${microsToNumber(r.old[name])} -> ${microsToNumber(r.new[name])}`;
  return `${what} at ${new Date(r.updatedAt).toISOString()}: ${side('buy')}, ${side('sell')}`;
}
