/**
 * Webhook events and rate alerts (docs/decisions.md, 68; docs/webhooks.md):
 * the event types (their payloads: webhook-events.ts), the ids, and a
 * subscription's alert condition, judged on the latest rates. Pure: the
 * store decides when an alert is evaluated, this module what it says.
 */
import { randomBytes } from 'node:crypto';
import { microsToNumber, parseMicros, percentChange } from './decimal.js';
import { type RateObservation, SOURCES, type Source } from './types.js';

export const EVENT_TYPES = [
  'usage.threshold',
  'key.created',
  'key.revoked',
  'key.expiring',
  'grant.updated',
  'data.imported',
  'data.retracted',
  'data.stale',
  'data.fresh',
  'rate.alert',
  'reporter.flagged',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const random = (bytes: number) => randomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x');
let lastAt = -1;
let sequence = 0;
/**
 * Event ids sort by time, then by the order this process wrote them within
 * the same millisecond: `evt_` + the time in base 36 + a counter (3 digits of
 * base 36) + random letters. A subscription's deliveries go out in that order
 * (decisions 95): the 80 % threshold before the 100 % one written with it.
 */
export function newEventId(at: number): string {
  sequence = at === lastAt ? sequence + 1 : 0;
  lastAt = at;
  const counter = (sequence % 36 ** 3).toString(36).padStart(3, '0');
  return `evt_${at.toString(36).padStart(9, '0')}${counter}${random(9).slice(0, 9)}`;
}
export const newSubscriptionId = (): string => `whk_${random(12)}`;

/** The quotas' thresholds, in percent of the monthly limit. */
export const USAGE_THRESHOLDS = [80, 100] as const;

/** The requests at which a grant reaches `percent` of `limit`: the limit times the percent, rounded up. */
export const thresholdCount = (limit: number, percent: number): number => Math.ceil((limit * percent) / 100);
/** `key.expiring` is sent this long before a key's expiry. */
export const KEY_EXPIRING_NOTICE_MS = 7 * 86_400_000;

/**
 * A rate alert: "parallel EUR sell at or above 270" is
 * `{ metric: 'rate', currency: 'EUR', source: 'parallel', side: 'sell', above: '270' }`;
 * "EUR premium percent (sell) at or above 75" is
 * `{ metric: 'premium', currency: 'EUR', side: 'sell', above: '75' }`.
 * Exactly one of `above` (at or above) and `below` (at or below).
 */
export interface AlertFilter {
  metric: 'rate' | 'premium';
  currency: string;
  /** Rates only: the source family. */
  source?: Source;
  side: 'buy' | 'sell';
  above?: string;
  below?: string;
}

/** The problems of a filter as a client sent it, each naming the field and the fix. */
export function filterProblems(f: AlertFilter): string[] {
  const problems: string[] = [];
  if (f.metric === 'rate' && f.source === undefined) {
    problems.push(`filter.source is required for a rate alert: one of ${SOURCES.join(', ')}`);
  }
  if (f.metric === 'premium' && f.source !== undefined) {
    problems.push(
      'filter.source is not used by a premium alert (the premium is parallel over official): remove it',
    );
  }
  if ((f.above === undefined) === (f.below === undefined)) {
    problems.push('give exactly one of filter.above (at or above) and filter.below (at or below)');
  }
  const level = f.above ?? f.below;
  if (level !== undefined && thresholdOf(f) === null) {
    problems.push(
      f.metric === 'rate'
        ? `filter level "${level}" is not a rate: a non-negative decimal with at most 6 places, such as "270.5"`
        : `filter level "${level}" is not a percent: a decimal such as "75" or "-2.5"`,
    );
  }
  return problems;
}

/** The level in the unit compared: micro-DZD for a rate, percent for a premium. */
function thresholdOf(f: AlertFilter): number | null {
  const level = f.above ?? f.below;
  if (level === undefined) return null;
  if (f.metric === 'rate') return parseMicros(level);
  return /^-?\d{1,6}(\.\d{1,4})?$/.test(level.trim()) ? Number(level) : null;
}

/** What an alert reads now: its value, or null when the series it needs is missing. */
export function alertValue(
  f: AlertFilter,
  latest: (currency: string, source: Source) => RateObservation | undefined,
): AlertReading | null {
  if (f.metric === 'rate') {
    const r = latest(f.currency, f.source!);
    if (r === undefined) return null;
    return { compared: r[f.side], value: microsToNumber(r[f.side]), observedAt: r.updatedAt };
  }
  const parallel = latest(f.currency, 'parallel');
  const official = latest(f.currency, 'official');
  if (parallel === undefined || official === undefined || official[f.side] === 0) return null;
  const percent = percentChange(parallel[f.side], official[f.side]);
  return { compared: percent, value: percent, observedAt: Math.max(parallel.updatedAt, official.updatedAt) };
}

export interface AlertReading {
  /** In the unit of the level: micro-DZD for a rate, percent for a premium. */
  compared: number;
  /** As the event shows it: DZD or percent. */
  value: number;
  observedAt: number;
}

/** Whether the condition holds for what alertValue read. */
export function alertHolds(f: AlertFilter, reading: AlertReading): boolean {
  const level = thresholdOf(f);
  if (level === null) return false;
  return f.above !== undefined ? reading.compared >= level : reading.compared <= level;
}
