/**
 * The report of an import's problems (docs/decisions.md 93): every problem
 * found in one pass, grouped so that a file of 300,000 bad rows gives a few
 * lines, not 300,000. Problems of one kind on consecutive rows (no row
 * between them free of that kind) form a group, shown by its line range,
 * its count and its first message; at most 100 groups are listed, then the
 * count of each kind.
 */
import {
  type ImportRefusal,
  MAX_GROUPS,
  type ProblemGroup,
  type ProblemListing,
} from '../schemas/import-report.js';
import type { ParseResult } from './parse.js';
import type { ImportProblem } from './records.js';

/** Where a group is: `line 7`, or `lines 2–41 (40 problems)`. */
export function groupWhere(g: ProblemGroup): string {
  if (g.count === 1) return `line ${g.line}`;
  const lines = g.line === g.lastLine ? `line ${g.line}` : `lines ${g.line}–${g.lastLine}`;
  return `${lines} (${g.count} problems)`;
}

/** The listing as text lines (the CLI's): the groups, then the counts by kind when some are not listed. */
export function listingLines(l: ProblemListing, noun = 'problems'): string[] {
  const out = l.groups.map((g) => `${groupWhere(g)}: ${g.message}`);
  if (l.groupsNotListed > 0) {
    out.push(`… and ${l.groupsNotListed} more group(s); ${noun} by kind:`);
    for (const k of l.byKind) out.push(`  ${k.count} × ${k.kind}`);
    if (l.kindsNotListed > 0) out.push(`  … and ${l.kindsNotListed} more kind(s)`);
  }
  return out;
}

/** Index of `line` in the sorted `rows`, or of the first row after it. */
function rankOf(rows: readonly number[], line: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((rows[mid] as number) < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The sorted distinct union of two sorted lists of lines. */
function merge(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && (a[i] as number) <= (b[j] as number)) ? a[i++] : b[j++];
    if (out.length === 0 || out[out.length - 1] !== x) out.push(x as number);
  }
  return out;
}

/**
 * The listing of `problems` (each with its kind). `rowLines` are the lines
 * of the input's other rows (its records), sorted: a group runs on while the
 * next row holds a problem of its kind.
 */
export function listProblems(
  problems: readonly ImportProblem[],
  rowLines: readonly number[],
): ProblemListing {
  const inOrder = problems.every((p, i) => i === 0 || (problems[i - 1] as ImportProblem).line <= p.line);
  const sorted = inOrder ? problems : [...problems].sort((a, b) => a.line - b.line);
  const problemLines = merge(
    sorted.map((p) => p.line),
    [],
  );
  const rows = sorted.length === 0 ? [] : merge(rowLines, problemLines);
  const groups: Array<ProblemGroup & { rank: number }> = [];
  const open = new Map<string, ProblemGroup & { rank: number }>();
  const byKind = new Map<string, number>();
  for (const p of sorted) {
    const kind = p.kind ?? p.message;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    const rank = rankOf(rows, p.line);
    const g = open.get(kind);
    if (g !== undefined && (g.rank === rank || g.rank + 1 === rank)) {
      g.lastLine = p.line;
      g.count++;
      g.rank = rank;
      continue;
    }
    const started = { line: p.line, lastLine: p.line, count: 1, kind, message: p.message, rank };
    groups.push(started);
    open.set(kind, started);
  }
  const kinds = [...byKind].sort((a, b) => b[1] - a[1]).map(([kind, count]) => ({ kind, count }));
  return {
    count: sorted.length,
    lines: problemLines.length,
    groups: groups.slice(0, MAX_GROUPS).map(({ rank: _, ...g }) => g),
    groupsNotListed: Math.max(0, groups.length - MAX_GROUPS),
    byKind: kinds.slice(0, MAX_GROUPS),
    kindsNotListed: Math.max(0, kinds.length - MAX_GROUPS),
  };
}

/** What a file held besides its records and problems, as both reports carry it. */
export function importNotes(parsed: ParseResult, problems: readonly ImportProblem[] = []) {
  const rowLines =
    problems.length === 0
      ? parsed.lines
      : merge(
          parsed.lines,
          [...new Set(problems.map((p) => p.line))].sort((a, b) => a - b),
        );
  return {
    duplicateRows: listProblems(parsed.duplicates, rowLines),
    emptyRows: parsed.emptyRows,
    emptyColumns: parsed.emptyColumns,
  };
}

/** The report of a refused import: every problem, grouped, and the notes. */
export function refusal(parsed: ParseResult, problems: readonly ImportProblem[]): ImportRefusal {
  return {
    problems: listProblems(
      problems,
      merge(
        parsed.lines,
        parsed.duplicates.map((d) => d.line),
      ),
    ),
    ...importNotes(parsed, problems),
  };
}

/** The notes as text lines (the CLI's): the repeated rows, and what was ignored. */
export function notesLines(notes: ReturnType<typeof importNotes>): string[] {
  const out: string[] = [];
  const d = notes.duplicateRows;
  if (d.count > 0) {
    out.push(`${d.count} row(s) repeat an earlier row exactly and were read once:`);
    for (const line of listingLines(d, 'rows')) out.push(`  ${line}`);
  }
  const ignored = [
    notes.emptyRows > 0 ? `${notes.emptyRows} empty row(s)` : '',
    notes.emptyColumns > 0 ? `${notes.emptyColumns} empty column(s)` : '',
  ].filter((s) => s !== '');
  if (ignored.length > 0) out.push(`ignored ${ignored.join(' and ')}`);
  return out;
}

/** A refusal as text lines (the CLI's): the problems, then the notes. */
export function refusalLines(r: ImportRefusal): string[] {
  return [...listingLines(r.problems), ...notesLines(r)];
}
