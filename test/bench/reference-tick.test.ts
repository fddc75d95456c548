/**
 * The scale-out limit reference (bench/reference-tick.ts) makes the service's
 * own round trips per tick: with Redis the limiter's script and the usage
 * commit (month, day by key, batch id), without Redis the store limiter's
 * call. Its answers are the service's bytes, and the usage it wrote is there
 * to read afterwards, as the service's would be (docs/decisions.md 73).
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type Spawned, spawnPinned, stop, waitFor200 } from '../../bench/proc.js';
import type { ReferenceConfig } from '../../bench/reference-config.js';
import { referenceArgs } from '../../bench/references.js';
import { freshSchema, type PgSchema, provisionGrant } from '../../bench/setup.js';
import { monthPeriod, utcDay } from '../../src/domain/dates.js';
import { REQUEST_ID_FORM } from '../../src/http/request-ids.js';
import { counterKeys } from '../../src/limits/redis.js';
import { openStore } from '../../src/storage/open.js';
import { POSTGRES_URL, REDIS_URL } from '../support/backends.js';

const URL_PATH = '/v1/rates/latest';
/** The service's answer, as the reference is given it: its request id in the header and the body. */
const bodyWith = (id: string) => Buffer.from(`{"data":[],"meta":{"requestId":"${id}"}}`);
const BODY = bodyWith('req_x');
const REQUESTS = 40;

/** `count` GETs at once over keep-alive connections: the statuses and bodies. */
async function load(
  origin: string,
  count: number,
): Promise<Array<{ status: number; body: Buffer; id: string }>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    return await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<{ status: number; body: Buffer; id: string }>((resolve, reject) => {
            const req = request(`${origin}${URL_PATH}`, { agent }, (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  body: Buffer.concat(chunks),
                  id: String(res.headers['x-request-id']),
                }),
              );
            });
            req.on('error', reject);
            req.end();
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
}

/** Each the service's answer, with a request id of its own in its header and body (bench/reference-config.ts). */
function expectServiceAnswers(answers: Array<{ status: number; body: Buffer; id: string }>): void {
  for (const a of answers) {
    expect(a.status).toBe(200);
    expect(a.id).toMatch(REQUEST_ID_FORM);
    expect(a.body.equals(bodyWith(a.id)), a.body.toString()).toBe(true);
  }
  expect(new Set(answers.map((a) => a.id)).size).toBe(answers.length);
}

describe.skipIf(!POSTGRES_URL)('the tick reference', () => {
  let schema: PgSchema;
  let dir: string;
  let ids: { grantId: string; keyId: string };
  const running: Spawned[] = [];

  beforeAll(async () => {
    schema = await freshSchema(POSTGRES_URL!, 'ticktest');
    const store = openStore(schema.url);
    try {
      await store.migrate();
      ids = await provisionGrant(store);
    } finally {
      await store.close();
    }
    dir = await mkdtemp(join(tmpdir(), 'mds-tick-'));
  });

  afterAll(async () => {
    await Promise.all(running.map((p) => stop(p, 5_000)));
    await schema?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function start(redisUrl: string | undefined, prefix: string): Promise<string> {
    const config: ReferenceConfig = {
      host: '127.0.0.1',
      port: await freePort(),
      routes: [
        {
          url: URL_PATH,
          contentType: 'application/json; charset=utf-8',
          body: BODY.toString('base64'),
          headers: ['x-request-id', 'req_x', 'content-type', 'application/json; charset=utf-8'],
          schema: {},
        },
      ],
      tick: { postgresUrl: schema.url, redisUrl, prefix, ...ids },
    };
    const file = join(dir, `tick-${config.port}.json`);
    writeFileSync(file, JSON.stringify(config));
    const proc = spawnPinned(undefined, process.execPath, referenceArgs('reference-tick', file));
    running.push(proc);
    const origin = `http://127.0.0.1:${config.port}`;
    await waitFor200(`${origin}${URL_PATH}`, {}, proc, { everyMs: 20 });
    return origin;
  }

  async function stored(): Promise<{ month: number; day: number; batches: number }> {
    const c = new pg.Client(schema.url);
    await c.connect();
    try {
      const now = Date.now();
      const month = await c.query('select used from usage where grant_id = $1 and period = $2', [
        ids.grantId,
        monthPeriod(now).key,
      ]);
      const day = await c.query(
        'select used from usage_daily where grant_id = $1 and day = $2 and key_id = $3',
        [ids.grantId, utcDay(now), ids.keyId],
      );
      const batches = await c.query(
        "select count(*)::int as n from usage_batches where id like 'reference-%'",
      );
      return {
        month: Number(month.rows[0]?.used ?? 0),
        day: Number(day.rows[0]?.used ?? 0),
        batches: Number(batches.rows[0]?.n ?? 0),
      };
    } finally {
      await c.end();
    }
  }

  it('without Redis: the store limiter’s call per tick, the service’s bytes, the usage stored', async () => {
    const before = await stored();
    const origin = await start(undefined, 'unused:');
    const answers = await load(origin, REQUESTS);
    expectServiceAnswers(answers);
    const after = await stored();
    // waitFor200's request counts too.
    expect(after.month - before.month).toBeGreaterThanOrEqual(REQUESTS + 1);
    expect(after.day - before.day).toBe(after.month - before.month);
    expect(after.batches).toBeGreaterThan(before.batches);
  });

  it.skipIf(!REDIS_URL)('with Redis: the limiter’s script, then the usage commit', async () => {
    const prefix = `mdstest:tick:${process.pid}:`;
    const redis = new Redis(REDIS_URL!);
    try {
      const before = await stored();
      const origin = await start(REDIS_URL, prefix);
      const answers = await load(origin, REQUESTS);
      expectServiceAnswers(answers);
      const after = await stored();
      const counted = after.month - before.month;
      expect(counted).toBeGreaterThanOrEqual(REQUESTS + 1);
      expect(after.day - before.day).toBe(counted);
      expect(after.batches).toBeGreaterThan(before.batches);
      // The script counted the same units in Redis (the month was seeded at 0).
      const month = await redis.hget(counterKeys(prefix, ids.grantId).monthKey, monthPeriod(Date.now()).key);
      expect(Number(month)).toBe(counted);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
