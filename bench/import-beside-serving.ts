/**
 * "Import beside serving" (decisions 55): `mds serve` under wrk load on
 * /v1/rates/latest while `mds import rates` writes N new observations into the
 * same store from another process, and a prober asks /healthz every 20 ms.
 * Recorded over the window from the import's start to a second after its exit
 * (which covers the reload of the latest rates after the commit): the worst
 * one-second wrk p99 of /v1/rates/latest, the /healthz p99 and maximum, every
 * non-2xx answer, and the import's duration. The server runs on the server's
 * CPU, wrk on the generator's, the import on the server's (it competes with the
 * server for its core, as on a one-machine deployment).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { seedSample } from '../src/import/seed.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import type { generateSample } from '../src/sample/generate.js';
import { openStore } from '../src/storage/open.js';
import { defer } from './cleanup.js';
import { importAssets, writeImportFile } from './import.js';
import type { CpuPlan } from './proc.js';
import { stop } from './proc.js';
import { benchEnv, CLI, startService } from './service.js';
import { freshSchema, provisionKey } from './setup.js';
import { runWrk, type WrkResult } from './wrk.js';

export const BESIDE_TARGETS = { status503: 0, healthzP99Ms: 100, latestP99Ms: 50 } as const;
const PROBE_EVERY_MS = 20;
const SEGMENT_SECONDS = 1;

export interface BesideResult {
  backend: 'sqlite' | 'postgres';
  records: number;
  /** The import process, start to exit. */
  importSeconds: number;
  importError?: string;
  latest: {
    requests: number;
    non2xx: number;
    socketErrors: number;
    worstSegmentP99Ms: number;
    maxMs: number;
  };
  healthz: { probes: number; p99Ms: number; maxMs: number; failures: number };
  /**
   * PostgreSQL only: a one-row UPDATE committed in a loop on the same database
   * during the import. Every /v1 answer waits for its tick's usage commit, so
   * this is the floor of the answers' tail while the import writes.
   */
  commit?: { commits: number; p99Ms: number; maxMs: number };
}

export interface BesideReport {
  records: number;
  sqlite?: BesideResult;
  postgres?: BesideResult;
  skipped?: string;
}

interface Settings {
  wrk: string;
  connections: number;
  threads: number;
  cpus: CpuPlan;
  log: (line: string) => void;
}

/** Commits a one-row UPDATE in a loop until `running()` is false; keeps the durations while `recording()`. */
async function probeCommits(
  url: string,
  running: () => boolean,
  recording: () => boolean,
): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times: number[] = [];
  try {
    await client.query(
      'create table if not exists bench_commit_probe (id int primary key, n bigint not null)',
    );
    await client.query('insert into bench_commit_probe values (1, 0) on conflict do nothing');
    while (running()) {
      const started = performance.now();
      await client.query('update bench_commit_probe set n = n + 1 where id = 1');
      if (recording()) times.push(performance.now() - started);
    }
  } finally {
    await client.end();
  }
  return times;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function one(
  backend: 'sqlite' | 'postgres',
  url: string,
  file: string,
  records: number,
  sample: ReturnType<typeof generateSample>,
  s: Settings,
): Promise<BesideResult> {
  // The two-year sample, the key, and the import's extra currencies (not timed).
  const store = openStore(url);
  let key: string;
  try {
    await store.migrate();
    await seedSample(store, sample);
    await store.import({ kind: 'assets', records: importAssets(sample) });
    key = await provisionKey(store);
  } finally {
    await store.close();
  }
  const service = await startService(url, key, s.cpus.server);
  const origin = service.origin;

  const commitProber =
    backend === 'postgres'
      ? probeCommits(
          url,
          () => probing,
          () => recording,
        )
      : undefined;
  // The /healthz prober: one request at a time, every 20 ms.
  const probes: number[] = [];
  let failures = 0;
  let probing = true;
  let recording = false;
  const prober = (async () => {
    while (probing) {
      const started = performance.now();
      try {
        const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (recording) {
          probes.push(performance.now() - started);
          if (res.status !== 200) failures++;
        }
      } catch {
        if (recording) failures++;
      }
      const wait = PROBE_EVERY_MS - (performance.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();

  // wrk in one-second segments until a second after the import has exited.
  const segments: WrkResult[] = [];
  let importDone = false;
  let doneAt = 0;
  const loading = (async () => {
    while (!importDone || performance.now() - doneAt < 1000) {
      const r = await runWrk({
        wrk: s.wrk,
        url: `${origin}/v1/rates/latest`,
        headers: { authorization: `Bearer ${key}` },
        seconds: SEGMENT_SECONDS,
        connections: s.connections,
        threads: s.threads,
        cpus: s.cpus.generator,
      });
      if (recording) segments.push(r);
    }
  })();

  await new Promise((r) => setTimeout(r, 1500)); // the load settles
  recording = true;
  const args = [...NODE_FLAGS, CLI, 'import', 'rates', file, '--db', url, '--json'];
  const importCpu = backend === 'sqlite' ? s.cpus.server : s.cpus.generator;
  const [command, argv] = importCpu
    ? ['taskset', ['-c', importCpu, process.execPath, ...args]]
    : [process.execPath, args];
  const started = performance.now();
  const child: ChildProcess = spawn(command, argv as string[], {
    env: benchEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  const importSeconds = Math.round(performance.now() - started) / 1000;
  importDone = true;
  doneAt = performance.now();
  await loading;
  recording = false;
  probing = false;
  await prober;
  const commits = (await commitProber)?.sort((a, b) => a - b);
  await stop(service.proc);

  let importError: string | undefined;
  try {
    const inserted = (JSON.parse(out) as { inserted?: number }).inserted;
    if (code !== 0 || inserted !== records)
      importError = `exit ${code}: ${inserted ?? 0} of ${records} inserted`;
  } catch {
    importError = `exit ${code}: ${out.slice(0, 300)}`;
  }
  const sorted = [...probes].sort((a, b) => a - b);
  return {
    backend,
    records,
    importSeconds,
    ...(importError ? { importError } : {}),
    latest: {
      requests: segments.reduce((n, r) => n + r.requests, 0),
      non2xx: segments.reduce((n, r) => n + r.non2xx, 0),
      socketErrors: segments.reduce((n, r) => n + r.socketErrors, 0),
      worstSegmentP99Ms: Math.max(...segments.map((r) => r.latencyUs.p99)) / 1000,
      maxMs: Math.max(...segments.map((r) => r.latencyUs.max)) / 1000,
    },
    healthz: {
      probes: probes.length,
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? Number.NaN,
      failures,
    },
    ...(commits
      ? {
          commit: {
            commits: commits.length,
            p99Ms: percentile(commits, 99),
            maxMs: commits.at(-1) ?? Number.NaN,
          },
        }
      : {}),
  };
}

/** On SQLite, and on PostgreSQL (no Redis: the store limiter) when given. */
export async function measureImportBesideServing(
  o: Settings & {
    records: number;
    sample: ReturnType<typeof generateSample>;
    endDate: string;
    dir: string;
    postgresUrl?: string;
  },
): Promise<BesideReport> {
  const report: BesideReport = { records: o.records };
  if (o.records === 0) return { ...report, skipped: 'disabled (--import-records 0)' };
  // Only the currencies the sample does not have: no stored value to compare
  // with, so the import's change check passes on generated levels.
  const sampleCodes = new Set(o.sample.assets.map((a) => a.code));
  const codes = importAssets(o.sample)
    .map((a) => a.code)
    .filter((c) => !sampleCodes.has(c));
  const file = join(o.dir, 'beside.ndjson');
  await writeImportFile(file, o.records, codes, Date.parse(`${o.endDate}T00:00:00Z`));
  o.log(`bench: import beside serving, ${o.records.toLocaleString('en')} observations, SQLite`);
  report.sqlite = await one('sqlite', join(o.dir, 'beside.sqlite'), file, o.records, o.sample, o);
  if (o.postgresUrl) {
    o.log('bench: … PostgreSQL');
    const schema = await freshSchema(o.postgresUrl, 'beside');
    defer(() => schema.drop());
    report.postgres = await one('postgres', schema.url, file, o.records, o.sample, o);
  }
  return report;
}
