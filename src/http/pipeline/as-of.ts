/**
 * What the latest operations share for `at=` (decisions 123): the instant read
 * as an import reads `updatedAt` (import/timestamps.ts) and refused in the
 * future, and the answer kept in the data version's page cache as a history
 * page is, keyed by the observations it serves rather than by the instant:
 * every instant resolving to the same observations shares one entry.
 */
import { parseTimestamp } from '../../import/timestamps.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import type { ErrorDetail } from '../errors.js';
import type { Prepared, PreparedAnswer } from '../respond.js';
import { pagesOf } from './bodies.js';
import { historyPage } from './history.js';

/** What the refinement adds to a validated query with `at`: the instant, epoch ms. */
export interface AsOf {
  asOf?: number;
}

/** Reads `at` into `asOf`, or pushes a problem naming the value: unparseable, or after `now()`. */
export function checkAt(q: { at?: string } & AsOf, now: number, problems: ErrorDetail[]): void {
  if (q.at === undefined) return;
  // A `+` left unescaped in a query string arrives as a space: `…T09:00:00 01:00` means +01:00.
  const ms = parseTimestamp(q.at.replace(/ (\d{2}:\d{2})$/, '+$1'), Number.MAX_SAFE_INTEGER);
  if (typeof ms === 'string') problems.push({ parameter: 'at', message: `${ms}; got \`${q.at}\`` });
  else if (ms > now)
    problems.push({
      parameter: 'at',
      message: `must not be in the future: \`${q.at}\` is after ${new Date(now).toISOString()}`,
    });
  else q.asOf = ms;
}

/**
 * The answer of an instant, once the store said which observations it serves:
 * kept under `scope` and those observations (series and instant each; within
 * a data version they decide the previous day's and the quality too), or made
 * by `build` and kept. A client sending a new instant each time thus adds no
 * entry while the observations stay the same.
 */
export const asOfAnswer = (
  snapshot: MarketSnapshot,
  scope: string,
  served: readonly { series: string; updatedAt: number }[],
  build: () => Promise<Prepared>,
): Promise<PreparedAnswer> => {
  const key = `${scope}|${served.map((o) => `${o.series}@${o.updatedAt}`).join(',')}`;
  return historyPage(pagesOf(snapshot), key, null, build);
};
