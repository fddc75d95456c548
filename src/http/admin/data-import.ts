/**
 * What POST /admin/v1/data/{kind} reads from its query besides the checks
 * (how the body's dates are read) and how it answers a refused import: in the
 * admin envelope, one detail per group of problems (at most 100) and the
 * whole report as `error.report` (docs/decisions.md 93), the same report
 * `mds import --json` prints. Its size is bounded whatever the body holds.
 */
import type { ParseOptions } from '../../import/parse.js';
import { groupWhere } from '../../import/report.js';
import type { ImportError } from '../../import/run.js';
import { type DateOrder, timeZoneProblem } from '../../import/timestamps.js';
import { ApiError, invalidParameters } from '../errors.js';

/** The body's local times: the zone they are in and the order of a day-first date (as `--timezone`, `--date-order`). */
export function parseOptionsOf(query: { timezone?: string; dateOrder?: DateOrder }): ParseOptions {
  const problem = query.timezone === undefined ? null : timeZoneProblem(query.timezone);
  if (problem !== null) throw invalidParameters([{ parameter: 'timezone', message: problem }]);
  return { timezone: query.timezone, dateOrder: query.dateOrder };
}

/** A refused import as a 400 `invalid_request`. */
export function importRefused(err: ImportError): ApiError {
  const groups = err.report?.problems.groups ?? [];
  return new ApiError(
    400,
    'invalid_request',
    groups.map((g) => ({ parameter: groupWhere(g), message: g.message })),
    undefined,
    err.message,
    err.report,
  );
}
