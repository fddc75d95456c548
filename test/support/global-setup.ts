/**
 * Says, once per run, which backends the contract suites run against; seeds
 * the sample into the SQLite file the harnesses copy (sample-template.ts);
 * and, at the end, drops the run's PostgreSQL schemas (backends.ts
 * dropSchema) and fails the run if a process a test started is still alive
 * (each is killed first): children.ts writes them down.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { dropSchemasNow, POSTGRES_URL, REDIS_URL } from './backends.js';
import { startTime } from './process-start.js';
import { writeSampleTemplate } from './sample-template.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const ran = ['sqlite+memory-limiter'];
  if (POSTGRES_URL) ran.push(REDIS_URL ? 'postgres+redis-limiter' : 'postgres+memory-limiter');
  const skipped = POSTGRES_URL ? '' : ' (PostgreSQL/Redis suites skipped: MDS_TEST_POSTGRES_URL not set)';
  process.stdout.write(`\nbackends under test: ${ran.join(', ')}${skipped}\n\n`);

  const file = join(tmpdir(), `mds-test-children-${process.pid}-${randomBytes(4).toString('hex')}.tsv`);
  writeFileSync(file, '');
  project.provide('childrenFile', file);
  const schemasFile = `${file}.schemas`;
  writeFileSync(schemasFile, '');
  project.provide('schemasFile', schemasFile);

  // The day harness.ts's SAMPLE_END names: a harness whose day differs seeds its own.
  const endDate = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const templateDir = mkdtempSync(join(tmpdir(), 'mds-test-template-'));
  const template = join(templateDir, 'sample.sqlite');
  await writeSampleTemplate(template, endDate);
  project.provide('sampleTemplate', { path: template, endDate });

  return async () => {
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
    rmSync(templateDir, { recursive: true, force: true });
    const schemas = readFileSync(schemasFile, 'utf8').split('\n').filter(Boolean);
    rmSync(schemasFile, { force: true });
    await dropSchemasNow(schemas);
    if (survivors.length > 0) {
      throw new Error(
        `${survivors.length} process(es) started by the tests were still running at the end (now killed):\n` +
          survivors.join('\n'),
      );
    }
  };
}
