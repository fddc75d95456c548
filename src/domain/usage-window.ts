/**
 * The windows of the usage reads (docs/decisions.md 62): a run of UTC days for
 * the daily usage, a calendar month for the statement. Pure rules shared by
 * `GET /v1/usage/daily` (its refinement, so a bad window is a 400 that costs
 * nothing), the operations behind the admin API and the CLI.
 */
import { DAY_MS, monthPeriod, parseDate, startOfDay } from './dates.js';
import { MAX_WINDOW_DAYS } from './history.js';
import type { Problem } from './problems.js';

export interface DayWindow {
  /** The first day, `YYYY-MM-DD`. */
  from: string;
  /** The last day (inclusive), `YYYY-MM-DD`. */
  to: string;
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `from` and `to` (inclusive, `YYYY-MM-DD`) as a window of at most 366 days.
 * Without `to`: today (UTC); without `from`: the first day of `to`'s month, so
 * that no parameter at all means the current month so far. Pushes one problem
 * naming the parameter and returns null when a rule is broken.
 */
export function dayWindow(
  given: { from?: string | undefined; to?: string | undefined },
  now: number,
  problems: Problem[],
): DayWindow | null {
  const before = problems.length;
  const read = (name: 'from' | 'to') => {
    const text = given[name];
    if (text === undefined) return undefined;
    const ms = parseDate(text);
    if (ms === null)
      problems.push({ parameter: name, message: 'must be a real calendar date as YYYY-MM-DD' });
    return ms ?? undefined;
  };
  const from = read('from');
  const to = read('to');
  if (problems.length > before) return null;
  const lastDay = to ?? startOfDay(now);
  const firstDay = from ?? monthPeriod(lastDay).start;
  if (firstDay > lastDay) {
    const last = to === undefined ? ` (today, ${dayText(lastDay)}, when \`to\` is absent)` : '';
    problems.push({ parameter: 'from', message: `must not be after \`to\`${last}` });
    return null;
  }
  if ((lastDay - firstDay) / DAY_MS + 1 > MAX_WINDOW_DAYS) {
    problems.push({
      parameter: 'from',
      message: `the window from \`from\` to \`to\` must not exceed ${MAX_WINDOW_DAYS} days`,
    });
    return null;
  }
  return { from: dayText(firstDay), to: dayText(lastDay) };
}

/** Every day of a window, oldest first. */
export function daysOf(window: DayWindow): string[] {
  const out: string[] = [];
  const last = Date.parse(`${window.to}T00:00:00Z`);
  for (let t = Date.parse(`${window.from}T00:00:00Z`); t <= last; t += DAY_MS) out.push(dayText(t));
  return out;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A calendar month `YYYY-MM`, or the month of `now` when absent; null (and a problem) when malformed. */
export function month(given: string | undefined, now: number, problems: Problem[]): string | null {
  if (given === undefined) return monthPeriod(now).key;
  if (!MONTH.test(given)) {
    problems.push({ parameter: 'month', message: 'must be a calendar month as YYYY-MM, such as 2027-01' });
    return null;
  }
  return given;
}
