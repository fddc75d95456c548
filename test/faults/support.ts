/**
 * What the fault suite shares: instances of the service in this process (a
 * runtime and its app) on a given store and Redis, a load of clients that
 * tallies every answer and checks each is one the contract allows, the
 * stored usage read straight from the store, and a private Redis server a
 * test may kill, restart or pause.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { monthPeriod, utcDay } from '../../src/domain/dates.js';
import { assemble, type Runtime } from '../../src/runtime/assemble.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { injectThroughServer } from '../support/dispatch.js';
import { keyOnNewGrant } from '../support/keys.js';
import { waitFor } from '../support/wait.js';

export interface Instance {
  runtime: Runtime;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function instance(
  databaseUrl: string,
  redis?: { url: string; prefix: string; cluster?: boolean },
  /** A store opened by the test (it may cap a file's pages); the instance closes it. */
  store?: Store,
): Promise<Instance> {
  const runtime = await assemble({
    databaseUrl,
    store,
    ...(redis
      ? { redisUrl: redis.url, redisPrefix: redis.prefix, redisCluster: redis.cluster ?? false }
      : {}),
    pollMs: 100,
  });
  const app = await buildApp(runtime.services, { logger: false });
  await app.ready();
  injectThroughServer(app);
  let closed = false;
  return {
    runtime,
    app,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await runtime.close();
    },
  };
}

/** The euro and one rate, and a key on a grant with generous limits. */
export async function seed(store: Store) {
  await store.imports.import({
    kind: 'assets',
    records: [{ code: 'EUR', symbol: '€', names: { en: 'Euro', fr: 'Euro', ar: 'يورو' }, type: 'currency' }],
  });
  await store.imports.import({
    kind: 'rates',
    records: [
      { currency: 'EUR', source: 'parallel', updatedAt: Date.now() - 60_000, buy: 240e6, sell: 245e6 },
    ],
  });
  return keyOnNewGrant(store);
}

export const LATEST = '/v1/rates/latest?currency=EUR';

/** Clients that keep requests in flight against some instances and tally every answer. */
export class Load {
  ok = 0;
  unavailable = 0;
  /** Answers the contract does not allow here (a 503 without Retry-After counts). */
  readonly wrong: string[] = [];
  private running = true;
  private readonly loops: Promise<void>[] = [];

  constructor(
    apps: () => FastifyInstance[],
    /** The key, or keys taken in turn (each request the next one). */
    key: string | readonly string[],
    clients = 8,
    /** Answers a client may get without a 503 once a fault is on (null: any). */
    private readonly url = LATEST,
  ) {
    const keys = typeof key === 'string' ? [key] : key;
    let turn = 0;
    for (let c = 0; c < clients; c++) {
      this.loops.push(
        (async () => {
          for (let i = c; this.running; i++) {
            const list = apps();
            const app = list[i % list.length]!;
            let res: Awaited<ReturnType<FastifyInstance['inject']>>;
            try {
              res = await app.inject({
                method: 'GET',
                url: this.url,
                headers: { authorization: `Bearer ${keys[turn++ % keys.length]}` },
              });
            } catch (err) {
              this.wrong.push(`no answer: ${(err as Error).message}`);
              continue;
            }
            if (res.statusCode === 200) this.ok++;
            else if (res.statusCode === 503 && Number(res.headers['retry-after']) >= 1) this.unavailable++;
            else
              this.wrong.push(
                `${res.statusCode} ${res.headers['retry-after'] ?? ''} ${res.body.slice(0, 200)}`,
              );
            // A 503 comes fast while a dependency is away: do not spin on it.
            if (res.statusCode !== 200) await new Promise((r) => setTimeout(r, 5));
          }
        })(),
      );
    }
  }

  /** Waits until `n` more requests have been answered 200. */
  async moreOk(n: number, timeout = 20_000): Promise<void> {
    const target = this.ok + n;
    await waitFor(() => this.ok >= target, {
      timeout,
      what: () =>
        `${n} more answers 200 (ok ${this.ok}, 503 ${this.unavailable}, wrong ${this.wrong.length})`,
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/** The grant's stored usage this month, and the sum of its days, read on a connection of their own. */
export async function storedUsage(databaseUrl: string, grantId: string) {
  const store = openStore(databaseUrl);
  try {
    const now = Date.now();
    const period = monthPeriod(now).key;
    const used = await store.usage.getUsage(grantId, period);
    const days = await store.usage.dailyUsage(grantId, `${period}-01`, utcDay(now));
    return { used, daily: days.reduce((n, d) => n + d.total, 0) };
  } finally {
    await store.close();
  }
}

/** The Redis month counter of a grant (null when not seeded); on a cluster, `url` is the node serving its slot. */
export async function redisMonth(url: string, prefix: string, grantId: string): Promise<number | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const v = await redis.hget(`${prefix}{${grantId}}:q`, monthPeriod(Date.now()).key);
    return v === null ? null : Number(v);
  } finally {
    redis.disconnect();
  }
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A redis-server of the test's own: killed, restarted empty, paused (SIGSTOP) and resumed. */
export class PrivateRedis {
  private proc: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    this.proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const c = net.connect(this.port, '127.0.0.1', () => {
            c.destroy();
            resolve(true);
          });
          c.on('error', () => resolve(false));
        }),
      { what: 'redis-server listening' },
    );
  }

  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = once(p, 'exit');
    p.kill('SIGCONT');
    p.kill('SIGKILL');
    await exited;
  }
}
