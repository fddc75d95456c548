/**
 * What the bench asks the service for: one scenario per URL, over the last
 * year of the sample (bench/run.ts loads them; bench/pipeline.ts serves them
 * before it measures, as a server in use has served them).
 */
import { DAY_MS } from '../src/domain/dates.js';
import type { TargetName } from './load.js';
import type { SCENARIO_IDS } from './options.js';

/** The sample's last day: yesterday (UTC), so that every window the scenarios ask for is whole. */
export function benchEndDate(now = Date.now()): string {
  return new Date(now - DAY_MS).toISOString().slice(0, 10);
}

/** The day a year before `endDate`: the start of the history scenarios' window. */
function yearBefore(endDate: string): string {
  return new Date(Date.parse(endDate) - 365 * DAY_MS).toISOString().slice(0, 10);
}

/** The first history page, whose `meta.nextCursor` the cursor scenario asks for. */
export function firstHistoryPage(endDate: string): string {
  return historyUrl(endDate, yearBefore(endDate));
}

/** The cursor of a history page's next one (the first page must have one). */
export function nextCursorOf(body: Buffer): string {
  const cursor = (JSON.parse(body.toString('utf8')) as { meta?: { nextCursor?: unknown } }).meta?.nextCursor;
  if (typeof cursor !== 'string') throw new Error('history: no meta.nextCursor in the first page');
  return cursor;
}

export interface Scenario {
  id: (typeof SCENARIO_IDS)[number];
  title: string;
  url: string;
  /** References a target of docs/decisions.md 78 compares this scenario with (quick mode loads only those). */
  compared: TargetName[];
  /** Also loads `node:http, same headers`: how near Node's limit the pipeline is, with what the answer must carry. */
  sameHeaders?: true;
}

export function scenarios(endDate: string, nextCursor: string): Scenario[] {
  const from = yearBefore(endDate);
  const history = historyUrl(endDate, from);
  return [
    {
      id: 'latest',
      title: '/v1/rates/latest (every parallel asset)',
      url: '/v1/rates/latest',
      compared: ['node:http', 'fastify'],
      sameHeaders: true,
    },
    {
      id: 'latest-eur-usd',
      title: '/v1/rates/latest?currency=EUR,USD',
      url: '/v1/rates/latest?currency=EUR,USD',
      compared: [],
    },
    { id: 'premium', title: '/v1/market/premium', url: '/v1/market/premium', compared: [] },
    { id: 'history', title: '/v1/rates/history, first page (250)', url: history, compared: ['node:http'] },
    {
      id: 'history-cursor',
      title: '/v1/rates/history, cursor page',
      url: `${history}&cursor=${encodeURIComponent(nextCursor)}`,
      compared: [],
    },
    {
      id: 'premium-history',
      title: '/v1/market/premium/history, first page (250)',
      url: premiumHistoryUrl(endDate, from),
      compared: ['node:http'],
    },
    { id: 'gold', title: '/v1/gold/latest', url: '/v1/gold/latest', compared: [] },
    { id: 'me', title: '/v1/me', url: '/v1/me', compared: [] },
  ];
}

/** One currency over 366 days (both ends included) ending yesterday, 250 records a page. */
function historyUrl(endDate: string, from: string): string {
  return `/v1/rates/history?currency=EUR&from=${from}&to=${endDate}&limit=250`;
}

/** The premium of the same currency and window: one item a day, 250 a page. */
function premiumHistoryUrl(endDate: string, from: string): string {
  return `/v1/market/premium/history?currency=EUR&from=${from}&to=${endDate}&limit=250`;
}
