/**
 * `npm run bench [-- --quick] [-- --only <parts>]`: the service against the
 * machine's limits, in one run; writes docs/performance.md and
 * bench/results/latest.json (bench/report.ts judges the targets).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { defaultOf } from '../src/config/environment.js';
import { DAY_MS } from '../src/domain/dates.js';
import { generateSample } from '../src/sample/generate.js';
import { measureAdminImports } from './admin-imports.js';
import { measureConvert } from './convert.js';
import { measureImports } from './import.js';
import { measureImportBesideServing } from './import-beside-serving.js';
import { measureIntervals } from './intervals.js';
import { type Check, type LoadSettings, loadScenario, type Target } from './load.js';
import { type Part, parseOptions, USAGE } from './options.js';
import { type CpuPlan, cleanUp, cpuPlan, defer, stop } from './proc.js';
import { measureQuotes } from './quotes.js';
import type { ReferenceConfig } from './reference-config.js';
import { checkReferences, startReference } from './references.js';
import { type BenchReport, judge, markdownReport, type Scenario } from './report.js';
import { answer, measureCli, measureStartup, ROOT, startService } from './service.js';
import { detectScaleOut, freshSchema, type Prepared, prepare, redisPrefix, type ScaleOut } from './setup.js';
import { measureWebhooks } from './webhooks.js';

import { wrkVersion } from './wrk.js';

const URL_PATH = '/v1/rates/latest';

/** Progress lines (`bench: …`) carry the time since start. */
function log(line: string): void {
  const at = `[${(performance.now() / 1000).toFixed(1).padStart(5)} s]`;
  process.stdout.write(line.startsWith('bench: ') ? `${at} ${line.slice(7)}\n` : `${line}\n`);
}

interface Run {
  cpus: CpuPlan;
  settings: LoadSettings;
  checks: Check[];
}

/**
 * One scenario of the hot path: the service on `store`, bare node:http, and
 * the limit (the same-headers server embedded, the tick reference on
 * PostgreSQL: docs/decisions.md 73), each started for it, checked against the
 * service's answer, then loaded in the same rounds.
 */
async function scenario(
  run: Run,
  id: Scenario['id'],
  label: string,
  store: Prepared,
  limit: Pick<ReferenceConfig, 'sameHeaders' | 'tick'>,
  env: Record<string, string> = {},
): Promise<Scenario> {
  const title = `${URL_PATH}, ${label}`;
  log(`bench: ${title}`);
  const service = await startService(store.url, store.key, run.cpus.server, env);
  const served = await answer(service.origin, URL_PATH, store.key);
  const bare = await startReference(served.route, run.cpus.server);
  const ref = await startReference(served.route, run.cpus.server, limit);
  const checks = await checkReferences(served, bare.origin, limit.tick ? undefined : ref.origin);
  run.checks.push(...checks.map((c) => ({ ...c, name: `${label}: ${c.name}` })));
  const targets: Target[] = [
    { name: 'service', ...service },
    { name: 'node:http', ...bare },
    { name: limit.tick ? 'node:http, tick' : 'node:http, same headers', ...ref },
  ];
  const summary = await loadScenario(targets, URL_PATH, { ...run.settings, key: store.key }, log);
  await Promise.all(targets.map((t) => stop(t.proc)));
  return { id, title, targets: summary };
}

/** The machine, and HEAD at the start of the run with whether the work tree differed from it. */
function machineAndCommit(): Pick<BenchReport, 'machine' | 'commit'> {
  const run = (file: string, ...args: string[]) => execFileSync(file, args, { cwd: ROOT, encoding: 'utf8' });
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpu?.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: run('uname', '-r').trim(),
  };
  const sha = run('git', 'rev-parse', 'HEAD').trim();
  const changes = run('git', 'status', '--porcelain').split('\n').filter(Boolean);
  const dirty = changes.length > 0;
  return { machine, commit: { sha, dirty, ...(dirty ? { changes: changes.map((l) => l.slice(3)) } : {}) } };
}

async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  if (o === 'help') {
    log(USAGE);
    return 0;
  }
  const wants = (part: Part) => !o.only || o.only.has(part);
  // Only the parts under HTTP load need it: `--only webhooks,startup,cli,import` runs without.
  const wrk = await wrkVersion();
  if (!wrk && (['latest', 'postgres', 'import-beside-serving', 'convert'] as const).some(wants))
    throw new Error('wrk is not installed (Debian/Ubuntu: `sudo apt-get install wrk`)');
  const { machine, commit } = machineAndCommit();
  const cpus = cpuPlan(machine.cpus);
  const endDate = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), 'mds-bench-'));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  log(
    `bench: ${o.quick ? 'quick' : 'full'} run on ${commit.sha}${commit.dirty ? ' (uncommitted changes)' : ''}`,
  );
  const versions: Record<string, string> = { node: process.version, ...(wrk ? { wrk } : {}) };
  const sample = generateSample({ endDate });
  const sqlite = await prepare(join(dir, 'bench.sqlite'), sample);
  const so: ScaleOut | { reason: string } = !o.postgres
    ? { reason: 'left out (--skip-postgres)' }
    : (['postgres', 'import', 'import-beside-serving', 'admin-imports', 'quotes', 'intervals'] as const).some(
          wants,
        )
      ? await detectScaleOut()
      : { reason: 'left out (--only)' };
  const scaled = 'reason' in so ? undefined : so;
  if ('reason' in so) log(`bench: PostgreSQL + Redis not measured: ${so.reason}`);
  else Object.assign(versions, { postgres: so.postgresVersion, redis: so.redisVersion });

  const settings = { key: sqlite.key, seconds: o.duration, warmupSeconds: o.warmup, rounds: o.rounds };
  const run: Run = { cpus, settings: { ...settings, generatorCpus: cpus.generator }, checks: [] };
  const r: Omit<BenchReport, 'targets'> = {
    date: new Date().toISOString(),
    commit,
    command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
    mode: o.quick ? 'quick' : 'full',
    ...(o.only ? { only: [...o.only] } : {}),
    wallSeconds: 0,
    settings: { durationSeconds: o.duration, warmupSeconds: o.warmup, rounds: o.rounds, pinning: cpus.note },
    machine,
    loadAverage: { start: loadavg()[0]!, end: 0 },
    versions,
    scenarios: [],
    ...('reason' in so ? { scaleOutSkipped: so.reason } : {}),
    checks: run.checks,
  };
  // Start-up first, before anything else has loaded the machine.
  if (wants('startup')) {
    log(`bench: spawn to first 200 (${o.startupRuns} run(s))`);
    r.startup = await measureStartup(sqlite.url, sqlite.key, o.startupRuns, cpus.server);
  }
  if (wants('cli')) {
    log(`bench: admin CLI, npm run mds (${o.cliRuns} runs)`);
    r.cli = measureCli(sqlite.url, o.cliRuns);
  }
  if (wants('latest'))
    r.scenarios.push(await scenario(run, 'latest', 'embedded', sqlite, { sameHeaders: true }));
  for (const redis of scaled && wants('postgres') ? [scaled.redisUrl, undefined] : []) {
    const pg = await prepare(await freshSchema(scaled!.postgresUrl, 'load'), sample);
    const prefix = redisPrefix(scaled!.redisUrl);
    const env: Record<string, string> = redis ? { MDS_REDIS_URL: redis, MDS_REDIS_PREFIX: prefix } : {};
    const tick = { postgresUrl: pg.url, redisUrl: redis, prefix, ...pg.reference };
    const id = redis ? 'latest-pg' : 'latest-pg-store';
    const label = redis ? 'PostgreSQL + Redis' : 'PostgreSQL, no Redis (store limiter)';
    r.scenarios.push(await scenario(run, id, label, pg, { tick }, env));
  }
  if (wants('convert'))
    r.convert = await measureConvert({ store: sqlite, cpus: cpus.server, settings: run.settings, log });
  const postgresUrl = scaled?.postgresUrl;
  const imports = { records: o.importRecords, sample, endDate, dir, postgresUrl, log };
  if (wants('import') && o.importRecords > 0)
    r.imports = await measureImports({ ...imports, cpus: cpus.server });
  if (wants('webhooks')) {
    const pollMs = Number(defaultOf('MDS_WEBHOOK_POLL_MS'));
    r.webhooks = await measureWebhooks({ dir, cpus: cpus.server, pollMs, log });
  }
  // Last: it writes the most into stores of its own.
  if (wants('import-beside-serving') && o.importRecords > 0)
    r.importBesideServing = await measureImportBesideServing({ ...imports, cpus });
  if (wants('admin-imports') && o.importRecords > 0)
    r.adminImports = await measureAdminImports({ sample, endDate, dir, postgresUrl, log, cpus });

  if (wants('quotes'))
    r.quotes = await measureQuotes({
      sample,
      dir,
      postgresUrl,
      cpus,
      seconds: o.duration,
      warmup: o.warmup,
      quick: o.quick,
      log,
    });

  if (wants('intervals'))
    r.intervals = await measureIntervals({ sample, endDate, dir, postgresUrl, cpus, quick: o.quick, log });

  r.wallSeconds = Math.round(performance.now()) / 1000;
  r.loadAverage.end = loadavg()[0]!;
  const report: BenchReport = { ...r, targets: judge(r) };
  const markdown = markdownReport(report);
  log(markdown);
  const json = o.output ? join(o.output, 'latest.json') : join(ROOT, 'bench/results/latest.json');
  const md = o.output ? join(o.output, 'performance.md') : join(ROOT, 'docs/performance.md');
  if (o.output) mkdirSync(o.output, { recursive: true });
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(md, markdown);
  log(`bench: wrote ${json} and ${md}`);
  const failed =
    report.targets.filter((t) => t.verdict === 'FAIL').length + run.checks.filter((c) => !c.ok).length;
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
      process.exitCode = 2;
    },
  )
  .finally(() => cleanUp());
