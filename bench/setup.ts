/**
 * Stores for the bench: a temp SQLite file or a fresh PostgreSQL schema,
 * holding the two-year sample and keys whose limits the load never reaches,
 * provisioned through the operator's own use-cases (src/use-cases), as
 * `mds accounts create`, `mds grants create` and `mds keys create` do.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ENTITLEMENTS } from '../src/domain/scopes.js';
import { seedSample } from '../src/import/seed.js';
import type { SampleData } from '../src/sample/generate.js';
import { SYSTEM_ACTOR } from '../src/storage/admin-records.js';
import { openStore } from '../src/storage/open.js';
import type { Store } from '../src/storage/store.js';
import { createAccount } from '../src/use-cases/accounts.js';
import type { Result } from '../src/use-cases/contract.js';
import { createGrant } from '../src/use-cases/grants.js';
import { createKey } from '../src/use-cases/keys.js';
import { defer } from './proc.js';
import { UNREACHABLE_LIMIT } from './reference-config.js';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`bench: provisioning refused: ${r.error.message}`);
  return r.value;
}

/** A grant (every entitlement, limits out of reach) and a key on it: the key's text and both ids. */
async function provisionGrant(store: Store): Promise<{ key: string; grantId: string; keyId: string }> {
  const account = value(await createAccount(store, SYSTEM_ACTOR, { name: 'Benchmark' }));
  const grant = value(
    await createGrant(store, SYSTEM_ACTOR, {
      accountId: account.id,
      plan: 'benchmark',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: UNREACHABLE_LIMIT,
      requestsPerMinute: UNREACHABLE_LIMIT,
      validFrom: new Date(Date.now() - 86_400_000).toISOString(),
    }),
  );
  const key = value(await createKey(store, SYSTEM_ACTOR, { grantId: grant.id, label: 'bench' }));
  return { key: key.key, grantId: grant.id, keyId: key.publicId };
}

export interface Prepared {
  url: string;
  /** The service's key. */
  key: string;
  /** A second grant and key, whose usage the tick reference writes (bench/reference-tick.ts). */
  reference: { grantId: string; keyId: string };
}

/** Migrates `url`, seeds the sample, runs `more` (not timed), and provisions the two grants. */
export async function prepare(
  url: string,
  sample: SampleData,
  more?: (store: Store) => Promise<unknown>,
): Promise<Prepared> {
  const store = openStore(url);
  try {
    await store.migrate();
    await seedSample(store, sample);
    await more?.(store);
    const { key } = await provisionGrant(store);
    const { grantId, keyId } = await provisionGrant(store);
    return { url, key, reference: { grantId, keyId } };
  } finally {
    await store.close();
  }
}

/** Runs `sql` on its own connection to `url`. */
async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await c.connect();
    return (await c.query(sql)).rows;
  } finally {
    await c.end().catch(() => {});
  }
}

/** A new schema, selected through the URL's search_path, dropped at the end of the run. */
export async function freshSchema(baseUrl: string, label: string): Promise<string> {
  const schema = `mds_bench_${label}_${randomBytes(4).toString('hex')}`;
  await query(baseUrl, `create schema ${schema}`);
  defer(() => query(baseUrl, `drop schema if exists ${schema} cascade`).then(() => {}));
  const u = new URL(baseUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export type ScaleOut = {
  postgresUrl: string;
  redisUrl: string;
  postgresVersion: string;
  redisVersion: string;
};

/** PostgreSQL + Redis from the environment, or the local defaults, when they answer. */
export async function detectScaleOut(): Promise<ScaleOut | { reason: string }> {
  const env = process.env;
  const postgresUrl =
    env.MDS_BENCH_POSTGRES_URL || env.MDS_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = env.MDS_BENCH_REDIS_URL || env.MDS_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    const [row] = await query(postgresUrl, 'show server_version');
    await redis.connect();
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '?';
    return { postgresUrl, redisUrl, postgresVersion: String(row?.server_version), redisVersion };
  } catch (err) {
    return { reason: `PostgreSQL or Redis does not answer (${(err as Error).message})` };
  } finally {
    redis.disconnect();
  }
}

/** A Redis key prefix of the bench's own, its keys deleted at the end of the run. */
export function redisPrefix(redisUrl: string): string {
  const prefix = `mdsbench:${randomBytes(4).toString('hex')}:`;
  defer(async () => {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  return prefix;
}
