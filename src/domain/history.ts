/**
 * History windows and cursors (decisions §7, §9). A first page resolves the
 * window from `from`/`to` and today's date; the cursor then carries that resolved
 * window, so a client paging across midnight keeps a consistent window. The
 * cursor's MAC binds it to the endpoint and the filters as the client sent them.
 */
import type { CursorCodec } from './cursor.js';
import { DAY_MS, parseDate, startOfDay } from './dates.js';
import type { Problem } from './problems.js';

export const MAX_WINDOW_DAYS = 366;
export const DEFAULT_WINDOW_DAYS = 30;

export interface HistoryWindow {
  /** 00:00:00.000Z of the first day. */
  from: number;
  /** 23:59:59.999Z of the last day. */
  to: number;
  /** Keyset position from the cursor, if any. */
  position: number[] | null;
}

export interface WindowParams {
  from?: string;
  to?: string;
  cursor?: string;
}

/**
 * Which of the window's cross-field rules can run: each needs the parameters
 * it reads to have passed their own rules, whatever else is wrong with the
 * request (decisions §6: every problem is reported at once).
 */
export interface WindowChecks {
  /** `from` and `to` are absent or passed their own rules. */
  dates: boolean;
  /** Every filter the cursor is bound to (`from` and `to` aside) passed its own rule. */
  filters: boolean;
}

/**
 * Resolves the window; pushes problems for bad dates, an inverted or oversized
 * window, or a cursor that this endpoint did not issue for these filters.
 * `scope` names the endpoint and its filters; `positionLength` is the cursor's arity;
 * `maxDays` the longest window (366, or 3,660 with `interval`: decisions 129).
 * Returns null whenever it pushed a problem or could not judge the cursor.
 */
export function resolveWindow(
  params: WindowParams,
  scope: string,
  codec: CursorCodec,
  positionLength: number,
  now: number,
  problems: Problem[],
  checks: WindowChecks = { dates: true, filters: true },
  maxDays: number = MAX_WINDOW_DAYS,
): HistoryWindow | null {
  if (!checks.dates) return null;
  const before = problems.length;
  let from: number | null = null;
  let to: number | null = null;
  if (params.from !== undefined) {
    from = parseDate(params.from);
    if (from === null) pushOnce(problems, 'from', 'must be a real calendar date as YYYY-MM-DD');
  }
  if (params.to !== undefined) {
    to = parseDate(params.to);
    if (to === null) pushOnce(problems, 'to', 'must be a real calendar date as YYYY-MM-DD');
  }
  if (problems.length > before) return null;

  // A cursor is bound to the filters as sent: with one of them broken it can be
  // neither accepted nor refused, so it is left for the client's next attempt.
  if (params.cursor !== undefined && checks.filters) {
    const decoded = codec.decode(`${scope}|${params.from ?? ''}|${params.to ?? ''}`, params.cursor);
    if (decoded && decoded.length === positionLength + 2) {
      // An accepted cursor carries the window of its first page (docs/decisions.md 6):
      // the window rules were applied then, against that day's date.
      const [f, t, ...position] = decoded as [number, number, ...number[]];
      return { from: f, to: t, position };
    }
    problems.push({
      parameter: 'cursor',
      message: 'must be a cursor returned in meta.nextCursor for the same filters',
    });
  }

  // The first page's window, or the one of a cursor not accepted: its rules are
  // broken whatever the cursor would have said (docs/decisions.md 11b).
  const lastDay = to ?? startOfDay(now);
  const firstDay = from ?? lastDay - DEFAULT_WINDOW_DAYS * DAY_MS;
  if (firstDay > lastDay) {
    problems.push({ parameter: 'from', message: 'must not be after `to`' });
    return null;
  }
  if ((lastDay - firstDay) / DAY_MS + 1 > maxDays) {
    problems.push({
      parameter: 'from',
      message: `the window from \`from\` to \`to\` must not exceed ${maxDays} days`,
    });
    return null;
  }
  if (params.cursor !== undefined) return null;
  return { from: firstDay, to: lastDay + DAY_MS - 1, position: null };
}

/** The cursor for the page after the one ending at `position`. */
export function nextCursor(
  params: WindowParams,
  scope: string,
  codec: CursorCodec,
  window: HistoryWindow,
  position: number[],
): string {
  return codec.encode(`${scope}|${params.from ?? ''}|${params.to ?? ''}`, [
    window.from,
    window.to,
    ...position,
  ]);
}

function pushOnce(problems: Problem[], parameter: string, message: string) {
  if (!problems.some((p) => p.parameter === parameter)) problems.push({ parameter, message });
}
