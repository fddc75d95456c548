/**
 * What an answer costs on a scale-out topology with no pipeline at all: a
 * node:http server sending the service's bytes and headers (as the
 * same-headers reference does), but only after the waits every such answer
 * has, per tick: one Redis script call (with Redis) and one synchronous
 * PostgreSQL commit that adds the tick's requests to a counter row, at most
 * two commits in flight, as the service's usage commits. Without Redis it is
 * the store limiter's shape: one commit per tick. The service cannot be
 * faster than this on the same machine; the bench states its distance from it
 * (docs/decisions.md 73).
 */
import { createServer, type ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { answerFor, answersOf, readConfig } from './reference-config.js';

const config = readConfig(process.argv[2]);
const tick = config.tick;
if (!tick) throw new Error('reference-tick: the config has no `tick` (postgresUrl, redisUrl, prefix)');

type Answer = { body: Buffer; headers: Record<string, string | number> | string[] };
const answers = answersOf(config, true);

const TABLE = 'mds_bench_reference_usage';
const clients = [new pg.Client(tick.postgresUrl), new pg.Client(tick.postgresUrl)];
for (const c of clients) await c.connect();
await clients[0]!.query(`create table if not exists ${TABLE} (id int primary key, used bigint not null)`);
const idle = [...clients];
const redis = tick.redisUrl ? new Redis(tick.redisUrl) : null;
const COUNT = "return redis.call('HINCRBY', KEYS[1], 'used', ARGV[1])";
const counterKey = `${tick.prefix}reference`;

type Waiting = [ServerResponse, Answer];
let arriving: Waiting[] = [];
let counted: Waiting[] = [];
let tickScheduled = false;
let commitScheduled = false;

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
  if (redis === null) count(batch);
  else redis.eval(COUNT, 1, counterKey, batch.length).then(() => count(batch), refuse(batch));
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
  client
    .query({
      name: 'add',
      text: `insert into ${TABLE} (id, used) values (1, $1) on conflict (id) do update set used = ${TABLE}.used + excluded.used`,
      values: [batch.length],
    })
    .then(
      () => {
        for (const [res, a] of batch) {
          res.writeHead(200, a.headers);
          res.end(a.body);
        }
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
