/**
 * The scale-out limit reference (bench/reference-tick.ts) makes the service's
 * own round trips per tick: without Redis the store limiter's call, with Redis
 * the limiter's script and the usage commit (month, day by key, batch id). Its
 * answers are the service's bytes with fresh ids, and the usage it wrote is
 * stored as the service's would be (docs/decisions.md 73).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp } from '../../bench/proc.js';
import { startReference } from '../../bench/references.js';
import { prepare, redisPrefix } from '../../bench/setup.js';
import { monthPeriod, utcDay } from '../../src/domain/dates.js';
import { REQUEST_ID_FORM } from '../../src/http/request-ids.js';
import { counterKeys } from '../../src/limits/redis.js';
import { generateSample } from '../../src/sample/generate.js';
import { freshDatabase, POSTGRES_URL, REDIS_URL } from '../support/backends.js';

const bodyWith = (id: string) => `{"data":[],"meta":{"requestId":"${id}"}}`;
const route = {
  url: '/v1/rates/latest',
  contentType: 'application/json; charset=utf-8',
  body: Buffer.from(bodyWith('req_x')).toString('base64'),
  headers: ['x-request-id', 'req_x', 'content-type', 'application/json; charset=utf-8'],
};

/** 40 GETs at once: status, body and id of each. */
const load = (origin: string) =>
  Promise.all(
    Array.from({ length: 40 }, async () => {
      const res = await fetch(`${origin}${route.url}`);
      return { status: res.status, body: await res.text(), id: String(res.headers.get('x-request-id')) };
    }),
  );

describe.skipIf(!POSTGRES_URL)('the tick reference', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mds-tick-'));
  afterAll(async () => {
    await cleanUp();
    rmSync(dir, { recursive: true, force: true });
  });

  async function usage(url: string, ids: { grantId: string; keyId: string }) {
    const c = new pg.Client(url);
    await c.connect();
    try {
      const now = Date.now();
      const q = async (sql: string, values: unknown[]) =>
        Number((await c.query(sql, values)).rows[0]?.n ?? 0);
      return {
        month: await q('select used as n from usage where grant_id = $1 and period = $2', [
          ids.grantId,
          monthPeriod(now).key,
        ]),
        day: await q('select used as n from usage_daily where grant_id = $1 and day = $2 and key_id = $3', [
          ids.grantId,
          utcDay(now),
          ids.keyId,
        ]),
        batches: await q("select count(*)::int as n from usage_batches where id like 'reference-%'", []),
      };
    } finally {
      await c.end();
    }
  }

  async function serve(redisUrl?: string) {
    // A schema of the run, dropped at its end: a schema dropped mid-run breaks the
    // migrator of another file, which lists every schema's tables (docs/development.md).
    const { url } = await freshDatabase('postgres');
    const ids = (await prepare(url, generateSample({ endDate: '2026-01-31', days: 2 }))).reference;
    const prefix = redisUrl ? redisPrefix(redisUrl) : '';
    const tick = { postgresUrl: url, redisUrl, prefix, ...ids };
    const { origin } = await startReference(route, undefined, { tick });
    const answers = await load(origin);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.id).toMatch(REQUEST_ID_FORM);
      expect(a.body).toBe(bodyWith(a.id));
    }
    expect(new Set(answers.map((a) => a.id)).size).toBe(answers.length);
    const after = await usage(url, ids);
    // startReference's first request counts too.
    expect(after.month).toBe(41);
    expect(after.day).toBe(41);
    expect(after.batches).toBeGreaterThan(0);
    if (redisUrl) {
      const redis = new Redis(redisUrl);
      const month = await redis.hget(counterKeys(prefix, ids.grantId).monthKey, monthPeriod(Date.now()).key);
      redis.disconnect();
      expect(Number(month)).toBe(41);
    }
  }

  it('without Redis: the store limiter’s call per tick; the service’s bytes, the usage stored', () =>
    serve());
  it.skipIf(!REDIS_URL)('with Redis: the limiter’s script, then the usage commit', () => serve(REDIS_URL));
});
