/**
 * `npm run bench [-- --quick] [-- --only latest]`: the service against the
 * machine's limits, in one run (the targets: docs/decisions.md 78). See docs/performance.md for the
 * latest figures (and the commit they were measured on) and bench/report.ts
 * for how the targets are judged.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { generateSample } from '../src/sample/generate.js';
import { cleanUp, defer } from './cleanup.js';
import { measureCli } from './cli.js';
import { measureImports } from './import.js';
import { measureImportBesideServing } from './import-beside-serving.js';
import {
  type Check,
  generatorCheck,
  type LoadSettings,
  loadScenario,
  type ScenarioReport,
  type Target,
  type TargetName,
} from './load.js';
import { loadAverage, machine, measuredCommit, versions } from './machine.js';
import { type BenchOptions, type OnlyPart, parseOptions, USAGE } from './options.js';
import { type CpuPlan, cpuPlan, httpGet, sleep, stop } from './proc.js';
import type { ReferenceRoute } from './reference-config.js';
import {
  buildRoutes,
  checkReferences,
  newTally,
  referenceChecks,
  referenceTargets,
  type ServiceAnswer,
  sameHeadersCheck,
  startReference,
  startScenarioReferences,
  stopReferences,
} from './references.js';
import {
  type BenchReport,
  commitText,
  consoleReport,
  judge,
  markdownReport,
  type PagePair,
} from './report.js';
import { benchEndDate, firstHistoryPage, nextCursorOf, scenarios } from './scenarios.js';
import { answer, ROOT, SERVICE_LOG_LEVEL, startService } from './service.js';
import {
  type CommitLatency,
  detectScaleOut,
  dropRedisPrefix,
  measureCommits,
  type Prepared,
  preparePostgres,
  prepareSqlite,
  type ScaleOut,
  UNREACHABLE_LIMIT,
} from './setup.js';
import { measureStartup } from './startup.js';
import { findOnPath, wrkVersion } from './wrk.js';

/** Progress lines (`bench: …`) carry the time since start. */
function log(line: string): void {
  process.stdout.write(
    line.startsWith('bench: ')
      ? `[${(performance.now() / 1000).toFixed(1).padStart(5)} s] ${line.slice(7)}\n`
      : `${line}\n`,
  );
}

function parsed(body: Buffer | undefined): { data?: unknown; meta?: Record<string, unknown> } {
  return body ? JSON.parse(body.toString('utf8')) : {};
}

function recordCount(body: Buffer | undefined): number | undefined {
  const { data } = parsed(body);
  return Array.isArray(data) ? data.length : undefined;
}

function withoutRequestId(body: Buffer | undefined): unknown {
  const value = parsed(body);
  if (value.meta) delete value.meta['requestId'];
  return value;
}

interface Run {
  o: BenchOptions;
  /** Whether this run measures `part` (everything unless --only). */
  wants: (part: OnlyPart) => boolean;
  cpus: CpuPlan;
  dir: string;
  settings: LoadSettings;
}

/** The embedded service, the references, and every scenario; the references stay up for PostgreSQL. */
async function embedded(run: Run, sqlite: Prepared, endDate: string) {
  const { o, cpus, dir } = run;
  const service = await startService(sqlite.url, sqlite.key, cpus.server);
  if (o.settle > 0) {
    log(`bench: the service is left idle ${o.settle} s (--settle)`);
    await sleep(o.settle * 1000);
  }
  const firstPage = await answer(service.origin, firstHistoryPage(endDate), sqlite.key);
  const list = scenarios(endDate, nextCursorOf(firstPage.body));

  const answers: ServiceAnswer[] = [];
  for (const s of list) answers.push({ url: s.url, ...(await answer(service.origin, s.url, sqlite.key)) });
  const bodies = new Map(list.map((s, i) => [s.id, answers[i]?.body]));
  const openapi = JSON.parse(
    (await httpGet(`${service.origin}/openapi.json`)).body.toString('utf8'),
  ) as unknown;
  const routes = buildRoutes(answers, openapi);
  const tally = newTally();

  const reports: ScenarioReport[] = [];
  for (const [i, s] of list.filter((x) => run.wants(x.id)).entries()) {
    log(`bench: ${s.title}`);
    // Fresh references serving this URL alone (startScenarioReferences says why), checked, then loaded.
    const route = routes.routes.find((r) => r.url === s.url)!;
    const refs = await startScenarioReferences(route, dir, cpus.server);
    await checkReferences(route, routes.received.get(s.url) ?? [], refs, tally);
    const loaded: TargetName[] = o.quick ? s.compared : ['node:http', 'fastify'];
    const targets: Target[] = [
      { name: 'service', ...service },
      ...referenceTargets(refs, s.sameHeaders ? [...loaded, 'node:http, same headers'] : loaded),
    ];
    const warmService = o.warmupEachScenario || i === 0;
    reports.push({
      id: s.id,
      title: s.title,
      url: s.url,
      store: 'sqlite',
      bodyBytes: bodies.get(s.id)?.length ?? 0,
      records: recordCount(bodies.get(s.id)),
      targets: await loadScenario(
        targets,
        s.url,
        run.settings,
        (t) => t.name !== 'service' || warmService,
        log,
      ),
    });
    await stopReferences(refs);
  }
  const checks = referenceChecks(tally, routes.schemaSources);
  for (const c of checks) log(`bench: check: ${c.name}: ${c.ok ? 'ok' : 'FAILED'} (${c.detail})`);
  const pages = run.wants('pages')
    ? await alternatePages(
        { name: 'service', ...service },
        list.find((s) => s.id === 'history')!.url,
        list.find((s) => s.id === 'history-cursor')!.url,
        run.settings,
      )
    : { firstRps: [], cursorRps: [] };
  await stop(service.proc);
  return {
    reports,
    pages,
    checks,
    latestBody: bodies.get('latest'),
    latestRoute: routes.routes.find((r) => r.url === '/v1/rates/latest'),
  };
}

/**
 * The first and the cursor history page on the service alone, one run each in
 * turn, round after round. "The cursor page as fast as the first" compares two
 * URLs of one server: measured a minute apart (their scenarios), this machine's
 * drift in between moved the ratio by more than the 10 % the target allows
 * (node:http, serving fixed bytes, drifted as much); alternated, both see the same moments.
 */
async function alternatePages(
  service: Target,
  firstUrl: string,
  cursorUrl: string,
  settings: LoadSettings,
): Promise<PagePair> {
  log('bench: history pages alternated (first, cursor, first, …) for the cursor target');
  // The two URLs alternate run by run; each run is one, not sliced.
  const once = { ...settings, rounds: 1, slices: 1 };
  const pair: PagePair = { firstRps: [], cursorRps: [] };
  for (let r = 0; r < settings.rounds; r++) {
    for (const [url, into] of [
      [firstUrl, pair.firstRps],
      [cursorUrl, pair.cursorRps],
    ] as const) {
      const t = (
        await loadScenario(
          [service],
          url,
          once,
          () => false,
          () => {},
        )
      ).service;
      into.push(Math.round(t?.rps.median ?? Number.NaN));
    }
    log(
      `    round ${r + 1}/${settings.rounds} first ${pair.firstRps.at(-1)} req/s, cursor ${pair.cursorRps.at(-1)} req/s`,
    );
  }
  return pair;
}

/**
 * /v1/rates/latest again, on a fresh PostgreSQL schema: with the Redis limiter,
 * or (`withRedis` false) with the store limiter, where each tick's
 * check-and-consume is a PostgreSQL transaction (several instances without
 * Redis). The second has no target: it shows what that topology costs.
 */
async function scaleOutScenario(
  run: Run,
  scaleOut: ScaleOut,
  sample: ReturnType<typeof generateSample>,
  latest: { body: Buffer | undefined; route: ReferenceRoute | undefined },
  withRedis = true,
): Promise<{ report: ScenarioReport; check: Check; commits: CommitLatency[] }> {
  const latestBody = latest.body;
  const label = withRedis ? 'PostgreSQL + Redis' : 'PostgreSQL, no Redis (store limiter)';
  log(`bench: /v1/rates/latest on ${label}`);
  const pg = await preparePostgres(scaleOut.postgresUrl, sample);
  defer(() => pg.drop());
  const commits = [await measureCommits(pg.url)];
  const prefix = `mdsbench:${randomBytes(4).toString('hex')}:`;
  defer(() => dropRedisPrefix(scaleOut.redisUrl, prefix));
  const service = await startService(
    pg.url,
    pg.key,
    run.cpus.server,
    withRedis ? { MDS_REDIS_URL: scaleOut.redisUrl, MDS_REDIS_PREFIX: prefix } : {},
  );
  const body = (await answer(service.origin, '/v1/rates/latest', pg.key)).body;
  const check: Check = {
    name: 'PostgreSQL answer equals the embedded one (but meta.requestId), so the same references apply',
    ok: isDeepStrictEqual(withoutRequestId(body), withoutRequestId(latestBody)),
    detail: `${body.length} vs ${latestBody?.length ?? 0} bytes`,
  };
  // The same round trips with no pipeline (bench/reference-tick.ts): what this topology allows on this machine.
  const tick = latest.route
    ? await startReference('reference-tick', [latest.route], run.dir, run.cpus.server, false, {
        postgresUrl: pg.url,
        redisUrl: withRedis ? scaleOut.redisUrl : undefined,
        prefix,
        ...pg.reference,
      })
    : undefined;
  const tickName = withRedis ? 'node:http, Redis + commit per tick' : 'node:http, commit per tick';
  // Fresh references for this scenario too (startScenarioReferences says why).
  const refs = latest.route
    ? await startScenarioReferences(latest.route, run.dir, run.cpus.server)
    : undefined;
  const loaded = refs ? referenceTargets(refs, run.o.quick ? ['node:http'] : ['node:http', 'fastify']) : [];
  const targets = await loadScenario(
    [{ name: 'service', ...service }, ...loaded, ...(tick ? [{ name: tickName, ...tick } as const] : [])],
    '/v1/rates/latest',
    { ...run.settings, key: pg.key },
    () => true,
    log,
  );
  await stop(service.proc);
  if (tick) await stop(tick.proc);
  if (refs) await stopReferences(refs);
  commits.push(await measureCommits(pg.url));
  log(`bench: PostgreSQL commit latency before and after: ${commits.map(commitText).join('; ')}`);
  return {
    commits,
    report: {
      id: withRedis ? 'latest-pg' : 'latest-pg-store',
      title: `/v1/rates/latest, ${label}`,
      url: '/v1/rates/latest',
      store: withRedis ? 'postgres+redis' : 'postgres',
      bodyBytes: body.length,
      records: recordCount(body),
      targets,
    },
    check,
  };
}

async function main(argv: string[]): Promise<number> {
  let o: BenchOptions;
  try {
    const parsedOptions = parseOptions(argv);
    if (parsedOptions === 'help') {
      log(USAGE);
      return 0;
    }
    o = parsedOptions;
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const wrk = findOnPath('wrk');
  if (!wrk) {
    process.stderr.write(
      'bench: wrk is not installed. Install it from the distribution (Debian/Ubuntu: `sudo apt-get install wrk`) and run `npm run bench` again.\n',
    );
    return 2;
  }

  const commit = measuredCommit();
  const wants = (part: OnlyPart) => !o.only || o.only.has(part);
  const loadAtStart = loadAverage();
  const m = machine();
  const v = versions(await wrkVersion(wrk));
  const cpus = cpuPlan(m.cpus, o.threads);
  const date = new Date().toISOString();
  const endDate = benchEndDate();
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-'));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  log(
    `bench: ${o.quick ? 'quick' : 'full'} run${o.only ? ` of ${[...o.only].join(', ')} only` : ''} on ${commit.sha}${commit.dirty ? ' (uncommitted changes)' : ''}; ${m.cpus} CPU, ${cpus.note}; temp ${dir}`,
  );

  const sample = generateSample({ endDate });
  const sqlite = await prepareSqlite(dir, sample);
  log(`bench: SQLite store with the two-year sample ending ${endDate} (${sqlite.seconds.toFixed(1)} s)`);
  const scaleOut: ScaleOut | { reason: string } = !o.postgres
    ? { reason: 'left out (--skip-postgres)' }
    : !wants('postgres')
      ? { reason: 'left out (--only)' }
      : await detectScaleOut();
  if ('reason' in scaleOut) log(`bench: PostgreSQL + Redis not measured: ${scaleOut.reason}`);
  else {
    v.postgres = scaleOut.postgresVersion;
    v.redis = scaleOut.redisVersion;
  }

  // Start to first 200 first, before anything else loads the machine.
  let startup: Awaited<ReturnType<typeof measureStartup>> | undefined;
  if (wants('startup')) {
    log(`bench: start to first 200 (${o.startupRuns} run${o.startupRuns > 1 ? 's' : ''})`);
    startup = await measureStartup(sqlite.url, sqlite.key, o.startupRuns, cpus.server);
  }
  let cli: ReturnType<typeof measureCli> | undefined;
  if (wants('cli')) {
    log(`bench: admin CLI, npm run mds against node dist/mds.mjs (${o.cliRuns} runs each)`);
    cli = measureCli(sqlite.url, o.cliRuns);
  }

  const run: Run = {
    o,
    wants,
    cpus,
    dir,
    settings: {
      wrk,
      key: sqlite.key,
      seconds: o.duration,
      warmupSeconds: o.warmup,
      rounds: o.rounds,
      slices: o.slices,
      connections: o.connections,
      threads: o.threads,
      generatorCpus: cpus.generator,
    },
  };
  const local = await embedded(run, sqlite, endDate);
  const reports = [...local.reports];
  const checks = [...local.checks];
  let pgCommits: CommitLatency[] = [];
  if (!('reason' in scaleOut)) {
    const latest = { body: local.latestBody, route: local.latestRoute };
    const pg = await scaleOutScenario(run, scaleOut, sample, latest);
    reports.push(pg.report);
    checks.push(pg.check);
    pgCommits = pg.commits;
    const store = await scaleOutScenario(run, scaleOut, sample, latest, false);
    reports.push(store.report);
  }
  checks.push(sameHeadersCheck(reports), generatorCheck(reports, o.threads));

  // The imports write into stores of their own: they need PostgreSQL, not the scale-out scenarios.
  let ownStores = scaleOut;
  if (
    'reason' in scaleOut &&
    o.postgres &&
    !wants('postgres') &&
    (wants('import') || wants('import-beside-serving'))
  )
    ownStores = await detectScaleOut();
  const imports = wants('import')
    ? await measureImports({
        records: o.importRecords,
        quick: o.quick,
        sample,
        endDate,
        dir,
        postgresUrl: 'reason' in ownStores ? undefined : ownStores.postgresUrl,
        cpus: cpus.server,
        log,
      })
    : { records: 0, skipped: 'left out (--only)' };

  // Last: it writes a million observations into stores of its own.
  const importBesideServing = wants('import-beside-serving')
    ? await measureImportBesideServing({
        records: o.importRecords,
        sample,
        endDate,
        dir,
        postgresUrl: 'reason' in ownStores ? undefined : ownStores.postgresUrl,
        wrk,
        connections: o.connections,
        threads: o.threads,
        cpus,
        log,
      })
    : { records: 0, skipped: 'left out (--only)' };

  const partial: Omit<BenchReport, 'targets'> = {
    date,
    commit,
    command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
    mode: o.quick ? 'quick' : 'full',
    ...(o.only ? { only: [...o.only] } : {}),
    wallSeconds: Math.round(performance.now()) / 1000,
    settings: {
      generator: `wrk ${v.wrk}`,
      durationSeconds: o.duration,
      slices: o.slices,
      warmupSeconds: o.warmup,
      warmup: o.warmup
        ? `${o.warmup} s per target in one-second runs ${o.warmupEachScenario ? 'before each scenario' : 'once, before the first scenario'}`
        : 'none',
      ...(o.settle > 0 ? { settleSeconds: o.settle } : {}),
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
    scaleOut:
      'reason' in scaleOut
        ? { included: false, reason: scaleOut.reason }
        : { included: true, commits: pgCommits },
    startup,
    cli,
    imports,
    importBesideServing,
    pages: local.pages,
    checks,
  };
  const report: BenchReport = { ...partial, targets: judge(partial) };
  log(consoleReport(report));
  const json = o.output ? join(o.output, 'latest.json') : join(ROOT, 'bench/results/latest.json');
  const markdown = o.output ? join(o.output, 'performance.md') : join(ROOT, 'docs/performance.md');
  mkdirSync(dirname(json), { recursive: true });
  mkdirSync(dirname(markdown), { recursive: true });
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, markdownReport(report));
  log(`bench: wrote ${json} and ${markdown}`);
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
