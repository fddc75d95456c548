/**
 * Says, once per run, which backends the contract suites run against; and, at
 * the end, fails the run if a process a test started is still alive (each is
 * killed first): children.ts writes them down.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { POSTGRES_URL, REDIS_URL } from './backends.js';
import { startTime } from './process-start.js';

export default function setup(project: TestProject): () => void {
  const ran = ['sqlite+memory-limiter'];
  if (POSTGRES_URL) ran.push(REDIS_URL ? 'postgres+redis-limiter' : 'postgres+memory-limiter');
  const skipped = POSTGRES_URL ? '' : ' (PostgreSQL/Redis suites skipped: MDS_TEST_POSTGRES_URL not set)';
  process.stdout.write(`\nbackends under test: ${ran.join(', ')}${skipped}\n\n`);

  const file = join(tmpdir(), `mds-test-children-${process.pid}-${randomBytes(4).toString('hex')}.tsv`);
  writeFileSync(file, '');
  project.provide('childrenFile', file);

  return () => {
    const survivors: string[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [pid, started, what] = line.split('\t');
      if (!pid) continue;
      // The same process, not another that reused its pid.
      const now = startTime(Number(pid));
      if (now === null || now !== started) continue;
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
      survivors.push(`pid ${pid}: ${what}`);
    }
    rmSync(file, { force: true });
    if (survivors.length > 0) {
      throw new Error(
        `${survivors.length} process(es) started by the tests were still running at the end (now killed):\n` +
          survivors.join('\n'),
      );
    }
  };
}
