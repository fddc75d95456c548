/**
 * What an answer costs on a scale-out topology with no pipeline at all: a
 * node:http server sending the service's bytes and headers (as the
 * same-headers reference does), but only after the round trips every such
 * answer has, per tick, with the service's own statements:
 *
 * - with Redis, the limiter's check-and-consume script (redis-scripts.ts,
 *   `mdsConsumeBatch`), then the usage commit (postgres-usage.ts,
 *   `addUsageStatement`: the month, the day by key and the batch id, the expired
 *   ids pruned every PRUNE_EVERY-th commit), at most two commits in flight,
 *   as the usage recorder sends them;
 * - without Redis, the store limiter's one call (`consumeStatement`), at most two
 *   in flight.
 *
 * It writes the usage of a grant of its own (bench/setup.ts). The service
 * cannot be faster than this on the same machine; the bench states its
 * distance from it (docs/decisions.md 73). An earlier version sent a one-row
 * upsert and a one-command script instead: those took about 0.3 ms and
 * 0.15 ms less per tick under load than the statements the contract's usage
 * needs, so that reference was not the limit (docs/performance-notes.md).
 */
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { minuteStart, monthPeriod, utcDay } from '../src/domain/dates.js';
import { counterKeys, MINUTE_TTL_MS, MONTH_TTL_MS } from '../src/limits/redis.js';
import { openRedis } from '../src/limits/redis-scripts.js';
import { holdTickShape } from '../src/runtime/heap.js';
import {
  addUsageStatement,
  consumeStatement,
  PRUNE_EVERY,
  type UsageStatement,
} from '../src/storage/postgres-usage.js';
import { answerFor, answersOf, type ReferenceAnswer, readConfig } from './reference-config.js';
import { UNREACHABLE_LIMIT } from './setup.js';

const config = readConfig(process.argv[2]);
// Holds a tick object as `mds serve` does (src/runtime/heap.ts), so this reference and the service differ only in how they answer.
holdTickShape();
const tick = config.tick;
if (!tick)
  throw new Error('reference-tick: the config has no `tick` (postgresUrl, redisUrl, prefix, grantId, keyId)');
const { grantId, keyId } = tick;

const answers = answersOf(config, true);

const clients = [new pg.Client(tick.postgresUrl), new pg.Client(tick.postgresUrl)];
for (const c of clients) await c.connect();
const idle = [...clients];

const redis = tick.redisUrl ? openRedis(tick.redisUrl, false) : null;
const { minuteKey, monthKey } = counterKeys(tick.prefix, grantId);
if (redis) {
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  // The month seeded, as the limiter seeds it on a grant's first request.
  await redis.mdsSeed(monthKey, monthPeriod(Date.now()).key, 0, MONTH_TTL_MS);
}

type Waiting = [ServerResponse, ReferenceAnswer];
let arriving: Waiting[] = [];
let counted: Waiting[] = [];
let tickScheduled = false;
let commitScheduled = false;
let seq = 0;
const batchPrefix = `reference-${process.pid}`;

const refuse = (batch: Waiting[]) => () => {
  for (const [res] of batch) {
    res.writeHead(503);
    res.end();
  }
};

function endTick(): void {
  tickScheduled = false;
  const batch = arriving;
  arriving = [];
  if (redis === null) {
    count(batch);
    return;
  }
  redis
    .mdsConsumeBatch(
      2,
      minuteKey,
      monthKey,
      '',
      MINUTE_TTL_MS,
      UNREACHABLE_LIMIT,
      UNREACHABLE_LIMIT,
      batch.length,
    )
    .then(() => count(batch), refuse(batch));
}

function count(batch: Waiting[]): void {
  for (const w of batch) counted.push(w);
  scheduleCommit();
}

function scheduleCommit(): void {
  if (commitScheduled || idle.length === 0 || counted.length === 0) return;
  commitScheduled = true;
  setImmediate(commit);
}

/** The statement and values the service sends for `n` requests of one grant and key. */
function statement(n: number): UsageStatement {
  const now = Date.now();
  const period = monthPeriod(now).key;
  const batchId = `${batchPrefix}.${++seq}`;
  if (redis === null) {
    const request = {
      grantId,
      period,
      window: minuteStart(now),
      count: n,
      requestsPerMinute: UNREACHABLE_LIMIT,
      monthlyRequestLimit: UNREACHABLE_LIMIT,
      keyIds: Array.from({ length: n }, () => keyId),
    };
    return consumeStatement([request], now, batchId);
  }
  return addUsageStatement(
    [{ grantId, period, count: n }],
    now,
    { batchId, daily: [{ grantId, day: utcDay(now), keyId, count: n }] },
    seq % PRUNE_EVERY === 0,
  );
}

function commit(): void {
  commitScheduled = false;
  const client = idle.pop();
  if (client === undefined) return;
  const batch = counted;
  counted = [];
  const done = () => {
    idle.push(client);
    scheduleCommit();
  };
  client.query(statement(batch.length)).then(
    () => {
      for (const [res, a] of batch) a.send(res);
      done();
    },
    (err: unknown) => {
      refuse(batch)();
      done();
      console.error(err);
    },
  );
}

createServer((req, res) => {
  const answer = answerFor(answers, req, res);
  if (answer === undefined) return;
  arriving.push([res, answer]);
  if (!tickScheduled) {
    tickScheduled = true;
    setImmediate(endTick);
  }
}).listen(config.port, config.host);
