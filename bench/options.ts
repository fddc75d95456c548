/**
 * Command-line options of `npm run bench`. The full run takes several minutes;
 * `--quick` is for checking a change in under a minute (one short round).
 */
import { parseArgs } from 'node:util';

export interface BenchOptions {
  quick: boolean;
  /** Seconds each target is loaded in a round (wrk takes whole seconds; see `slices`). */
  duration: number;
  /** Seconds of warm-up per target before a scenario's rounds. */
  warmup: number;
  /**
   * The slices each target's `duration` of a round is taken in, alternated
   * between the targets (bench/load.ts loadScenario); it divides `duration`.
   * Default: one a second.
   */
  slices: number;
  /**
   * Seconds the embedded service is left idle once it first answers, before the
   * bench sends it anything else (default 0: loaded at once, as after a restart
   * behind a balancer). docs/performance-notes.md, "a service loaded in its first
   * seconds", says why this changes what the same build measures.
   */
  settle: number;
  /** Warm every target before every scenario (full), or each target once at the start (quick). */
  warmupEachScenario: boolean;
  rounds: number;
  connections: number;
  threads: number;
  /** Observations generated for the import measurement; 0 skips it. */
  importRecords: number;
  /** Runs of the start-to-first-200 measurement. */
  startupRuns: number;
  /** Runs of each admin CLI timing (`npm run mds` and the built executable). */
  cliRuns: number;
  postgres: boolean;
  /** `--only`: the parts to measure (ONLY_PARTS); undefined measures everything. */
  only?: Set<OnlyPart>;
  /** Directory for performance.md and latest.json instead of docs/ and bench/results/. */
  output?: string;
}

/** The embedded scenarios, by id (bench/run.ts `scenarios`). */
export const SCENARIO_IDS = [
  'latest',
  'latest-eur-usd',
  'premium',
  'history',
  'history-cursor',
  'premium-history',
  'gold',
  'me',
] as const;

/**
 * What `--only` can name: an embedded scenario, `pages` (the history pages
 * alternated), `postgres` (both PostgreSQL scenarios), `startup`, `cli`, `import`,
 * `import-beside-serving` (decisions 55: on SQLite, and on PostgreSQL when it answers).
 */
export const ONLY_PARTS = [
  ...SCENARIO_IDS,
  'pages',
  'postgres',
  'startup',
  'cli',
  'import',
  'import-beside-serving',
] as const;
export type OnlyPart = (typeof ONLY_PARTS)[number];

export const USAGE = `usage: npm run bench -- [options]

  --quick               one 1-second round per target, 200,000-record import (under a minute)
  --duration <s>        seconds each target is loaded in a round (default 5, quick 1)
  --warmup <s>          seconds of warm-up per target, in one-second runs (default 3, quick 1)
  --settle <s>          seconds the embedded service is left idle once it answers, before any load (default 0)
  --rounds <n>          interleaved rounds (default 3, quick 1)
  --slices <n>          slices of each target's run in a round, alternated between the
                        targets; divides --duration (default: one a second; 1: one run)
  --connections <n>     wrk connections (default 50)
  --threads <n>         wrk threads (default 1)
  --import-records <n>  observations for the import measurement (default 1000000, quick 200000; 0 skips)
  --skip-postgres       leave out PostgreSQL + Redis even when they answer
  --only <parts>        measure only these, comma-separated (every other target is SKIP):
                        ${ONLY_PARTS.join(', ')}
  --output <dir>        write performance.md and latest.json there, not to docs/ and bench/results/
  -h, --help            this text

Environment: MDS_BENCH_POSTGRES_URL / MDS_TEST_POSTGRES_URL and MDS_BENCH_REDIS_URL /
MDS_TEST_REDIS_URL choose PostgreSQL and Redis (default: postgres://postgres@127.0.0.1:5432/test
and redis://127.0.0.1:6379, used when they answer).`;

function positiveInt(text: string | undefined, name: string, fallback: number, allowZero = false): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) throw new Error(`--${name}: must be a whole number`);
  return n;
}

export function parseOptions(argv: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      settle: { type: 'string' },
      rounds: { type: 'string' },
      slices: { type: 'string' },
      connections: { type: 'string' },
      threads: { type: 'string' },
      'import-records': { type: 'string' },
      'skip-postgres': { type: 'boolean' },
      only: { type: 'string' },
      output: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick === true;
  const duration = positiveInt(values.duration, 'duration', quick ? 1 : 5);
  const slices = positiveInt(values.slices, 'slices', duration);
  if (duration % slices !== 0) {
    throw new Error(
      `--slices ${slices}: must divide --duration ${duration} (wrk takes whole seconds); try --slices ${duration} or 1`,
    );
  }
  return {
    quick,
    duration,
    slices,
    warmup: positiveInt(values.warmup, 'warmup', quick ? 1 : 3, true),
    settle: positiveInt(values.settle, 'settle', 0, true),
    warmupEachScenario: !quick,
    rounds: positiveInt(values.rounds, 'rounds', quick ? 1 : 3),
    connections: positiveInt(values.connections, 'connections', 50),
    threads: positiveInt(values.threads, 'threads', 1),
    importRecords: positiveInt(values['import-records'], 'import-records', quick ? 200_000 : 1_000_000, true),
    startupRuns: quick ? 1 : 3,
    cliRuns: quick ? 3 : 7,
    postgres: values['skip-postgres'] !== true,
    only: values.only === undefined ? undefined : onlyParts(values.only),
    output: values.output,
  };
}

function onlyParts(text: string): Set<OnlyPart> {
  const parts = text.split(',').map((p) => p.trim());
  const unknown = parts.filter((p) => !(ONLY_PARTS as readonly string[]).includes(p));
  if (unknown.length || parts.length === 0)
    throw new Error(`--only: unknown part(s) ${unknown.join(', ')}; one of ${ONLY_PARTS.join(', ')}`);
  return new Set(parts as OnlyPart[]);
}
