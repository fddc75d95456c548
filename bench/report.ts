/**
 * A run's result: every target judged from the figures this run measured (never
 * assumed), written as bench/results/latest.json and docs/performance.md with
 * the commit measured; nothing hand-written (docs/decisions.md 73 and 78).
 */
import { type AdminImportsReport, adminImportsTargets } from './admin-imports.js';
import { type ConvertReport, convertTargets } from './convert.js';
import type { ImportReport, ImportResult } from './import.js';
import { BESIDE_TARGETS, type BesideReport } from './import-beside-serving.js';
import { type IntervalsReport, intervalsTargets } from './intervals.js';
import { type Check, median, TARGETS, type TargetName, type TargetSummary } from './load.js';
import { type QuotesReport, quotesTargets } from './quotes.js';
import type { Timings } from './service.js';
import type { WebhooksReport } from './webhooks.js';
import { CONNECTIONS } from './wrk.js';

export interface Scenario {
  id: 'latest' | 'latest-pg' | 'latest-pg-store';
  title: string;
  targets: Partial<Record<TargetName, TargetSummary>>;
}

/** HEAD at the start of the run; `dirty` when the work tree differed, the figures then belong to no commit. */
type MeasuredCommit = { sha: string; dirty: boolean; changes?: string[] };

type TargetLine = { target: string; required: string; measured: string; verdict: 'PASS' | 'FAIL' | 'SKIP' };

export interface BenchReport {
  date: string;
  commit: MeasuredCommit;
  command: string;
  mode: 'quick' | 'full';
  /** `--only`: the parts measured. */
  only?: string[];
  wallSeconds: number;
  settings: { durationSeconds: number; warmupSeconds: number; rounds: number; pinning: string };
  machine: { cpus: number; cpuModel: string; memoryGiB: number; kernel: string };
  /** 1-minute load average at the start and the end: other work on the machine shows here. */
  loadAverage: { start: number; end: number };
  versions: Record<string, string>;
  scenarios: Scenario[];
  /** Why PostgreSQL + Redis were not measured, when they were not. */
  scaleOutSkipped?: string;
  startup?: Timings;
  cli?: Timings;
  imports?: ImportReport;
  importBesideServing?: BesideReport;
  webhooks?: WebhooksReport;
  adminImports?: AdminImportsReport;
  quotes?: QuotesReport;
  convert?: ConvertReport;
  intervals?: IntervalsReport;
  checks: Check[];
  targets: TargetLine[];
}

const RSS_LIMIT_MB = 150;
/** The hot path's target (docs/decisions.md 73): CPU per answer against the same-headers server. */
const HOT_PATH_MIN = 0.7;

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '–');
const ms = (us: number) => (Number.isFinite(us) ? `${(us / 1000).toFixed(2)} ms` : '–');
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

/**
 * `a` against `b`, the median of the rounds' own ratios (a round's two runs
 * met the same moments of the machine; docs/decisions.md 78): requests per
 * second a/b, or with `cpu` CPU per answer b/a (the cheaper, the higher).
 */
export function ratio(s: Scenario | undefined, a: TargetName, b: TargetName, cpu = false): number {
  return median(roundRatios(s, a, b, cpu));
}

function roundRatios(s: Scenario | undefined, a: TargetName, b: TargetName, cpu: boolean): number[] {
  const x = s?.targets[a]?.rounds ?? [];
  const y = s?.targets[b]?.rounds ?? [];
  if (x.length !== y.length) return [];
  return x.map((r, i) => (cpu ? y[i]!.cpuUs / r.cpuUs : r.rps / y[i]!.rps));
}

/** The judged ratio, then each round's own, so that a verdict near its target shows the rounds' spread. */
function ratioText(s: Scenario | undefined, a: TargetName, b: TargetName, cpu = false): string {
  const rounds = roundRatios(s, a, b, cpu);
  const each = rounds.length > 1 ? ` (rounds ${rounds.map((x) => x.toFixed(2)).join(', ')})` : '';
  return `${times(ratio(s, a, b, cpu))}${each}`;
}

/** The scale-out limit the tick reference measured, beside the target it explains. */
function tickLimit(s: Scenario): string {
  if (!s.targets['node:http, tick']) return '';
  return `; the limit, node:http waiting for the same round trips per tick, runs at ${ratioText(s, 'node:http, tick', 'node:http')}, the service at ${ratioText(s, 'service', 'node:http, tick')} of it`;
}

type Figure = [measured: string, ok: boolean] | string | undefined;

/**
 * Every target, judged from this run's figures. A figure is [text, ok], or a
 * reason it was not measured (a part the run left out is SKIP, never FAIL).
 */
export function judge(r: Omit<BenchReport, 'targets'>): TargetLine[] {
  const lines: TargetLine[] = [];
  const add = (target: string, required: string, f: Figure) =>
    lines.push(
      Array.isArray(f)
        ? { target, required, measured: f[0], verdict: f[1] ? 'PASS' : 'FAIL' }
        : { target, required, measured: f ?? 'not run', verdict: 'SKIP' },
    );
  const sc = (id: Scenario['id']) => r.scenarios.find((s) => s.id === id);
  const notScaled = r.scaleOutSkipped && `not run: ${r.scaleOutSkipped}`;

  const latest = sc('latest');
  const same = latest?.targets['node:http, same headers'];
  const service = latest?.targets.service;
  const hot = latest && same && service;
  const cpu = ratio(latest, 'service', 'node:http, same headers', true);
  add(
    '/v1/rates/latest, embedded: CPU per answer against node:http sending the same bytes and headers',
    `≥ ${HOT_PATH_MIN.toFixed(2)}× (that server's CPU per answer ÷ the service's)`,
    hot && [
      `${ratioText(latest, 'service', 'node:http, same headers', true)}: service ${service.cpuUs} µs, that server ${same.cpuUs} µs`,
      cpu >= HOT_PATH_MIN,
    ],
  );
  add(
    '/v1/rates/latest, embedded: p99',
    "≤ 2× that server's p99",
    hot && [`${ms(service.p99Us)} (${times(service.p99Us / same.p99Us)})`, service.p99Us <= 2 * same.p99Us],
  );
  for (const [id, label, min, p99Max] of [
    ['latest-pg', 'PostgreSQL + Redis', 0.6, 3],
    ['latest-pg-store', 'PostgreSQL without Redis (store limiter)', 0.35, 0],
  ] as const) {
    const s = sc(id);
    const x = s?.targets.service;
    const bare = s?.targets['node:http'];
    const rps = ratio(s, 'service', 'node:http');
    const ran = s && x && bare;
    add(
      `/v1/rates/latest, ${label}: requests/s against node:http`,
      `≥ ${min.toFixed(2)}×`,
      ran ? [`${ratioText(s, 'service', 'node:http')}${tickLimit(s)}`, rps >= min] : notScaled,
    );
    if (p99Max)
      add(
        `/v1/rates/latest, ${label}: p99`,
        `≤ ${p99Max}× node:http's p99`,
        ran ? [`${ms(x.p99Us)} (${times(x.p99Us / bare.p99Us)})`, x.p99Us <= p99Max * bare.p99Us] : notScaled,
      );
  }

  const failing = r.scenarios.filter(
    (s) => (s.targets.service?.socketErrors ?? 1) + (s.targets.service?.non2xx ?? 0) > 0,
  );
  const count = (f: (t: TargetSummary) => number) =>
    r.scenarios.reduce((n, s) => n + (s.targets.service ? f(s.targets.service) : 0), 0);
  const errors = `${count((t) => t.socketErrors)} errors, ${count((t) => t.non2xx)} non-2xx`;
  const where = failing.length ? ` (${failing.map((s) => s.title).join('; ')})` : '';
  add(
    'Zero socket errors and zero non-2xx answers from the service, every scenario',
    '0 and 0',
    r.scenarios.length ? [errors + where, !failing.length] : undefined,
  );
  for (const [s, label] of [
    [latest, 'embedded'],
    [sc('latest-pg'), 'PostgreSQL + Redis'],
  ] as const) {
    const mb = (s?.targets.service?.peakRssKb ?? 0) / 1024;
    add(
      `Service peak RSS under load, ${label}`,
      `≤ ${RSS_LIMIT_MB} MB`,
      s && [`${mb.toFixed(1)} MB`, mb <= RSS_LIMIT_MB],
    );
  }

  const st = r.startup;
  add(
    'Spawn of `mds serve` to the first 200, two-year sample',
    '< 1000 ms',
    st && [`${int(st.medianMs)} ms (median of ${st.runsMs.map(int).join(', ')} ms)`, st.medianMs < 1000],
  );
  const cli = r.cli;
  add(
    '`npm run mds -- keys list --json`, median',
    '< 1000 ms',
    cli && [`${int(cli.medianMs)} ms (median of ${cli.runsMs.map(int).join(', ')} ms)`, cli.medianMs < 1000],
  );
  const rate = (x: ImportResult | undefined, min: number): Figure =>
    x && [
      x.error
        ? `failed: ${x.error}`
        : `${int(x.perSecond)} obs/s (${int(x.records)} in ${x.seconds.toFixed(2)} s)`,
      x.perSecond >= min,
    ];
  add('`mds import rates` into SQLite', '≥ 200,000 obs/s', rate(r.imports?.sqlite, 200_000));
  add(
    '`mds import rates` into PostgreSQL',
    '≥ 50,000 obs/s',
    rate(r.imports?.postgres, 50_000) ?? (r.imports && notScaled),
  );

  const beside = r.importBesideServing;
  for (const [label, x, limit] of [
    ['SQLite', beside?.sqlite, 'node:http on the same core'],
    ['PostgreSQL', beside?.postgres, 'the tick reference, store limiter'],
  ] as const) {
    const what = `Import${beside ? ` of ${int(beside.records)}` : ''} beside serving, ${label}`;
    const failed = x?.import.error ? ` (the import failed: ${x.import.error})` : '';
    const notRun = beside && label === 'PostgreSQL' ? notScaled : undefined;
    add(
      `${what}: non-2xx answers and errors (/healthz included)`,
      '0',
      x
        ? [`${x.errors + x.healthz.failures}${failed}`, x.errors + x.healthz.failures === 0 && !failed]
        : notRun,
    );
    add(
      `${what}: /healthz p99`,
      `< ${BESIDE_TARGETS.healthzP99Ms} ms`,
      x
        ? [
            `${x.healthz.p99Ms.toFixed(1)} ms (max ${x.healthz.maxMs.toFixed(1)} ms, ${x.healthz.probes} probes)`,
            x.healthz.p99Ms < BESIDE_TARGETS.healthzP99Ms,
          ]
        : notRun,
    );
    const ref =
      x &&
      `; the limit (${limit}) beside the same import: ${x.reference.worstP99Ms.toFixed(1)} ms${x.reference.import.error ? `, its import failed: ${x.reference.import.error}` : ''}`;
    add(
      `${what}: /v1/rates/latest p99, worst 1-s run`,
      `< ${BESIDE_TARGETS.latestP99Ms} ms`,
      x
        ? [
            `${x.worstP99Ms.toFixed(1)} ms (max ${x.maxMs.toFixed(1)} ms, import ${x.import.seconds.toFixed(1)} s)${ref}`,
            x.worstP99Ms < BESIDE_TARGETS.latestP99Ms,
          ]
        : notRun,
    );
  }
  const hooks = r.webhooks;
  for (const run of hooks?.runs ?? []) {
    // The poll, then an attempt on 127.0.0.1: a second more is a receiver held up by another.
    const limit = hooks!.pollMs + 1000;
    add(
      `Webhook delivery to a healthy receiver beside ${run.hanging} hanging ones, SQLite: delay from the key's commit, p95`,
      `< ${int(limit)} ms (the poll, ${int(hooks!.pollMs)} ms, + 1 s)`,
      [
        `${int(run.p95Ms)} ms (median ${int(run.medianMs)} ms, max ${int(run.maxMs)} ms, ${run.events} events${run.lost ? `, ${run.lost} lost` : ''})`,
        run.p95Ms < limit && run.lost === 0,
      ],
    );
  }
  for (const [target, required, f] of adminImportsTargets(r.adminImports, notScaled))
    add(target, required, f);
  for (const [target, required, f] of quotesTargets(r.quotes, notScaled)) add(target, required, f);
  for (const [target, required, f] of convertTargets(r.convert)) add(target, required, f);
  for (const [target, required, f] of intervalsTargets(r.intervals, notScaled)) add(target, required, f);
  return lines;
}

function mdTable(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function scenarioRows(r: BenchReport): string[][] {
  return r.scenarios.flatMap((s) =>
    TARGETS.filter((name) => s.targets[name]).map((name, i) => {
      const t = s.targets[name]!;
      const cpu = `${t.cpuUs.toFixed(1)} (${t.rounds.map((x) => x.cpuUs.toFixed(1)).join(', ')})`;
      const rss = `${(t.peakRssKb / 1024).toFixed(0)} MB`;
      return [
        i ? '' : s.title,
        name,
        int(t.rps),
        cpu,
        ms(t.p50Us),
        ms(t.p99Us),
        rss,
        `${t.socketErrors} / ${t.non2xx}`,
      ];
    }),
  );
}

export function markdownReport(r: BenchReport): string {
  const s = r.settings;
  const v = Object.entries(r.versions)
    .map(([k, x]) => `${k} ${x}`)
    .join(', ');
  const extra = [
    r.scaleOutSkipped && `PostgreSQL + Redis: not measured (${r.scaleOutSkipped})`,
    ...r.checks.map((c) => `Check, ${c.name}: ${c.ok ? 'ok' : 'FAILED'} (${c.detail})`),
  ].filter((x): x is string => typeof x === 'string');
  return `# Performance

Written by \`${r.command}\` (bench/run.ts); do not edit by hand. It holds only what that run
measured; the same figures are in \`bench/results/latest.json\`. Targets: docs/decisions.md 73 and 78.

- Commit: ${r.commit.sha}${r.commit.dirty ? ` with uncommitted changes (${r.commit.changes?.join(', ')})` : ''}
- Date: ${r.date} (${r.mode} run${r.only ? `, only ${r.only.join(', ')}` : ''}, ${r.wallSeconds.toFixed(0)} s)
- Machine: ${r.machine.cpus} CPU, ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB RAM, Linux ${r.machine.kernel}; 1-minute load average ${r.loadAverage.start.toFixed(2)} at the start, ${r.loadAverage.end.toFixed(2)} at the end
- Versions: ${v}
- Load: wrk, one thread, ${CONNECTIONS} connections; per target ${s.warmupSeconds} one-second warm-up run(s), then ${s.rounds} round(s) of ${s.durationSeconds} s, each target once a round, the order rotated and reversed every other round; ${s.pinning}

## Scenarios

CPU per answer is the target's own user + system CPU (/proc) over the answers of a run: the median of the
rounds, each round's in brackets. req/s, p50 and p99 are medians of the rounds; peak RSS is the process's VmHWM; errors are socket errors and
answers outside 2xx, warm-up included.

${mdTable(['Scenario', 'Target', 'req/s', 'CPU µs/answer', 'p50', 'p99', 'peak RSS', 'errors / non-2xx'], scenarioRows(r))}

## Targets

A ratio is the median of the rounds' own ratios, each round's in brackets.

${mdTable(
  ['', 'Target', 'Required', 'Measured'],
  r.targets.map((t) => [t.verdict, t.target, t.required, t.measured]),
)}

${extra.map((l) => `- ${l}`).join('\n')}

## How it is measured

The service is \`mds serve\` (the \`mds\` executable's node flags) on a store holding the two-year sample and a key
provisioned through the admin use-cases. node:http (bench/reference-http.ts) sends the service's exact bytes;
with the same headers, also every header the service sent and a fresh request id in each answer; the tick
reference (bench/reference-tick.ts) answers only after the service's own round trips of that topology per tick.
Each reference is started fresh with the service's V8 flags and checked against the service's answer. The
servers and the import run on one core, wrk on the other (taskset); PostgreSQL and Redis are not pinned.
`;
}
