/**
 * A page of intervals (docs/decisions.md 128–130), on SQLite and PostgreSQL:
 * `mds serve` pinned to the server's core holds the sample and one more
 * parallel series, `XBN`: 10 years of daily observations (12:00Z), then a
 * year of hourly ones. This process asks, one request at a time, for the
 * first page of `/v1/rates/history?interval=…` over the longest window
 * (3,660 days ending yesterday), day, week and month in turn; each request
 * has a `limit` of its own, so no page is served from the page cache of the
 * data version and every one is grouped by the database. Judged on the
 * median of the time to the whole answer; p99 reported.
 */
import { DAY_MS } from '../src/domain/dates.js';
import { MAX_INTERVAL_WINDOW_DAYS } from '../src/domain/intervals.js';
import type { RateObservation } from '../src/domain/types.js';
import type { SampleData } from '../src/sample/generate.js';
import { median } from './load.js';
import { type CpuPlan, httpGet, stop } from './proc.js';
import { startService } from './service.js';
import { freshSchema, prepare } from './setup.js';

export const INTERVALS_TARGET_MS = 50;

const CODE = 'XBN';
const HOUR_MS = 3_600_000;

export interface IntervalsResult {
  /** Observations of the series: daily, then hourly. */
  observations: number;
  requests: number;
  medianMs: number;
  p99Ms: number;
  /** Median per interval kind. */
  byInterval: Record<string, number>;
}

export type IntervalsReport = { sqlite?: IntervalsResult; postgres?: IntervalsResult };

/** 10 years of one observation a day at 12:00Z, then the last year hourly, up to `end` (exclusive). */
function series(end: number): RateObservation[] {
  const out: RateObservation[] = [];
  const hourlyFrom = end - 365 * DAY_MS;
  const first = end - 3650 * DAY_MS;
  let k = 0;
  const push = (at: number) => {
    // A slow wave around 250 DZD, so that highs and lows differ from opens and closes.
    const buy = 250_000_000 + Math.round(Math.sin(k++ / 37) * 5_000_000);
    out.push({ currency: CODE, source: 'parallel', buy, sell: buy + 3_000_000, updatedAt: at });
  };
  for (let at = first + 12 * HOUR_MS; at < hourlyFrom; at += DAY_MS) push(at);
  for (let at = hourlyFrom; at < end; at += HOUR_MS) push(at);
  return out;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
const tenth = (n: number) => Math.round(n * 10) / 10;

async function measure(
  url: string,
  o: { sample: SampleData; endDate: string; cpus: CpuPlan; requests: number },
): Promise<IntervalsResult> {
  const end = Date.parse(`${o.endDate}T00:00:00Z`) + DAY_MS;
  const records = series(end);
  const prepared = await prepare(url, o.sample, async (store) => {
    await store.imports.import({
      kind: 'assets',
      records: [{ code: CODE, symbol: CODE, type: 'currency', names: { en: CODE, fr: CODE, ar: CODE } }],
    });
    await store.imports.import({ kind: 'rates', records });
  });
  const service = await startService(prepared.url, prepared.key, o.cpus.server);
  const from = new Date(end - MAX_INTERVAL_WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
  const headers = { authorization: `Bearer ${prepared.key}` };
  const all: number[] = [];
  const byInterval: Record<string, number[]> = { day: [], week: [], month: [] };
  try {
    for (let i = 0; i < o.requests; i++) {
      const interval = (['day', 'week', 'month'] as const)[i % 3]!;
      // 100 to 1000, each limit once per interval: a page the cache has not kept.
      const limit = 100 + Math.floor(i / 3);
      const path = `/v1/rates/history?currency=${CODE}&from=${from}&to=${o.endDate}&interval=${interval}&limit=${limit}`;
      const t0 = performance.now();
      const res = await httpGet(`${service.origin}${path}`, headers);
      const ms = performance.now() - t0;
      if (res.status !== 200)
        throw new Error(`bench: ${path} answered ${res.status}: ${res.body.toString()}`);
      all.push(ms);
      byInterval[interval]!.push(ms);
    }
  } finally {
    await stop(service.proc);
  }
  const sorted = [...all].sort((a, b) => a - b);
  const med = (xs: number[]) => tenth(median([...xs].sort((a, b) => a - b)));
  return {
    observations: records.length,
    requests: all.length,
    medianMs: med(all),
    p99Ms: tenth(percentile(sorted, 0.99)),
    byInterval: Object.fromEntries(Object.entries(byInterval).map(([k, xs]) => [k, med(xs)])),
  };
}

export async function measureIntervals(o: {
  sample: SampleData;
  endDate: string;
  dir: string;
  postgresUrl: string | undefined;
  cpus: CpuPlan;
  quick: boolean;
  log: (line: string) => void;
}): Promise<IntervalsReport> {
  const report: IntervalsReport = {};
  const settings = { ...o, requests: o.quick ? 150 : 600 };
  o.log('bench: a page of intervals over 10 years, SQLite');
  report.sqlite = await measure(`${o.dir}/intervals.sqlite`, settings);
  if (o.postgresUrl) {
    o.log('bench: a page of intervals over 10 years, PostgreSQL');
    report.postgres = await measure(await freshSchema(o.postgresUrl, 'intervals'), settings);
  }
  return report;
}

type Figure = [measured: string, ok: boolean] | string | undefined;

/** The row's targets (docs/performance.md), as [target, required, figure]; `notScaled` when PostgreSQL did not run. */
export function intervalsTargets(
  r: IntervalsReport | undefined,
  notScaled: string | undefined,
): Array<[string, string, Figure]> {
  return (
    [
      ['SQLite', r?.sqlite],
      ['PostgreSQL', r?.postgres],
    ] as const
  ).map(([label, x]) => [
    `A page of /v1/rates/history?interval= (day, week, month) over 3,660 days: 10 years daily, 1 year hourly, ${label}, median`,
    `< ${INTERVALS_TARGET_MS} ms`,
    x
      ? [
          `${x.medianMs} ms (p99 ${x.p99Ms} ms; day ${x.byInterval.day}, week ${x.byInterval.week}, month ${x.byInterval.month} ms; ${x.requests} requests, ${x.observations.toLocaleString('en')} observations)`,
          x.medianMs < INTERVALS_TARGET_MS,
        ]
      : r && label === 'PostgreSQL'
        ? notScaled
        : undefined,
  ]);
}
