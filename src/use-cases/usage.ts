/**
 * Usage, read (docs/decisions.md 62): a grant's requests per UTC day, with
 * each key's, and the month's statement of every grant for invoices. Behind
 * `mds usage`, the admin API (/admin/v1/grants/{id}/usage/daily,
 * /admin/v1/usage/statement) and the customer's own `GET /v1/usage/daily`.
 * The counts are the usage commit's (limits/usage-recorder.ts): a unit is
 * counted once its request was let through and its batch committed, and a
 * unit given back (a request we then failed to answer) is not counted.
 */
import { type DayWindow, daysOf, dayWindow, month } from '../domain/usage-window.js';
import type { Store } from '../storage/store.js';
import type { Actor, Result } from './contract.js';
import { invalid, notFound, refusing } from './rules.js';
import { iso } from './views.js';

export interface DailyUsageInput {
  grantId: string;
  /** `YYYY-MM-DD`; default: the first day of `to`'s month. */
  from?: string | undefined;
  /** `YYYY-MM-DD`, inclusive; default: today (UTC). */
  to?: string | undefined;
}

export interface DailyUsageDay {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The grant's requests that day: the sum of its keys'. */
  requests: number;
  /** The keys that made requests that day, by public id. */
  keys: Array<{ publicId: string; requests: number }>;
}

export interface DailyUsageView {
  grantId: string;
  from: string;
  to: string;
  /** The requests of the whole window. */
  requests: number;
  /** Every day of the window, oldest first; a day without requests has 0 and no keys. */
  days: DailyUsageDay[];
}

export interface StatementLineView {
  account: { id: string; externalId: string | null };
  grant: {
    id: string;
    plan: string;
    provider: string;
    externalId: string | null;
    /** Its status now. */
    status: 'active' | 'suspended' | 'cancelled';
    /** When it was cancelled (ISO 8601), null unless it is. */
    cancelledAt: string | null;
  };
  /** Requests counted in the month. */
  requestsUsed: number;
  /** The grant's monthly limit as it is now. */
  monthlyRequestLimit: number;
}

export interface StatementView {
  /** `YYYY-MM`. */
  month: string;
  /** Every grant created before the month ended, by account then grant id. */
  lines: StatementLineView[];
}

export interface UsageOptions {
  /** The clock of "today" and "this month" (tests pin it). */
  now?: number;
}

/** The window's problem as a refusal naming its parameter. */
function windowOf(input: { from?: string | undefined; to?: string | undefined }, now: number): DayWindow {
  const problems: Array<{ parameter?: string; message?: string }> = [];
  const window = dayWindow(input, now, problems);
  if (!window) throw invalid(problems[0]!.parameter!, problems[0]!.message!);
  return window;
}

/** A grant's requests per UTC day from `from` to `to`, with each key's. */
export function dailyUsage(
  store: Store,
  _actor: Actor,
  input: DailyUsageInput,
  options: UsageOptions = {},
): Promise<Result<DailyUsageView>> {
  return refusing(async () => {
    const window = windowOf(input, options.now ?? Date.now());
    const grant = await store.access.getGrant(input.grantId);
    if (!grant) throw notFound(`no grant ${input.grantId}`);
    const used = new Map(
      (await store.usage.dailyUsage(grant.id, window.from, window.to)).map((d) => [d.day, d] as const),
    );
    let requests = 0;
    const days = daysOf(window).map((day): DailyUsageDay => {
      const d = used.get(day);
      if (!d) return { day, requests: 0, keys: [] };
      requests += d.total;
      return {
        day,
        requests: d.total,
        keys: d.keys.filter((k) => k.used !== 0).map((k) => ({ publicId: k.keyId, requests: k.used })),
      };
    });
    return { grantId: grant.id, ...window, requests, days };
  });
}

/** Every grant's use in a month (`YYYY-MM`; default: the current one), for invoices. */
export function statement(
  store: Store,
  _actor: Actor,
  input: { month?: string | undefined } = {},
  options: UsageOptions = {},
): Promise<Result<StatementView>> {
  return refusing(async () => {
    const problems: Array<{ parameter?: string; message?: string }> = [];
    const period = month(input.month, options.now ?? Date.now(), problems);
    if (period === null) throw invalid('month', problems[0]!.message!);
    const lines = await store.usage.monthlyStatement(period);
    return {
      month: period,
      lines: lines.map((l) => ({
        account: { id: l.accountId, externalId: l.accountExternalId },
        grant: {
          id: l.grantId,
          plan: l.plan,
          provider: l.provider,
          externalId: l.grantExternalId,
          status: l.status,
          cancelledAt: iso(l.cancelledAt),
        },
        requestsUsed: l.used,
        monthlyRequestLimit: l.monthlyRequestLimit,
      })),
    };
  });
}
