/**
 * The limit of a scale-out topology: a node:http server sending the service's
 * bytes and headers (as the same-headers reference), but only after the round
 * trips every answer of that topology waits for, per tick, with the service's
 * own statements (docs/decisions.md 73): with Redis the limiter's script
 * (`mdsConsumeBatch`), then the usage commit (`addUsageStatement`: month, day
 * by key, batch id, expired ids pruned every PRUNE_EVERY-th commit); without
 * Redis the store limiter's call (`consumeStatement`); two commits at most in
 * flight, as the usage recorder sends them. It writes a grant of its own.
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
import { answerOf, isRoute, readConfig, UNREACHABLE_LIMIT } from './reference-config.js';

const config = readConfig(process.argv[2]);
// Holds a tick object as `mds serve` does (src/runtime/heap.ts): the two then differ only in how they answer.
holdTickShape();
const tick = config.tick;
if (!tick) throw new Error('reference-tick: the config has no `tick`');
const { grantId, keyId } = tick;
const send = answerOf(config.route, true);

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

let arriving: ServerResponse[] = [];
let counted: ServerResponse[] = [];
let tickScheduled = false;
let commitScheduled = false;
let seq = 0;
const batchPrefix = `reference-${process.pid}`;

const refuse = (batch: ServerResponse[]) => () => {
  for (const res of batch) res.writeHead(503).end();
};

function endTick(): void {
  tickScheduled = false;
  const batch = arriving;
  arriving = [];
  const limit = UNREACHABLE_LIMIT;
  if (redis === null) count(batch);
  else
    redis
      .mdsConsumeBatch(2, minuteKey, monthKey, '', MINUTE_TTL_MS, limit, limit, batch.length)
      .then(() => count(batch), refuse(batch));
}

function count(batch: ServerResponse[]): void {
  counted.push(...batch);
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
    const limits = { requestsPerMinute: UNREACHABLE_LIMIT, monthlyRequestLimit: UNREACHABLE_LIMIT };
    const request = { grantId, period, window: minuteStart(now), count: n, ...limits };
    return consumeStatement([{ ...request, keyIds: Array.from({ length: n }, () => keyId) }], now, batchId);
  }
  const daily = [{ grantId, day: utcDay(now), keyId, count: n }];
  return addUsageStatement([{ grantId, period, count: n }], now, { batchId, daily }, seq % PRUNE_EVERY === 0);
}

function commit(): void {
  commitScheduled = false;
  const client = idle.pop();
  if (client === undefined) return;
  const batch = counted;
  counted = [];
  const sent = () => {
    for (const res of batch) send(res);
  };
  const failed = (err: unknown) => {
    refuse(batch)();
    console.error(err);
  };
  client
    .query(statement(batch.length))
    .then(sent, failed)
    .finally(() => {
      idle.push(client);
      scheduleCommit();
    });
}

createServer((req, res) => {
  if (!isRoute(config.route, req, res)) return;
  arriving.push(res);
  if (!tickScheduled) {
    tickScheduled = true;
    setImmediate(endTick);
  }
}).listen(config.port, config.host);
