import type { ImportProblem } from '../../src/import/records.js';

/** Problems as lines and messages, without the kind the report groups by (src/import/report.ts). */
export const plain = (problems: readonly ImportProblem[]) =>
  problems.map(({ line, message }) => ({ line, message }));

interface Group {
  line: number;
  message: string;
}

/**
 * A CLI error document with its report's groups as `problems` of a line and a
 * message each: how the tests written before grouping (decisions 93) read it.
 * A group of several lines keeps its first.
 */
// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document, as CliResult.errorJson gives it
export function asListed(doc: any): any {
  const report: { problems: { groups: Group[] } } | undefined = doc.error?.report;
  if (report === undefined) return doc;
  const { report: _, ...error } = doc.error;
  return {
    error: { ...error, problems: report.problems.groups.map(({ line, message }) => ({ line, message })) },
  };
}
