/**
 * Outages: with Redis or PostgreSQL away, requests that need them get
 * 503 service_unavailable with Retry-After, /readyz says not ready, nothing
 * crashes, and service resumes on its own when the dependency returns.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import { type Database, freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';
import { track } from '../support/children.js';
import { injectThroughServer } from '../support/dispatch.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { validateResponses } from '../support/openapi.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';

const SCALE_OUT = Boolean(POSTGRES_URL && REDIS_URL);

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached in time');
}

describe.runIf(SCALE_OUT)('dependency outages', () => {
  let db: Database;
  let proxy: TcpProxy;
  let redisPort: number;
  let redis: ChildProcess | null = null;
  let runtime: Runtime;
  let app: FastifyInstance;
  let key: string;

  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    track(redis, `redis-server --port ${redisPort}`);
    await until(
      () =>
        new Promise((resolve) => {
          const c = net.connect(redisPort, '127.0.0.1', () => {
            c.destroy();
            resolve(true);
          });
          c.on('error', () => resolve(false));
        }),
    );
  };
  const stopRedis = async () => {
    const exited = once(redis!, 'exit');
    redis!.kill('SIGKILL');
    await exited;
  };
  const get = (url: string) =>
    app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const target = new URL(POSTGRES_URL!);
    proxy = await startProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    redisPort = await freePort();
    await startRedis();
    runtime = await assemble({
      databaseUrl: viaProxy.toString(),
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      pollMs: 100,
    });
    const store = runtime.services.store;
    await store.imports.import({
      kind: 'assets',
      records: [
        { code: 'EUR', symbol: '€', names: { en: 'Euro', fr: 'Euro', ar: 'يورو' }, type: 'currency' },
      ],
    });
    const account = await createAccount(store, {});
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'p',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 100_000,
      requestsPerMinute: 100_000,
    });
    key = (await createKey(store, { grantId: grant.id })).key;
    app = await buildApp(runtime.services, { logger: false });
    await app.ready();
    injectThroughServer(app);
    await validateResponses(app);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    if (redis && redis.exitCode === null) await stopRedis();
    await proxy?.close();
    await db?.drop();
  });

  it('answers 503 with Retry-After while Redis is down, and recovers without a restart', async () => {
    expect((await get('/v1/assets')).statusCode).toBe(200);
    await stopRedis();
    const res = await get('/v1/assets');
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-request-id']).toBe(res.json().meta.requestId);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    expect((await app.inject('/readyz')).statusCode).toBe(503);
    expect((await app.inject('/healthz')).statusCode).toBe(200);

    await startRedis();
    await until(async () => (await get('/v1/assets')).statusCode === 200);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  }, 20_000);

  it('answers 503 while PostgreSQL is unreachable, and recovers without a restart', async () => {
    expect((await get('/v1/rates/history?currency=EUR')).statusCode).toBe(404);
    await proxy.cut();
    // History and usage need the store: every request that needs it gets a 503, never a 500.
    const res = await get('/v1/assets');
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect((await app.inject('/readyz')).statusCode).toBe(503);

    await proxy.restore();
    await until(async () => (await get('/v1/assets')).statusCode === 200, 10_000);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  }, 30_000);
});
