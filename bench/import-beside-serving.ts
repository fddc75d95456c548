/**
 * Import beside serving (docs/decisions.md 55): `mds serve` under wrk load on
 * /v1/rates/latest while `mds import rates` writes N new observations into its
 * store from another process, and a prober asks /healthz every 20 ms.
 * Recorded from the import's start to a second after its exit (which covers
 * the reload of the latest rates): the worst one-second wrk p99, the /healthz
 * p99, every non-2xx answer. On SQLite the import shares the server's core, as
 * on a one-machine deployment. The same import then runs again beside the
 * limit under the same load, into a store prepared as the service's was: on
 * SQLite bare node:http on the same core (what the sharing alone costs), on
 * PostgreSQL the tick reference (bench/reference-tick.ts) without Redis.
 */
import { join } from 'node:path';
import type { SampleData } from '../src/sample/generate.js';
import type { Store } from '../src/storage/store.js';
import { type ImportResult, importAssets, runImport, writeImportFile } from './import.js';
import { type CpuPlan, sleep, stop } from './proc.js';
import { startReference } from './references.js';
import { answer, startService } from './service.js';
import { freshSchema, prepare } from './setup.js';
import { runWrk, type WrkResult } from './wrk.js';

export const BESIDE_TARGETS = { healthzP99Ms: 100, latestP99Ms: 50 } as const;

interface Loaded {
  import: ImportResult;
  requests: number;
  /** Non-2xx answers and socket errors. */
  errors: number;
  worstP99Ms: number;
  maxMs: number;
}

interface BesideResult extends Loaded {
  healthz: { probes: number; p99Ms: number; maxMs: number; failures: number };
  /** The limit beside the same import (see the header). */
  reference: Loaded;
}

export type BesideReport = { records: number; sqlite?: BesideResult; postgres?: BesideResult };
type Settings = { dir: string; cpus: CpuPlan; log: (line: string) => void };

/**
 * One-second wrk runs on `origin` and (`probe`) /healthz every 20 ms, one at a
 * time, recorded from the import's start to a second after its exit.
 */
async function loadWhileImporting(
  origin: string,
  key: string,
  into: { url: string; file: string; records: number; cpus?: string },
  cpus: CpuPlan,
  probe: boolean,
): Promise<Loaded & Pick<BesideResult, 'healthz'>> {
  const segments: WrkResult[] = [];
  const probes: number[] = [];
  let [recording, doneAt, failures] = [false, Number.POSITIVE_INFINITY, 0];
  const loading = (async () => {
    while (performance.now() - doneAt < 1000) {
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
  const imported = await runImport(into.file, into.url, into.records, into.cpus);
  doneAt = performance.now();
  await loading;
  recording = false;
  await probing;
  probes.sort((x, y) => x - y);
  const p99Ms = probes[Math.max(0, Math.ceil(0.99 * probes.length) - 1)] ?? Number.NaN;
  return {
    import: imported,
    requests: segments.reduce((n, r) => n + r.requests, 0),
    errors: segments.reduce((n, r) => n + r.non2xx + r.socketErrors, 0),
    worstP99Ms: Math.max(...segments.map((r) => r.p99Us)) / 1000,
    maxMs: Math.max(...segments.map((r) => r.maxUs)) / 1000,
    healthz: { probes: probes.length, p99Ms, maxMs: probes.at(-1) ?? Number.NaN, failures },
  };
}

/** The service beside the import into `url`, then the limit beside the same import into `limitUrl`. */
async function one(
  url: string,
  limitUrl: string,
  file: string,
  o: Settings & { records: number; sample: SampleData },
): Promise<BesideResult> {
  const withAssets = (store: Store) =>
    store.imports.import({ kind: 'assets', records: importAssets(o.sample) });
  const { key } = await prepare(url, o.sample, withAssets);
  const { reference } = await prepare(limitUrl, o.sample, withAssets);
  const sqlite = limitUrl.endsWith('.sqlite');
  // On SQLite the import shares the server's core; on PostgreSQL it runs beside wrk.
  const into = { url, file, records: o.records, cpus: sqlite ? o.cpus.server : o.cpus.generator };

  const service = await startService(url, key, o.cpus.server);
  const served = await answer(service.origin, '/v1/rates/latest', key);
  const loaded = await loadWhileImporting(service.origin, key, into, o.cpus, true);
  await stop(service.proc);

  const tick = sqlite ? undefined : { postgresUrl: limitUrl, prefix: '', ...reference };
  const ref = await startReference(served.route, o.cpus.server, { tick });
  const { healthz: _, ...limit } = await loadWhileImporting(
    ref.origin,
    key,
    { ...into, url: limitUrl },
    o.cpus,
    false,
  );
  await stop(ref.proc);
  return { ...loaded, reference: limit };
}

/** On SQLite, and on PostgreSQL (no Redis: the store limiter) when given. */
export async function measureImportBesideServing(
  o: Settings & { records: number; sample: SampleData; endDate: string; postgresUrl?: string },
): Promise<BesideReport> {
  // Only currencies the sample does not have: no stored value for the import's change check to compare with.
  const sampleCodes = new Set(o.sample.assets.map((a) => a.code));
  const codes = importAssets(o.sample)
    .map((a) => a.code)
    .filter((c) => !sampleCodes.has(c));
  const file = join(o.dir, 'beside.ndjson');
  await writeImportFile(file, o.records, codes, Date.parse(`${o.endDate}T00:00:00Z`));
  const report: BesideReport = { records: o.records };
  o.log(`bench: import of ${o.records.toLocaleString('en')} observations beside serving, SQLite`);
  report.sqlite = await one(join(o.dir, 'beside.sqlite'), join(o.dir, 'beside-limit.sqlite'), file, o);
  if (o.postgresUrl) {
    o.log('bench: … PostgreSQL');
    const url = await freshSchema(o.postgresUrl, 'beside');
    report.postgres = await one(url, await freshSchema(o.postgresUrl, 'beside_ref'), file, o);
  }
  return report;
}
