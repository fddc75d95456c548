/**
 * Admin imports beside serving (docs/decisions.md 91, 92): `mds serve` under
 * wrk load on /v1/rates/latest while three 50 MB NDJSON files are POSTed at
 * once to /admin/v1/data/rates (MDS_ADMIN_IMPORTS=3), and a prober asks
 * /healthz every 20 ms. Recorded from the imports' start to their last
 * answer: the worst one-second wrk p99, the /healthz p99, the server's
 * event-loop delay (its own `mds_nodejs_eventloop_lag_max_seconds`, reset by
 * a scrape just before), every non-2xx answer. Then the same three imports
 * again and a SIGTERM once they run: the time to the process's exit. On
 * PostgreSQL the tick reference (bench/reference-tick.ts) serves under the
 * same load while three `mds import` processes write the same files into its
 * schema, on its core at niceness 19 as the service's import threads run on
 * the service's: the limit beside the same imports.
 */
import { once } from 'node:events';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import type { SampleData } from '../src/sample/generate.js';
import { ADMIN_MAX_IMPORT_BYTES } from '../src/schemas/admin.js';
import { SYSTEM_ACTOR } from '../src/storage/admin-records.js';
import type { Store } from '../src/storage/store.js';
import { createAdminToken } from '../src/use-cases/admin-tokens.js';
import { importAssets, runImport, writeImportFile } from './import.js';
import { type CpuPlan, freePort, sleep, stop } from './proc.js';
import { startReference } from './references.js';
import { answer, startService } from './service.js';
import { freshSchema, prepare } from './setup.js';
import { runWrk, type WrkResult } from './wrk.js';

export const ADMIN_IMPORTS_TARGETS = { p99Ms: 100, loopDelayMs: 100, pgRatio: 1.5, stopMs: 11_000 } as const;

/** Observations per file: about 48 MB of NDJSON, under the route's 50 MB. */
const RECORDS = 400_000;
const DRAIN_MS = 1_000;

interface Loaded {
  requests: number;
  errors: number;
  worstP99Ms: number;
  maxMs: number;
}

export interface AdminImportsResult extends Loaded {
  /** Each import's status and seconds from its first byte sent to its answer. */
  imports: Array<{ status: number | string; seconds: number }>;
  healthz: { probes: number; p99Ms: number; maxMs: number; failures: number };
  loopDelayMaxMs: number;
  /** SIGTERM to exit, three imports running; its exit code. */
  stop: { ms: number; code: number | null };
  /** PostgreSQL: the tick reference beside three `mds import` of the same files. */
  reference?: Loaded;
}

export type AdminImportsReport = {
  megabytes: number;
  sqlite?: AdminImportsResult;
  postgres?: AdminImportsResult;
};
type Settings = { dir: string; cpus: CpuPlan; log: (line: string) => void };

/** POSTs a file to the admin API: its status (or error) and seconds. */
function post(adminOrigin: string, token: string, file: string) {
  const started = performance.now();
  const sent = { done: false };
  const done = new Promise<{ status: number | string; seconds: number }>((resolve) => {
    const end = (status: number | string) =>
      resolve({ status, seconds: Math.round(performance.now() - started) / 1000 });
    const req = http.request(`${adminOrigin}/admin/v1/data/rates`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        'content-length': statSync(file).size,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => end(res.statusCode ?? 0));
    });
    req.on('error', (err) => end(err.message));
    req.on('finish', () => {
      sent.done = true;
    });
    createReadStream(file).pipe(req);
  });
  return { done, sent };
}

async function scrape(adminOrigin: string, name: string): Promise<number> {
  const text = await (await fetch(`${adminOrigin}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** One-second wrk runs on `origin` and, with `probe`, /healthz every 20 ms, while `work` runs. */
async function loadWhile<T>(
  origin: string,
  key: string,
  cpus: CpuPlan,
  probe: boolean,
  work: () => Promise<T>,
) {
  const segments: WrkResult[] = [];
  const probes: number[] = [];
  let [recording, finished, failures] = [false, false, 0];
  const loading = (async () => {
    while (!finished) {
      const r = await runWrk({ url: `${origin}/v1/rates/latest`, key, seconds: 1, cpus: cpus.generator });
      if (recording) segments.push(r);
    }
  })();
  await sleep(1500); // the load settles first
  recording = true;
  const probing = (async () => {
    while (probe && recording) {
      const started = performance.now();
      const res = await fetch(`${origin}/healthz`).catch(() => undefined);
      await res?.arrayBuffer();
      probes.push(performance.now() - started);
      if (res?.status !== 200) failures++;
      await sleep(Math.max(0, 20 - (performance.now() - started)));
    }
  })();
  const result = await work();
  recording = false;
  finished = true;
  await Promise.all([loading, probing]);
  probes.sort((x, y) => x - y);
  const loaded: Loaded = {
    requests: segments.reduce((n, r) => n + r.requests, 0),
    errors: segments.reduce((n, r) => n + r.non2xx + r.socketErrors, 0),
    worstP99Ms: Math.max(...segments.map((r) => r.p99Us)) / 1000,
    maxMs: Math.max(...segments.map((r) => r.maxUs)) / 1000,
  };
  const p99Ms = probes[Math.max(0, Math.ceil(0.99 * probes.length) - 1)] ?? Number.NaN;
  const healthz = { probes: probes.length, p99Ms, maxMs: probes.at(-1) ?? Number.NaN, failures };
  return { result, loaded, healthz };
}

async function one(
  url: string,
  limitUrl: string | undefined,
  files: string[],
  o: Settings & { sample: SampleData },
) {
  const tokens: string[] = [];
  const withAssets = async (store: Store) => {
    await store.imports.import({ kind: 'assets', records: importAssets(o.sample) });
    const t = await createAdminToken(store, SYSTEM_ACTOR, { label: 'bench', scopes: ['data:write'] });
    if (t.ok) tokens.push(t.value.token);
  };
  const { key } = await prepare(url, o.sample, withAssets);
  const token = tokens[0]!;
  const adminPort = await freePort();
  const adminOrigin = `http://127.0.0.1:${adminPort}`;
  const env = { MDS_ADMIN_PORT: String(adminPort), MDS_ADMIN_IMPORTS: '3', MDS_DRAIN_MS: String(DRAIN_MS) };
  const service = await startService(url, key, o.cpus.server, env);
  const served = await answer(service.origin, '/v1/rates/latest', key);
  const lag = 'mds_nodejs_eventloop_lag_max_seconds';
  const { result, loaded, healthz } = await loadWhile(service.origin, key, o.cpus, true, async () => {
    await scrape(adminOrigin, lag); // resets the histogram: what follows is the imports'
    const imports = await Promise.all(files.map((f) => post(adminOrigin, token, f).done));
    return { imports, loopDelayMaxMs: (await scrape(adminOrigin, lag)) * 1000 };
  });

  // The stop: the same imports again, SIGTERM once all three run.
  const again = files.map((f) => post(adminOrigin, token, f));
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (again.every((p) => p.sent.done) && (await scrape(adminOrigin, 'mds_admin_imports')) === 3) break;
    await sleep(50);
  }
  const exited = once(service.proc, 'exit') as Promise<[number | null]>;
  const signalled = performance.now();
  service.proc.kill('SIGTERM');
  const [code] = await exited;
  const stopped = { ms: Math.round(performance.now() - signalled), code };
  await Promise.all(again.map((p) => p.done));
  await stop(service.proc);

  let reference: Loaded | undefined;
  if (limitUrl) {
    const { reference: grant } = await prepare(limitUrl, o.sample, (s) =>
      s.imports.import({ kind: 'assets', records: importAssets(o.sample) }),
    );
    const tick = { postgresUrl: limitUrl, prefix: '', ...grant };
    const ref = await startReference(served.route, o.cpus.server, { tick });
    ({ loaded: reference } = await loadWhile(ref.origin, key, o.cpus, false, () =>
      // Where and as the service's import threads run: on the server's core, at niceness 19
      // (src/import/thread.ts), so both servers share their core with the same work.
      Promise.all(files.map((f) => runImport(f, limitUrl, RECORDS, o.cpus.server, 19))),
    ));
    await stop(ref.proc);
  }
  return { ...loaded, ...result, healthz, stop: stopped, reference } satisfies AdminImportsResult;
}

/** On SQLite, and on PostgreSQL (no Redis: the store limiter) when given. */
export async function measureAdminImports(
  o: Settings & { sample: SampleData; endDate: string; postgresUrl?: string },
): Promise<AdminImportsReport> {
  // Three files over disjoint currencies the sample does not have: no stored value to compare with.
  const sampleCodes = new Set(o.sample.assets.map((a) => a.code));
  const codes = importAssets(o.sample)
    .map((a) => a.code)
    .filter((c) => !sampleCodes.has(c));
  const end = Date.parse(`${o.endDate}T00:00:00Z`);
  const files: string[] = [];
  for (let i = 0; i < 3; i++) {
    const file = join(o.dir, `admin-${i}.ndjson`);
    await writeImportFile(
      file,
      RECORDS,
      codes.filter((_, j) => j % 3 === i),
      end,
    );
    if (statSync(file).size > ADMIN_MAX_IMPORT_BYTES)
      throw new Error(`${file} is over the admin API's limit`);
    files.push(file);
  }
  const report: AdminImportsReport = { megabytes: Math.round(statSync(files[0]!).size / 1e6) };
  o.log(`bench: three ${report.megabytes} MB admin imports beside serving, SQLite`);
  report.sqlite = await one(join(o.dir, 'admin.sqlite'), undefined, files, o);
  if (o.postgresUrl) {
    o.log('bench: … PostgreSQL');
    const url = await freshSchema(o.postgresUrl, 'admin');
    report.postgres = await one(url, await freshSchema(o.postgresUrl, 'admin_ref'), files, o);
  }
  return report;
}

type Figure = [measured: string, ok: boolean] | string | undefined;

/** The row's targets (docs/performance.md), as [target, required, figure]; `notScaled` when PostgreSQL did not run. */
export function adminImportsTargets(
  r: AdminImportsReport | undefined,
  notScaled: string | undefined,
): Array<[string, string, Figure]> {
  const t = ADMIN_IMPORTS_TARGETS;
  const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
  const out: Array<[string, string, Figure]> = [];
  for (const [label, x] of [
    ['SQLite', r?.sqlite],
    ['PostgreSQL', r?.postgres],
  ] as const) {
    const what = `Three ${r?.megabytes ?? 50} MB admin imports beside serving, ${label}`;
    const notRun = r && label === 'PostgreSQL' ? notScaled : undefined;
    const statuses = x?.imports.map((i) => `${i.status} in ${i.seconds.toFixed(1)} s`).join(', ');
    const ok = x && x.errors + x.healthz.failures === 0 && x.imports.every((i) => i.status === 200);
    out.push([
      `${what}: the imports, non-2xx answers and errors (/healthz included)`,
      'three 200s; 0',
      x ? [`${statuses}; ${x.errors + x.healthz.failures}`, ok === true] : notRun,
    ]);
    out.push([
      `${what}: /healthz p99`,
      `< ${t.p99Ms} ms`,
      x ? [`${f1(x.healthz.p99Ms)} ms (max ${f1(x.healthz.maxMs)} ms)`, x.healthz.p99Ms < t.p99Ms] : notRun,
    ]);
    const ref = x?.reference;
    const p99: Figure =
      x &&
      (ref
        ? [
            `${f1(x.worstP99Ms)} ms; the tick reference beside the same imports ${f1(ref.worstP99Ms)} ms (${f1(x.worstP99Ms / ref.worstP99Ms)}×)`,
            x.worstP99Ms <= t.pgRatio * ref.worstP99Ms,
          ]
        : [`${f1(x.worstP99Ms)} ms (max ${f1(x.maxMs)} ms)`, x.worstP99Ms < t.p99Ms]);
    out.push([
      `${what}: /v1/rates/latest p99, worst 1-s run`,
      label === 'SQLite' ? `< ${t.p99Ms} ms` : `≤ ${t.pgRatio}× the tick reference's`,
      p99 ?? notRun,
    ]);
    out.push([
      `${what}: event-loop delay, max`,
      `< ${t.loopDelayMs} ms`,
      x ? [`${f1(x.loopDelayMaxMs)} ms`, x.loopDelayMaxMs < t.loopDelayMs] : notRun,
    ]);
    out.push([
      `${what}: SIGTERM to exit, three imports running`,
      `< ${t.stopMs / 1000} s (drain 1 s + 10 s), exit 0`,
      x
        ? [`${f1(x.stop.ms / 1000)} s, exit ${x.stop.code}`, x.stop.ms < t.stopMs && x.stop.code === 0]
        : notRun,
    ]);
  }
  return out;
}
