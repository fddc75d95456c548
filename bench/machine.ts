/** The machine, the versions and the commit a result was measured with. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { SqliteConnection } from '../src/storage/sqlite-connection.js';
import { ROOT } from './service.js';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
}

export function machine(): Machine {
  let cpuModel = 'unknown';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux
  }
  let kernel = 'unknown';
  try {
    kernel = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
  } catch {
    // not Linux
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel,
  };
}

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The 1-minute load average (0 when unknown). */
export function loadAverage(): number {
  return loadavg()[0] ?? 0;
}

export interface Versions {
  node: string;
  fastify: string;
  fastJsonStringify: string;
  sqlite: string;
  betterSqlite3: string;
  wrk: string;
  postgres?: string;
  redis?: string;
}

export function versions(wrk: string): Versions {
  // Through SqliteConnection: a statement left to the collector aborts Node 24 (sqlite-connection.ts).
  const db = SqliteConnection.open(':memory:');
  const sqlite = db.statement('select sqlite_version()', 'pluck').get() as string;
  db.close();
  return {
    node: process.version,
    fastify: packageVersion('fastify'),
    fastJsonStringify: packageVersion('fast-json-stringify'),
    sqlite,
    betterSqlite3: packageVersion('better-sqlite3'),
    wrk,
  };
}

/** The code a run measured: `git rev-parse HEAD`, and whether the work tree differed from it. */
export interface MeasuredCommit {
  /** The full commit hash, or 'unknown' outside a git checkout. */
  sha: string;
  /** Uncommitted changes at the start of the run (then the figures belong to no commit exactly). */
  dirty: boolean;
  /** The changed paths when dirty (`git status --porcelain`), at most 20. */
  changes?: string[];
  /** How the commit was known, when not read by the run itself (a report re-rendered from older results). */
  note?: string;
}

export function measuredCommit(cwd = ROOT): MeasuredCommit {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const sha = git('rev-parse', 'HEAD').trim();
    const changes = git('status', '--porcelain')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.slice(3));
    return changes.length ? { sha, dirty: true, changes: changes.slice(0, 20) } : { sha, dirty: false };
  } catch {
    return { sha: 'unknown', dirty: false };
  }
}
