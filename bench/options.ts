/** Command-line options of `npm run bench`. */
import { parseArgs } from 'node:util';

/** What `--only` can name. */
const PARTS = [
  'latest',
  'postgres',
  'startup',
  'cli',
  'import',
  'import-beside-serving',
  'webhooks',
  'admin-imports',
  'quotes',
  'convert',
  'intervals',
] as const;
export type Part = (typeof PARTS)[number];

export const USAGE = `usage: npm run bench -- [options]

  --quick               1-s rounds, a 200,000-record import: for checking a change
  --duration <s>        seconds each target is loaded in a round (default 5, quick 1)
  --rounds <n>          rounds, each target once a round (default 5, quick 3)
  --import-records <n>  observations for the imports (default 1000000, quick 200000; 0 leaves them out)
  --skip-postgres       leave out PostgreSQL + Redis even when they answer
  --only <parts>        measure only these, comma-separated: ${PARTS.join(', ')}
  --output <dir>        write performance.md and latest.json there, not to docs/ and bench/results/

PostgreSQL and Redis: MDS_BENCH_POSTGRES_URL or MDS_TEST_POSTGRES_URL, MDS_BENCH_REDIS_URL or
MDS_TEST_REDIS_URL (default postgres://postgres@127.0.0.1:5432/test and redis://127.0.0.1:6379).`;

function whole(text: string | undefined, name: string, fallback: number, min = 1): number {
  const n = Number(text ?? fallback);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name}: must be a whole number of at least ${min}`);
  return n;
}

export function parseOptions(argv: string[]) {
  const string = { type: 'string' } as const;
  const { values: v } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      duration: string,
      rounds: string,
      'import-records': string,
      'skip-postgres': { type: 'boolean' },
      only: string,
      output: string,
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) return 'help';
  const quick = v.quick === true;
  const only = v.only?.split(',').map((p) => p.trim());
  const unknown = only?.filter((p) => !(PARTS as readonly string[]).includes(p)) ?? [];
  if (unknown.length)
    throw new Error(`--only: unknown part(s) ${unknown.join(', ')}; one of ${PARTS.join(', ')}`);
  return {
    quick,
    duration: whole(v.duration, 'duration', quick ? 1 : 5),
    /** One-second warm-up runs per target. */
    warmup: quick ? 1 : 3,
    rounds: whole(v.rounds, 'rounds', quick ? 3 : 5),
    importRecords: whole(v['import-records'], 'import-records', quick ? 200_000 : 1_000_000, 0),
    startupRuns: quick ? 1 : 3,
    cliRuns: quick ? 3 : 7,
    postgres: v['skip-postgres'] !== true,
    only: only && new Set(only as Part[]),
    output: v.output,
  };
}
