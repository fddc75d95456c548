/**
 * `npm run bench [-- --quick]`: the service against the machine's limits, in
 * one run (issue 5). See docs/performance.md for the latest figures and
 * bench/report.ts for how the targets are judged.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { generateSample } from '../src/sample/generate.js';
import { type ImportResult, importAssets, timeImport, writeImportFile } from './import.js';
import { loadScenario, type Target, type TargetName } from './load.js';
import { loadAverage, machine, versions } from './machine.js';
import { type BenchOptions, parseOptions, USAGE } from './options.js';
import { cpuPlan, freePort, httpGet, type Spawned, spawnPinned, stop, waitFor200 } from './proc.js';
import type { ReferenceConfig, ReferenceRoute } from './reference-config.js';
import {
  type BenchReport,
  type Check,
  consoleReport,
  judge,
  markdownReport,
  type ScenarioReport,
} from './report.js';
import { inferSchema, schemaFromOpenApi } from './schema.js';
import { benchEnv, ROOT, SERVICE_LOG_LEVEL, serviceCommand } from './service.js';
import {
  detectScaleOut,
  dropRedisPrefix,
  freshSchema,
  preparePostgres,
  prepareSqlite,
  type ScaleOut,
  UNREACHABLE_LIMIT,
} from './setup.js';
import { measureStartup } from './startup.js';
import { findOnPath, wrkVersion } from './wrk.js';

const DAY = 86_400_000;
const log = (line: string) =>
  process.stdout.write(
    line.startsWith('bench: ')
      ? `[${(performance.now() / 1000).toFixed(1).padStart(5)} s] ${line.slice(7)}\n`
      : `${line}\n`,
  );

interface Scenario {
  id: string;
  title: string;
  url: string;
  /** References a target of issue 5 compares this scenario with (all of them outside quick mode). */
  compared: TargetName[];
}

/** Cleanups run in reverse order, on success, failure or Ctrl-C. */
const cleanups: Array<() => Promise<void> | void> = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    try {
      await cleanups.pop()?.();
    } catch (err) {
      process.stderr.write(`bench: cleanup: ${(err as Error).message}\n`);
    }
  }
}

async function startService(
  dbUrl: string,
  key: string,
  cpus: string | undefined,
  env: Record<string, string> = {},
): Promise<{ proc: Spawned; origin: string }> {
  const port = await freePort();
  const { command, args, env: fullEnv } = serviceCommand(port, dbUrl, env);
  const proc = spawnPinned(cpus, command, args, fullEnv);
  cleanups.push(() => stop(proc));
  const origin = `http://127.0.0.1:${port}`;
  await waitFor200(`${origin}/v1/me`, { authorization: `Bearer ${key}` }, proc, { everyMs: 20 });
  return { proc, origin };
}

async function startReference(
  script: string,
  config: ReferenceConfig,
  dir: string,
  cpus: string | undefined,
): Promise<{ proc: Spawned; origin: string }> {
  const file = join(dir, `${script}.json`);
  writeFileSync(file, JSON.stringify(config));
  const proc = spawnPinned(
    cpus,
    process.execPath,
    [join(ROOT, 'dist/bench', `${script}.js`), file],
    benchEnv(),
  );
  cleanups.push(() => stop(proc));
  const origin = `http://${config.host}:${config.port}`;
  const first = config.routes[0];
  if (first) await waitFor200(`${origin}${first.url}`, {}, proc, { everyMs: 20 });
  return { proc, origin };
}

/** The service's answer to `url`: 200 required, exact bytes kept. */
async function answer(origin: string, url: string, key: string) {
  const res = await httpGet(`${origin}${url}`, { authorization: `Bearer ${key}` });
  if (res.status !== 200) {
    throw new Error(`GET ${url} answered ${res.status}, not 200: ${res.body.toString().slice(0, 500)}`);
  }
  return { body: res.body, contentType: String(res.headers['content-type'] ?? 'application/json') };
}

function recordCount(body: Buffer | undefined): number | undefined {
  if (!body) return undefined;
  const data = (JSON.parse(body.toString('utf8')) as { data?: unknown }).data;
  return Array.isArray(data) ? data.length : undefined;
}

function withoutRequestId(body: Buffer): unknown {
  const value = JSON.parse(body.toString('utf8')) as { meta?: { requestId?: unknown } };
  if (value.meta) delete value.meta.requestId;
  return value;
}

async function checkReferences(
  routes: ReferenceRoute[],
  http: string,
  fastify: string,
  schemaSources: Map<string, string>,
): Promise<Check[]> {
  const checks: Check[] = [];
  let httpSame = 0;
  let fastifyEqual = 0;
  let fastifyBytes = 0;
  const problems: string[] = [];
  for (const r of routes) {
    const want = Buffer.from(r.body, 'base64');
    const a = await httpGet(`${http}${r.url}`);
    if (a.status === 200 && a.body.equals(want) && a.headers['content-type'] === r.contentType) httpSame++;
    else problems.push(`node:http ${r.url}`);
    const b = await httpGet(`${fastify}${r.url}`);
    const equal =
      b.status === 200 &&
      b.headers['content-type'] === r.contentType &&
      isDeepStrictEqual(JSON.parse(b.body.toString('utf8')), JSON.parse(want.toString('utf8')));
    if (equal) fastifyEqual++;
    else problems.push(`fastify ${r.url}`);
    if (b.body.equals(want)) fastifyBytes++;
  }
  checks.push({
    name: 'node:http serves the service’s exact bytes and Content-Type',
    ok: httpSame === routes.length,
    detail: `${httpSame} of ${routes.length} URLs${problems.length ? `; differs: ${problems.join(', ')}` : ''}`,
  });
  checks.push({
    name: 'Fastify serves the same body (JSON-equal) and Content-Type',
    ok: fastifyEqual === routes.length,
    detail: `${fastifyEqual} of ${routes.length} URLs, ${fastifyBytes} byte-identical; schemas: ${[
      ...schemaSources,
    ]
      .map(([p, s]) => `${p} ${s}`)
      .join(', ')}`,
  });
  return checks;
}

/** The project's formatter on the written files, so that `npm run lint` stays clean. */
async function formatWithBiome(files: string[]): Promise<void> {
  const biome = join(ROOT, 'node_modules/.bin/biome');
  if (!existsSync(biome)) return;
  try {
    await promisify(execFile)(biome, ['format', '--write', ...files], { cwd: ROOT });
  } catch (err) {
    process.stderr.write(`bench: biome format: ${(err as Error).message}\n`);
  }
}

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions | 'help';
  try {
    options = parseOptions(argv);
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    log(USAGE);
    return 0;
  }
  const o = options;
  const wrk = findOnPath('wrk');
  if (!wrk) {
    process.stderr.write(
      'bench: wrk is not installed. Install it from the distribution (Debian/Ubuntu: `sudo apt-get install wrk`) and run `npm run bench` again.\n',
    );
    return 2;
  }

  const loadAtStart = loadAverage();
  const m = machine();
  const v = versions(await wrkVersion(wrk));
  const cpus = cpuPlan(m.cpus, o.threads);
  const date = new Date().toISOString();
  const endDate = new Date(Date.now() - DAY).toISOString().slice(0, 10);
  const from = new Date(Date.parse(endDate) - 365 * DAY).toISOString().slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  log(`bench: ${o.quick ? 'quick' : 'full'} run; ${m.cpus} CPU, ${cpus.note}; temp ${dir}`);

  const sample = generateSample({ endDate });
  const sqlite = await prepareSqlite(dir, sample);
  log(`bench: SQLite store with the two-year sample ending ${endDate} (${sqlite.seconds.toFixed(1)} s)`);

  const scaleOut: ScaleOut | { reason: string } = o.postgres
    ? await detectScaleOut()
    : { reason: 'left out (--skip-postgres)' };
  if ('reason' in scaleOut) log(`bench: PostgreSQL + Redis not measured: ${scaleOut.reason}`);
  else {
    v.postgres = scaleOut.postgresVersion;
    v.redis = scaleOut.redisVersion;
  }

  // 1. Start to first 200, before anything else loads the machine.
  log(`bench: start to first 200 (${o.startupRuns} run${o.startupRuns > 1 ? 's' : ''})`);
  const startup = await measureStartup(sqlite.url, sqlite.key, o.startupRuns, cpus.server);

  // 2. The service, its answers, and the two references serving the same bodies.
  const service = await startService(sqlite.url, sqlite.key, cpus.server);
  const history = `/v1/rates/history?currency=EUR&from=${from}&to=${endDate}&limit=250`;
  const firstPage = await answer(service.origin, history, sqlite.key);
  const nextCursor = (
    JSON.parse(firstPage.body.toString('utf8')) as { meta?: { nextCursor?: string | null } }
  ).meta?.nextCursor;
  if (!nextCursor) throw new Error(`${history}: no meta.nextCursor in the first page`);
  const scenarios: Scenario[] = [
    {
      id: 'latest',
      title: '/v1/rates/latest (every parallel asset)',
      url: '/v1/rates/latest',
      compared: ['node:http', 'fastify'],
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
    { id: 'gold', title: '/v1/gold/latest', url: '/v1/gold/latest', compared: [] },
    { id: 'me', title: '/v1/me', url: '/v1/me', compared: [] },
  ];
  const openapi = JSON.parse(
    (await httpGet(`${service.origin}/openapi.json`)).body.toString('utf8'),
  ) as unknown;
  const routes: ReferenceRoute[] = [];
  const schemaSources = new Map<string, string>();
  const bodies = new Map<string, Buffer>();
  for (const s of scenarios) {
    const a = s.id === 'history' ? firstPage : await answer(service.origin, s.url, sqlite.key);
    bodies.set(s.id, a.body);
    const pathname = new URL(s.url, 'http://x').pathname;
    let schema: object | undefined = schemaFromOpenApi(openapi, pathname);
    if (!schemaSources.has(pathname))
      schemaSources.set(pathname, schema ? 'from OpenAPI' : 'inferred from the body');
    schema ??= inferSchema(JSON.parse(a.body.toString('utf8')));
    routes.push({ url: s.url, contentType: a.contentType, body: a.body.toString('base64'), schema });
  }
  const httpRef = await startReference(
    'reference-http',
    { host: '127.0.0.1', port: await freePort(), routes },
    dir,
    cpus.server,
  );
  const fastifyRef = await startReference(
    'reference-fastify',
    { host: '127.0.0.1', port: await freePort(), routes },
    dir,
    cpus.server,
  );
  const checks = await checkReferences(routes, httpRef.origin, fastifyRef.origin, schemaSources);
  for (const c of checks) log(`bench: check: ${c.name}: ${c.ok ? 'ok' : 'FAILED'} (${c.detail})`);

  // 3. Load, scenario by scenario.
  const settings = {
    wrk,
    key: sqlite.key,
    seconds: o.duration,
    warmupSeconds: o.warmup,
    rounds: o.rounds,
    connections: o.connections,
    threads: o.threads,
    generatorCpus: cpus.generator,
  };
  const refs: Target[] = [
    { name: 'node:http', origin: httpRef.origin, proc: httpRef.proc },
    { name: 'fastify', origin: fastifyRef.origin, proc: fastifyRef.proc },
  ];
  const reports: ScenarioReport[] = [];
  // Quick mode loads a reference only where a target compares with it.
  const refsFor = (compared: TargetName[]) =>
    o.quick ? refs.filter((r) => compared.includes(r.name)) : refs;
  for (const [i, s] of scenarios.entries()) {
    log(`bench: ${s.title}`);
    const targets: Target[] = [
      { name: 'service', origin: service.origin, proc: service.proc },
      ...refsFor(s.compared),
    ];
    const result = await loadScenario(targets, s.url, settings, o.warmupEachScenario || i === 0, log);
    reports.push({
      id: s.id,
      title: s.title,
      url: s.url,
      store: 'sqlite',
      bodyBytes: bodies.get(s.id)?.length ?? 0,
      records: recordCount(bodies.get(s.id)),
      targets: result,
    });
  }
  await stop(service.proc);

  // 4. The same /v1/rates/latest on PostgreSQL + Redis.
  if (!('reason' in scaleOut)) {
    log('bench: /v1/rates/latest on PostgreSQL + Redis');
    const pg = await preparePostgres(scaleOut.postgresUrl, sample);
    cleanups.push(() => pg.drop());
    const prefix = `mdsbench:${randomBytes(4).toString('hex')}:`;
    cleanups.push(() => dropRedisPrefix(scaleOut.redisUrl, prefix));
    const pgService = await startService(pg.url, pg.key, cpus.server, {
      MDS_REDIS_URL: scaleOut.redisUrl,
      MDS_REDIS_PREFIX: prefix,
    });
    const pgAnswer = await answer(pgService.origin, '/v1/rates/latest', pg.key);
    const same = isDeepStrictEqual(
      withoutRequestId(pgAnswer.body),
      withoutRequestId(bodies.get('latest') ?? Buffer.of()),
    );
    checks.push({
      name: 'PostgreSQL answer equals the embedded one (but meta.requestId), so the same references apply',
      ok: same,
      detail: `${pgAnswer.body.length} vs ${bodies.get('latest')?.length ?? 0} bytes`,
    });
    const result = await loadScenario(
      [{ name: 'service', origin: pgService.origin, proc: pgService.proc }, ...refsFor(['node:http'])],
      '/v1/rates/latest',
      { ...settings, key: pg.key },
      true,
      log,
    );
    reports.push({
      id: 'latest-pg',
      title: '/v1/rates/latest, PostgreSQL + Redis',
      url: '/v1/rates/latest',
      store: 'postgres+redis',
      bodyBytes: pgAnswer.body.length,
      records: recordCount(pgAnswer.body),
      targets: result,
    });
    await stop(pgService.proc);
  }
  await stop(httpRef.proc);
  await stop(fastifyRef.proc);

  // 5. Import throughput.
  const imports: BenchReport['imports'] = { records: o.importRecords };
  if (o.importRecords === 0) imports.skipped = 'disabled (--import-records 0)';
  else {
    if (o.importRecords !== 1_000_000) {
      imports.note = `Import measured on ${o.importRecords.toLocaleString('en')} observations, not 1,000,000${o.quick ? ' (quick mode)' : ''}; the rate is per second either way.`;
    }
    const assets = importAssets(sample);
    const file = join(dir, 'rates.ndjson');
    const end = Date.parse(`${endDate}T00:00:00Z`);
    await writeImportFile(
      file,
      o.importRecords,
      assets.map((a) => a.code),
      end,
    );
    log(
      `bench: import of ${o.importRecords.toLocaleString('en')} observations (${assets.length} currencies) into SQLite`,
    );
    imports.sqlite = await timeImport(file, join(dir, 'import.sqlite'), assets, o.importRecords, cpus.server);
    if (!('reason' in scaleOut)) {
      log('bench: … into PostgreSQL');
      const schema = await freshSchema(scaleOut.postgresUrl, 'import');
      let result: ImportResult | undefined;
      try {
        result = await timeImport(file, schema.url, assets, o.importRecords, cpus.server);
      } finally {
        await schema.drop();
      }
      imports.postgres = result;
    }
    rmSync(file, { force: true });
  }

  // 6. Judge, print, write.
  const partial: Omit<BenchReport, 'targets'> = {
    date,
    command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
    mode: o.quick ? 'quick' : 'full',
    wallSeconds: Math.round(performance.now()) / 1000,
    settings: {
      generator: `wrk ${v.wrk}`,
      durationSeconds: o.duration,
      warmupSeconds: o.warmup,
      warmup: o.warmup
        ? `${o.warmup} s per target ${o.warmupEachScenario ? 'before each scenario' : 'once, before the first scenario'}`
        : 'none',
      rounds: o.rounds,
      references: o.quick ? 'only where a target compares with them (quick mode)' : 'in every scenario',
      connections: o.connections,
      threads: o.threads,
      pinning: cpus.note,
      serviceLogLevel: SERVICE_LOG_LEVEL,
      limits: `${UNREACHABLE_LIMIT.toLocaleString('en')} requests per minute and per month`,
    },
    machine: m,
    loadAverage: { start: loadAtStart, end: loadAverage() },
    versions: v,
    scenarios: reports,
    scaleOut: 'reason' in scaleOut ? { included: false, reason: scaleOut.reason } : { included: true },
    startup,
    imports,
    checks,
  };
  const report: BenchReport = { ...partial, targets: judge(partial) };
  log(consoleReport(report));
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const outputs = [join(ROOT, 'bench/results/latest.json'), join(ROOT, 'docs/performance.md')];
  writeFileSync(outputs[0] as string, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(outputs[1] as string, markdownReport(report));
  await formatWithBiome(outputs);
  log('bench: wrote bench/results/latest.json and docs/performance.md');
  const failed =
    report.targets.filter((t) => t.verdict === 'FAIL').length + checks.filter((c) => !c.ok).length;
  if (failed) log(`bench: ${failed} target(s) or check(s) failed`);
  return failed ? 1 : 0;
}

process.on('SIGINT', () => {
  void cleanUp().then(() => process.exit(130));
});

main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  )
  .finally(() => cleanUp());
