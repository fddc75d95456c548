/**
 * Street quotes through the reporter API (docs/decisions.md 119), on SQLite
 * and PostgreSQL: `mds serve` with its admin listener, pinned to the server's
 * core, and this process, pinned to the other, as the reporters.
 *
 * - Quotes accepted per second: 16 reporters of 16 organisations, one request
 *   in flight each, post for the round's duration, in batches of 50 and one
 *   at a time, each POST with an Idempotency-Key as a reporter's program
 *   sends it, around the sample's latest parallel rates of 8 currencies.
 * - Quote to published observation: for each sample a currency no one has
 *   quoted (added to the asset directory), two organisations quote it, then a
 *   third's quote completes the quorum, so its publication is not deferred by
 *   the once-a-minute rule. Measured from that POST's start to its 201 (the
 *   observation is stored before the answer) and to the first
 *   /v1/rates/latest, polled every 10 ms, that serves it.
 */
import { execFileSync } from 'node:child_process';
import type { Asset } from '../src/domain/types.js';
import type { SampleData } from '../src/sample/generate.js';
import { SYSTEM_ACTOR } from '../src/storage/admin-records.js';
import type { Store } from '../src/storage/store.js';
import type { Result } from '../src/use-cases/contract.js';
import { createOrganisation, createReporter } from '../src/use-cases/reporters.js';
import { median } from './load.js';
import { type CpuPlan, freePort, sleep, stop } from './proc.js';
import { startService } from './service.js';
import { freshSchema, prepare } from './setup.js';

export const QUOTES_TARGETS = { batchQuotesPerSecond: 2_000, servedP99Ms: 1_000 } as const;

const REPORTERS = 16;
const BATCH = 50;
const MARKETS = ['EUR', 'USD', 'GBP', 'CAD', 'CHF', 'TRY', 'SAR', 'AED'];

export interface Throughput {
  quotesPerSecond: number;
  requestsPerSecond: number;
  /** Answers other than 201, and requests that failed (status 0). */
  errors: number;
  /** The errors by status. */
  statuses: Record<string, number>;
}

export interface QuotesResult {
  batches: Throughput;
  singles: Throughput;
  /** Quote to published observation, ms: to the quote's 201, and to /v1 serving it. */
  stored: { samples: number; medianMs: number; p99Ms: number };
  served: { samples: number; medianMs: number; p99Ms: number; lost: number };
}

export type QuotesReport = { sqlite?: QuotesResult; postgres?: QuotesResult };

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`bench: provisioning refused: ${r.error.message}`);
  return r.value;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
const tenth = (x: number) => Math.round(x * 10) / 10;

/** Fresh currencies, QAA, QAB… (skipping the directory's own, such as QAR), that no one has quoted: each gives one publication not deferred. */
const freshCodes = (n: number, taken: ReadonlySet<string>) => {
  const codes: string[] = [];
  for (let i = 0; codes.length < n; i++) {
    const code = `Q${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`;
    if (!taken.has(code)) codes.push(code);
  }
  return codes;
};

/** `count` reporters, each in an organisation of its own, allowed `markets`: their tokens. */
async function reporters(store: Store, label: string, count: number, markets: string[]): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const organisation = value(await createOrganisation(store, SYSTEM_ACTOR, { name: `${label} ${i}` }));
    const made = value(
      await createReporter(store, SYSTEM_ACTOR, {
        organisationId: organisation.id,
        label: `${label} ${i}`,
        markets,
      }),
    );
    tokens.push(made.token);
  }
  return tokens;
}

/** Pins this process (every thread) to `cpus`, the load generator's core; all cores back at the end. */
function pinSelf(cpus: string | undefined): () => void {
  if (!cpus) return () => {};
  const all = execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' })
    .split(':')
    .pop()!
    .trim();
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
  return () => execFileSync('taskset', ['-a', '-p', all, String(process.pid)], { stdio: 'ignore' });
}

async function post(origin: string, path: string, token: string, key: string, body: unknown) {
  const res = await fetch(`${origin}/report/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Every reporter posting, one request in flight each, for `seconds`. */
async function load(
  origin: string,
  tokens: string[],
  bases: Record<string, number>,
  perRequest: number,
  seconds: number,
  run: string,
): Promise<Throughput> {
  let [quotes, requests, errors] = [0, 0, 0];
  const statuses: Record<string, number> = {};
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    tokens.map(async (token, r) => {
      for (let n = 0; performance.now() < end; n++) {
        const items = Array.from({ length: perRequest }, (_, i) => {
          const market = MARKETS[(r + n + i) % MARKETS.length]!;
          // Within ±0.5 % of the last published value: never refused as a typo.
          const buy = Math.round(bases[market]! * (1 + 0.005 * Math.sin(r * 7 + n * 13 + i)) * 100) / 100;
          return { market, buy, sell: Math.round(buy * 101) / 100 };
        });
        const key = `${run}-${r}-${n}`;
        const status = await (perRequest === 1
          ? post(origin, '/quotes', token, key, items[0])
          : post(origin, '/quotes/batch', token, key, { quotes: items })
        ).catch(() => 0);
        requests++;
        if (status === 201) quotes += perRequest;
        else {
          errors++;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    quotesPerSecond: Math.round(quotes / elapsed),
    requestsPerSecond: Math.round(requests / elapsed),
    errors,
    statuses,
  };
}

/** Whether /v1/rates/latest serves a parallel rate of `currency`. */
async function served(origin: string, key: string, currency: string): Promise<boolean> {
  const res = await fetch(`${origin}/v1/rates/latest?currency=${currency}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) {
    await res.arrayBuffer();
    return false;
  }
  const body = (await res.json()) as { data?: Array<{ source?: string; sources?: Record<string, unknown> }> };
  return JSON.stringify(body.data ?? []).includes('"parallel"');
}

async function measure(
  url: string,
  o: { sample: SampleData; cpus: CpuPlan; seconds: number; warmup: number; samples: number },
): Promise<QuotesResult> {
  const codes = freshCodes(o.samples, new Set(o.sample.assets.map((a) => a.code)));
  const fresh: Asset[] = codes.map((code) => ({
    code,
    symbol: code,
    type: 'currency',
    names: { en: code, fr: code, ar: code },
  }));
  let tokens: string[] = [];
  let publishers: string[] = [];
  const bases: Record<string, number> = {};
  const prepared = await prepare(url, o.sample, async (store) => {
    await store.imports.import({ kind: 'assets', records: fresh });
    for (const r of await store.market.latestRates())
      if (r.source === 'parallel' && MARKETS.includes(r.currency)) bases[r.currency] = r.buy / 1_000_000;
    tokens = await reporters(store, 'load', REPORTERS, MARKETS);
    publishers = await reporters(store, 'quorum', 3, codes);
  });
  const adminPort = await freePort();
  const service = await startService(prepared.url, prepared.key, o.cpus.server, {
    MDS_ADMIN_PORT: String(adminPort),
    MDS_REPORT_RATE_LIMIT: '999999',
  });
  const admin = `http://127.0.0.1:${adminPort}`;
  const unpin = pinSelf(o.cpus.generator);
  try {
    await load(admin, tokens, bases, BATCH, o.warmup, 'warm');
    const batches = await load(admin, tokens, bases, BATCH, o.seconds, 'batch');
    const singles = await load(admin, tokens, bases, 1, o.seconds, 'single');
    const stored: number[] = [];
    const seen: number[] = [];
    for (const [i, market] of codes.entries()) {
      const quote = (k: number) => ({ market, buy: 100 + k / 10, sell: 101 + k / 10 });
      for (const k of [0, 1]) await post(admin, '/quotes', publishers[k]!, `q-${i}-${k}`, quote(k));
      const t0 = performance.now();
      const status = await post(admin, '/quotes', publishers[2]!, `q-${i}-2`, quote(2));
      if (status !== 201) throw new Error(`bench: the quorum's quote for ${market} answered ${status}`);
      stored.push(performance.now() - t0);
      const deadline = t0 + 10_000;
      while (performance.now() < deadline) {
        if (await served(service.origin, prepared.key, market)) {
          seen.push(performance.now() - t0);
          break;
        }
        await sleep(10);
      }
    }
    const figures = (ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return {
        samples: sorted.length,
        medianMs: tenth(median(sorted)),
        p99Ms: tenth(percentile(sorted, 0.99)),
      };
    };
    return {
      batches,
      singles,
      stored: figures(stored),
      served: { ...figures(seen), lost: codes.length - seen.length },
    };
  } finally {
    unpin();
    await stop(service.proc);
  }
}

export async function measureQuotes(o: {
  sample: SampleData;
  dir: string;
  postgresUrl: string | undefined;
  cpus: CpuPlan;
  seconds: number;
  warmup: number;
  quick: boolean;
  log: (line: string) => void;
}): Promise<QuotesReport> {
  const report: QuotesReport = {};
  const settings = { ...o, samples: o.quick ? 10 : 40 };
  o.log('bench: quotes through the reporter API, SQLite');
  report.sqlite = await measure(`${o.dir}/quotes.sqlite`, settings);
  if (o.postgresUrl) {
    o.log('bench: quotes through the reporter API, PostgreSQL');
    report.postgres = await measure(await freshSchema(o.postgresUrl, 'quotes'), settings);
  }
  return report;
}

const errorText = (t: Throughput) =>
  `${t.errors} errors${
    t.errors
      ? `: ${Object.entries(t.statuses)
          .map(([s, n]) => `${n} × ${s === '0' ? 'failed' : s}`)
          .join(', ')}`
      : ''
  }`;

type Figure = [measured: string, ok: boolean] | string | undefined;

/** The row's targets (docs/performance.md), as [target, required, figure]; `notScaled` when PostgreSQL did not run. */
export function quotesTargets(
  r: QuotesReport | undefined,
  notScaled: string | undefined,
): Array<[string, string, Figure]> {
  const t = QUOTES_TARGETS;
  const out: Array<[string, string, Figure]> = [];
  const int = (n: number) => Math.round(n).toLocaleString('en');
  for (const [label, x] of [
    ['SQLite', r?.sqlite],
    ['PostgreSQL', r?.postgres],
  ] as const) {
    const notRun = r && label === 'PostgreSQL' ? notScaled : undefined;
    out.push([
      `Quotes through /report/v1, ${label}: accepted per second in batches of ${BATCH}`,
      `≥ ${int(t.batchQuotesPerSecond)} quotes/s`,
      x
        ? [
            `${int(x.batches.quotesPerSecond)} quotes/s (${int(x.batches.requestsPerSecond)} requests/s, ${errorText(x.batches)})`,
            x.batches.quotesPerSecond >= t.batchQuotesPerSecond && x.batches.errors === 0,
          ]
        : notRun,
    ]);
    out.push([
      `Quotes through /report/v1, ${label}: accepted per second one at a time`,
      'reported',
      x
        ? [`${int(x.singles.quotesPerSecond)} quotes/s (${errorText(x.singles)})`, x.singles.errors === 0]
        : notRun,
    ]);
    out.push([
      `Quote to published observation, ${label}, publications not deferred: served by /v1/rates/latest, p99`,
      `< ${int(t.servedP99Ms)} ms`,
      x
        ? [
            `${int(x.served.p99Ms)} ms (median ${int(x.served.medianMs)} ms, ${x.served.samples} publications${x.served.lost ? `, ${x.served.lost} never served` : ''}); stored by the quote's 201: median ${x.stored.medianMs} ms, p99 ${x.stored.p99Ms} ms`,
            x.served.p99Ms < t.servedP99Ms && x.served.lost === 0,
          ]
        : notRun,
    ]);
  }
  return out;
}
