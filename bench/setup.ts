/**
 * Stores for the bench: a temp SQLite file and, when PostgreSQL and Redis
 * answer, a fresh PostgreSQL schema; both hold the two-year sample and one key
 * whose limits the load can never reach.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ENTITLEMENTS } from '../src/domain/scopes.js';
import { seedSample } from '../src/import/seed.js';
import { createAccount } from '../src/operations/accounts.js';
import type { Result } from '../src/operations/contract.js';
import { createGrant } from '../src/operations/grants.js';
import { createKey } from '../src/operations/keys.js';
import type { generateSample } from '../src/sample/generate.js';
import { SYSTEM_ACTOR } from '../src/storage/admin-records.js';
import { openStore } from '../src/storage/open.js';
import type { Store } from '../src/storage/store.js';

/** Per-minute and monthly limits in the billions: the load must never meet a 429. */
export const UNREACHABLE_LIMIT = 5_000_000_000;
const DAY = 86_400_000;

function value<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new Error(`provisioning refused: ${JSON.stringify(result.error)}`);
}

/**
 * A grant (limits out of reach, every entitlement) and a key on it: the key's
 * text and both ids, made by the admin use-cases the CLI calls, as `system`.
 */
export async function provisionGrant(store: Store): Promise<{ key: string; grantId: string; keyId: string }> {
  const now = { now: Date.now() };
  const account = value(await createAccount(store, SYSTEM_ACTOR, { name: 'Benchmark' }, now));
  const grant = value(
    await createGrant(
      store,
      SYSTEM_ACTOR,
      {
        accountId: account.id,
        plan: 'benchmark',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: UNREACHABLE_LIMIT,
        requestsPerMinute: UNREACHABLE_LIMIT,
        validFrom: new Date(now.now - DAY).toISOString(),
      },
      now,
    ),
  );
  const key = value(await createKey(store, SYSTEM_ACTOR, { grantId: grant.id, label: 'bench' }, now));
  return { key: key.key, grantId: grant.id, keyId: key.publicId };
}

export async function provisionKey(store: Store): Promise<string> {
  return (await provisionGrant(store)).key;
}

export interface Prepared {
  url: string;
  key: string;
  seconds: number;
  /**
   * A second grant and key of the same limits, whose usage rows the tick
   * reference (bench/reference-tick.ts) writes, apart from the service's.
   */
  reference: { grantId: string; keyId: string };
}

async function prepare(url: string, sample: ReturnType<typeof generateSample>): Promise<Prepared> {
  const started = performance.now();
  const store = openStore(url);
  try {
    await store.migrate();
    await seedSample(store, sample);
    const key = await provisionKey(store);
    const { grantId, keyId } = await provisionGrant(store);
    return { url, key, seconds: (performance.now() - started) / 1000, reference: { grantId, keyId } };
  } finally {
    await store.close();
  }
}

export function prepareSqlite(dir: string, sample: ReturnType<typeof generateSample>): Promise<Prepared> {
  return prepare(join(dir, 'bench.sqlite'), sample);
}

export interface PgSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** A new schema, selected through the URL's search_path (as test/support/backends.ts does). */
export async function freshSchema(baseUrl: string, label: string): Promise<PgSchema> {
  const schema = `mds_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const u = new URL(baseUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

export async function preparePostgres(
  baseUrl: string,
  sample: ReturnType<typeof generateSample>,
): Promise<Prepared & { drop(): Promise<void> }> {
  const s = await freshSchema(baseUrl, 'load');
  try {
    return { ...(await prepare(s.url, sample)), drop: s.drop };
  } catch (err) {
    await s.drop();
    throw err;
  }
}

export interface ScaleOut {
  postgresUrl: string;
  redisUrl: string;
  postgresVersion: string;
  redisVersion: string;
}

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

/** PostgreSQL + Redis from the environment, or the local defaults when they answer. */
export async function detectScaleOut(): Promise<ScaleOut | { reason: string }> {
  const postgresUrl = process.env.MDS_BENCH_POSTGRES_URL || process.env.MDS_TEST_POSTGRES_URL || DEFAULT_PG;
  const redisUrl = process.env.MDS_BENCH_REDIS_URL || process.env.MDS_TEST_REDIS_URL || DEFAULT_REDIS;
  let postgresVersion: string;
  try {
    const c = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2_000 });
    await c.connect();
    try {
      postgresVersion = String((await c.query('show server_version')).rows[0]?.server_version ?? '?');
    } finally {
      await c.end();
    }
  } catch (err) {
    return { reason: `PostgreSQL at ${redact(postgresUrl)} does not answer (${(err as Error).message})` };
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    const info = await redis.info('server');
    const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
    return { postgresUrl, redisUrl, postgresVersion, redisVersion };
  } catch (err) {
    return { reason: `Redis at ${redact(redisUrl)} does not answer (${(err as Error).message})` };
  } finally {
    redis.disconnect();
  }
}

export interface CommitLatency {
  count: number;
  medianMs: number;
  p90Ms: number;
}

/**
 * The latency of a PostgreSQL commit like the usage group commit's: a one-row
 * upsert, committed with its WAL flush, one after the other on one connection,
 * in a table of the bench's schema (a temporary table would skip the WAL).
 * Every request of the scale-out scenario waits for such a commit, so with C
 * connections the service can answer at most C per commit latency: the
 * machine's disk, not the service, then sets the figure.
 */
export async function measureCommits(url: string, count = 300): Promise<CommitLatency> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('create table if not exists bench_commit (k int primary key, n bigint not null)');
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await c.query({
        name: 'bench_commit',
        text: 'insert into bench_commit values (1, 1) on conflict (k) do update set n = bench_commit.n + 1',
      });
      times.push(performance.now() - started);
    }
    await c.query('drop table bench_commit');
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
    return { count, medianMs: at(0.5), p90Ms: at(0.9) };
  } finally {
    await c.end();
  }
}

/** Deletes every Redis key under `prefix` (the bench's own limiter counters). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
