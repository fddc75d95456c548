/**
 * The admin CLI as operators script it: `npm run mds -- keys list
 * --json` against the built executable called directly, `node dist/mds.mjs
 * keys list --json`, alternated run by run on the same store. The difference
 * is npm's own start and `premds` (scripts/build-if-stale.mjs), which used to
 * rebuild the project on every call.
 */
import { spawnSync } from 'node:child_process';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import { median } from './load.js';
import { benchEnv, CLI, ROOT } from './service.js';

export interface CliTiming {
  /** `npm run mds -- keys list --json`, each run, ms. */
  npmRunMs: number[];
  npmRunMedianMs: number;
  /** `node <flags> dist/mds.mjs keys list --json`, each run, ms. */
  directMs: number[];
  directMedianMs: number;
  /** Runs in which premds found the build stale and rebuilt (should be none: the bench builds first). */
  rebuilds: number;
}

function timed(command: string, args: string[]): { ms: number; stderr: string } {
  const started = performance.now();
  const run = spawnSync(command, args, { cwd: ROOT, env: benchEnv(), encoding: 'utf8' });
  const ms = Math.round((performance.now() - started) * 10) / 10;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  JSON.parse(run.stdout); // --json: one document, nothing else on stdout
  return { ms, stderr: run.stderr };
}

export function measureCli(dbUrl: string, runs: number): CliTiming {
  const command = ['keys', 'list', '--json', '--db', dbUrl];
  // npm sets npm_execpath under `npm run bench`: the same npm an operator's shell finds.
  const npm = process.env.npm_execpath;
  const npmRun: [string, string[]] = npm
    ? [process.execPath, [npm, 'run', 'mds', '--silent', '--', ...command]]
    : ['npm', ['run', 'mds', '--silent', '--', ...command]];
  const npmRunMs: number[] = [];
  const directMs: number[] = [];
  let rebuilds = 0;
  for (let i = 0; i < runs; i++) {
    const viaNpm = timed(...npmRun);
    npmRunMs.push(viaNpm.ms);
    if (viaNpm.stderr.includes('running npm run build')) rebuilds++;
    directMs.push(timed(process.execPath, [...NODE_FLAGS, CLI, ...command]).ms);
  }
  return {
    npmRunMs,
    npmRunMedianMs: median(npmRunMs),
    directMs,
    directMedianMs: median(directMs),
    rebuilds,
  };
}
