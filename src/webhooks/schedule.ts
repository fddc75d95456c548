/**
 * When a failed webhook delivery is tried again. The default is the schedule
 * Standard Webhooks recommends (Svix's): at once, then after 5 seconds, 5
 * minutes, 30 minutes, 2, 5, 10 and 10 hours, eight attempts spanning more
 * than a day, so a receiver down overnight still gets its messages. After the
 * last failure the caller disables the subscription.
 *
 * Each delay counts from the previous attempt and moves by up to ±10 %, so
 * the messages that failed together during an outage do not all come back in
 * the same second. MDS_WEBHOOK_RETRY_SCHEDULE replaces the delays (tests use
 * milliseconds).
 */
import { defaultOf } from '../config/environment.js';

export const DEFAULT_RETRY_SCHEDULE = defaultOf('MDS_WEBHOOK_RETRY_SCHEDULE');

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const ENTRY = /^(\d+)(ms|s|m|h)?$/;
const JITTER = 0.1;

export type ParsedSchedule = { ok: true; delaysMs: number[] } | { ok: false; problem: string };

/**
 * The delays of a schedule such as `0,5s,5m,30m,2h,5h,10h,10h`: one entry per
 * attempt, a whole number and a unit (ms, s, m or h; 0 needs none), the first
 * 0 since a message's first attempt is not a retry.
 */
export function parseSchedule(text: string): ParsedSchedule {
  const expected = `expected comma-separated delays, a whole number and ms, s, m or h each, the first 0, such as ${DEFAULT_RETRY_SCHEDULE}`;
  const entries = text.split(',').map((entry) => entry.trim());
  const delaysMs: number[] = [];
  for (const [index, entry] of entries.entries()) {
    const match = ENTRY.exec(entry);
    const amount = match === null ? Number.NaN : Number(match[1]);
    const unit = match?.[2];
    if (match === null || (unit === undefined && amount !== 0) || !Number.isSafeInteger(amount)) {
      return {
        ok: false,
        problem: `retry schedule entry ${index + 1} "${entry}" in "${text}" is not a delay: ${expected}`,
      };
    }
    delaysMs.push(amount * UNIT_MS[unit ?? 'ms']!);
  }
  if (delaysMs[0] !== 0) {
    return { ok: false, problem: `retry schedule "${text}" starts with ${entries[0]}, not 0: ${expected}` };
  }
  return { ok: true, delaysMs };
}

/** The default schedule's delays, in milliseconds. */
export const DEFAULT_DELAYS_MS: readonly number[] = (
  parseSchedule(DEFAULT_RETRY_SCHEDULE) as { delaysMs: number[] }
).delaysMs;

/**
 * When the next attempt is due (epoch ms), after `attemptsMade` attempts, the
 * last at `lastAttemptAt` (for the first attempt: when the message was
 * queued); null when the schedule is exhausted.
 */
export function nextAttemptAt(
  delaysMs: readonly number[],
  attemptsMade: number,
  lastAttemptAt: number,
  random: () => number = Math.random,
): number | null {
  const delay = delaysMs[attemptsMade];
  if (delay === undefined) return null;
  const jittered = delay * (1 + (random() * 2 - 1) * JITTER);
  return lastAttemptAt + Math.max(0, Math.round(jittered));
}
