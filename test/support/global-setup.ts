/**
 * Says, once per run, which backends the contract suites run against; gives
 * the run a PostgreSQL database of its own (runDatabase); seeds the sample
 * into the SQLite file the harnesses copy (sample-template.ts); and, at the
 * end, drops the run's PostgreSQL schemas (backends.ts dropSchema) and fails
 * the run if a process a test started is still alive (each is killed first):
 * children.ts writes them down.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { dropSchemasNow, POSTGRES_URL, REDIS_URL } from './backends.js';
import { startTime } from './process-start.js';
import { writeSampleTemplate } from './sample-template.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const ran = ['sqlite+memory-limiter'];
  if (POSTGRES_URL) ran.push(REDIS_URL ? 'postgres+redis-limiter' : 'postgres+memory-limiter');
  const skipped = POSTGRES_URL ? '' : ' (PostgreSQL/Redis suites skipped: MDS_TEST_POSTGRES_URL not set)';
  process.stdout.write(`\nbackends under test: ${ran.join(', ')}${skipped}\n\n`);

  const database = POSTGRES_URL ? await runDatabase(POSTGRES_URL) : undefined;

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
    if (database) await database.drop();
    else await dropSchemasNow(schemas);
    if (survivors.length > 0) {
      throw new Error(
        `${survivors.length} process(es) started by the tests were still running at the end (now killed):\n` +
          survivors.join('\n'),
      );
    }
  };
}

/**
 * A database for this run's schemas, created beside the one
 * MDS_TEST_POSTGRES_URL names, which the workers (started after this) then
 * name: another run on the same server (a second checkout, another user) may
 * drop its schemas while this run's stores migrate, and Kysely's migrator,
 * which lists the tables of every schema of its database, would fail on a
 * schema gone midway. Without the right to create one, the run uses the
 * database it was given.
 */
async function runDatabase(url: string): Promise<{ drop(): Promise<void> } | undefined> {
  const name = `mds_test_run_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } catch (err) {
    process.stdout.write(`PostgreSQL: no database of the run's own (${(err as Error).message})\n`);
    return undefined;
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  process.env.MDS_TEST_POSTGRES_URL = own.toString();
  return {
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
