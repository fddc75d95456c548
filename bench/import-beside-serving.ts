/**
 * "Import beside serving" (decisions 55): `mds serve` under wrk load on
 * /v1/rates/latest while `mds import rates` writes N new observations into the
 * same store from another process, and a prober asks /healthz every 20 ms.
 * Recorded over the window from the import's start to a second after its exit
 * (which covers the reload of the latest rates after the commit): the worst
 * one-second wrk p99 of /v1/rates/latest, the /healthz p99 and maximum, every
 * non-2xx answer, and the import's duration. The server runs on the server's
 * CPU, wrk on the generator's, the import on the server's (it competes with the
 * server for its core, as on a one-machine deployment). The same import then
 * runs again beside a reference under the same load, into a store prepared
 * as the service's was: the limit (besideReference).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { seedSample } from '../src/import/seed.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import type { generateSample } from '../src/sample/generate.js';
import { openStore } from '../src/storage/open.js';
import { usageFilePath } from '../src/storage/sqlite.js';
import { defer } from './cleanup.js';
import { importAssets, writeImportFile } from './import.js';
import type { CpuPlan } from './proc.js';
import { sleep, stop } from './proc.js';
import { buildRoutes, type ServiceAnswer, startReference } from './references.js';
import { answer, benchEnv, CLI, startService } from './service.js';
import { freshSchema, provisionGrant, provisionKey } from './setup.js';
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
  /**
   * A reference under the same load while the same import runs again into a
   * store prepared as the service's was (besideReference). On SQLite, bare
   * node:http on the server's core, with a copy of the store: the import
   * shares that core by design, and this is what the sharing alone costs an
   * answer. On PostgreSQL, node:http answering each tick only after the store
   * limiter's call (bench/reference-tick.ts), with a second schema: what an
   * answer that waits for the database costs while the import writes to it.
   */
  reference?: { importSeconds: number; importError?: string; worstSegmentP99Ms: number; maxMs: number };
}

export interface BesideReport {
  records: number;
  sqlite?: BesideResult;
  postgres?: BesideResult;
  skipped?: string;
}

interface Settings {
  /** The run's temp directory (reference configs). */
  dir: string;
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

/** wrk's one-second runs on /v1/rates/latest, recorded from the import's start to a second after its exit. */
async function loadWhileImporting(
  origin: string,
  key: string,
  backend: 'sqlite' | 'postgres',
  url: string,
  file: string,
  s: Settings,
  recording: { on: boolean },
): Promise<{ segments: WrkResult[]; importSeconds: number; code: number | null; out: string }> {
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
      if (recording.on) segments.push(r);
    }
  })();

  await sleep(1500); // the load settles
  recording.on = true;
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
  recording.on = false;
  return { segments, importSeconds, code, out };
}

/** Why the import did not insert every record (its exit code and `--json` output), or undefined. */
function importFailure(code: number | null, out: string, records: number): string | undefined {
  try {
    const inserted = (JSON.parse(out) as { inserted?: number }).inserted;
    if (code !== 0 || inserted !== records) return `exit ${code}: ${inserted ?? 0} of ${records} inserted`;
  } catch {
    return `exit ${code}: ${out.slice(0, 300)}`;
  }
  return undefined;
}

/** A copy of a SQLite store and its usage file (closed, so the two files are the whole store). */
function copySqlite(path: string, label: string): string {
  const copy = path.replace(/\.sqlite$/, `-${label}.sqlite`);
  copyFileSync(path, copy);
  if (existsSync(usageFilePath(path))) copyFileSync(usageFilePath(path), usageFilePath(copy));
  return copy;
}

/**
 * The limit of a serving process beside the import (docs/decisions.md 55),
 * under the same load while the same import writes the same observations
 * into `to`, a store as the service's was before its run. On SQLite, bare
 * node:http sending the service's bytes for /v1/rates/latest with no pipeline
 * and no store, on the server's core: what the core's sharing alone costs an
 * answer. On PostgreSQL (`tick`), the tick reference: the service's headers
 * and bytes, each tick's answers sent only after the store limiter's call on
 * `to`, as the service's wait for theirs.
 */
async function besideReference(
  served: ServiceAnswer,
  key: string,
  to: { backend: 'sqlite' | 'postgres'; url: string; tick?: { grantId: string; keyId: string } },
  file: string,
  records: number,
  s: Settings,
): Promise<NonNullable<BesideResult['reference']>> {
  // No OpenAPI document: node:http sends the bytes, the schema is only Fastify's.
  const { routes } = buildRoutes([served], {});
  const reference = to.tick
    ? await startReference('reference-tick', routes, s.dir, s.cpus.server, false, {
        postgresUrl: to.url,
        prefix: '',
        ...to.tick,
      })
    : await startReference('reference-http', routes, s.dir, s.cpus.server);
  try {
    const { segments, importSeconds, code, out } = await loadWhileImporting(
      reference.origin,
      key,
      to.backend,
      to.url,
      file,
      s,
      { on: false },
    );
    const importError = importFailure(code, out, records);
    return {
      importSeconds,
      ...(importError ? { importError } : {}),
      worstSegmentP99Ms: Math.max(...segments.map((r) => r.latencyUs.p99)) / 1000,
      maxMs: Math.max(...segments.map((r) => r.latencyUs.max)) / 1000,
    };
  } finally {
    await stop(reference.proc);
  }
}

/** The two-year sample, the import's extra currencies and a key (not timed); the key's text. */
async function prepareStore(url: string, sample: ReturnType<typeof generateSample>): Promise<string> {
  const store = openStore(url);
  try {
    await store.migrate();
    await seedSample(store, sample);
    await store.import({ kind: 'assets', records: importAssets(sample) });
    return await provisionKey(store);
  } finally {
    await store.close();
  }
}

/** A second schema prepared as the service's, with the tick reference's own grant and key in it. */
async function prepareTickStore(
  url: string,
  sample: ReturnType<typeof generateSample>,
): Promise<{ grantId: string; keyId: string }> {
  await prepareStore(url, sample);
  const store = openStore(url);
  try {
    const { grantId, keyId } = await provisionGrant(store);
    return { grantId, keyId };
  } finally {
    await store.close();
  }
}

async function one(
  backend: 'sqlite' | 'postgres',
  url: string,
  file: string,
  records: number,
  sample: ReturnType<typeof generateSample>,
  s: Settings,
  /** PostgreSQL: a second, empty schema for the reference's run. */
  referenceSchema?: string,
): Promise<BesideResult> {
  const key = await prepareStore(url, sample);
  // The store as the import finds it, for the reference's run: on SQLite a
  // copy of both files; on PostgreSQL a second schema prepared the same way.
  const to =
    backend === 'sqlite'
      ? { backend, url: copySqlite(url, 'reference') }
      : referenceSchema
        ? { backend, url: referenceSchema, tick: await prepareTickStore(referenceSchema, sample) }
        : undefined;
  const service = await startService(url, key, s.cpus.server);
  const origin = service.origin;
  const served = { url: '/v1/rates/latest', ...(await answer(origin, '/v1/rates/latest', key)) };

  const commitProber =
    backend === 'postgres'
      ? probeCommits(
          url,
          () => probing,
          () => recording.on,
        )
      : undefined;
  // The /healthz prober: one request at a time, every 20 ms.
  const probes: number[] = [];
  let failures = 0;
  let probing = true;
  const recording = { on: false };
  const prober = (async () => {
    while (probing) {
      const started = performance.now();
      try {
        const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (recording.on) {
          probes.push(performance.now() - started);
          if (res.status !== 200) failures++;
        }
      } catch {
        if (recording.on) failures++;
      }
      const wait = PROBE_EVERY_MS - (performance.now() - started);
      if (wait > 0) await sleep(wait);
    }
  })();

  const { segments, importSeconds, code, out } = await loadWhileImporting(
    origin,
    key,
    backend,
    url,
    file,
    s,
    recording,
  );
  probing = false;
  await prober;
  const commits = (await commitProber)?.sort((a, b) => a - b);
  await stop(service.proc);
  const reference = to ? await besideReference(served, key, to, file, records, s) : undefined;

  const importError = importFailure(code, out, records);
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
    ...(reference ? { reference } : {}),
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
    const referenceSchema = await freshSchema(o.postgresUrl, 'beside_reference');
    defer(() => referenceSchema.drop());
    report.postgres = await one('postgres', schema.url, file, o.records, o.sample, o, referenceSchema.url);
  }
  return report;
}
