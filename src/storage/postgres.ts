/**
 * Scale-out backend: PostgreSQL through a pg pool. BIGINT columns come back as
 * strings from pg by default; every value we store fits a double exactly
 * (micro-units and epoch ms), so this pool parses them as numbers.
 */

import { createRequire } from 'node:module';
import { Kysely, PostgresDialect } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { errorCode, isNetworkFailure, type UnavailableTest } from './errors.js';
import { KyselyAccess } from './kysely/access.js';
import { KyselyConsensus } from './kysely/consensus.js';
import type { Db } from './kysely/database.js';
import { KyselyMarket } from './kysely/market.js';
import { KyselyOperator } from './kysely/operator.js';
import { KyselyReporters } from './kysely/reporters.js';
import { assembleStore } from './kysely/store.js';
import { claimBatch, KyselyUsage } from './kysely/usage.js';
import { KyselyWebhooks } from './kysely/webhook-sources.js';
import { PostgresImports } from './postgres-import.js';
import { probePostgresSpace } from './postgres-space.js';
import {
  addUsageStatement,
  type ConsumeRow,
  consumeStatement,
  PRUNE_EVERY,
  type UsageStatement,
} from './postgres-usage.js';
import type { Database } from './schema.js';
import type { ConsumeOutcome, ConsumeRequest, Store, UsageIncrement } from './store.js';
import { type BatchOutcome, markNotSent, type UsageCommit } from './usage-records.js';

const INT8_OID = 20;

/**
 * PostgreSQL's codes for a server that cannot serve now: shutting down
 * (57P01-03), a connection failure (class 08), too many connections (53300),
 * a full disk (53100, a StoreFullError).
 */
const PG_UNAVAILABLE = /^(57P0[1-3]|08\d{3}|53[13]00)$/;
/**
 * pg's own failures, which carry no code: a connection dropped under a query,
 * no pool client within connectionTimeoutMillis, a query past query_timeout,
 * a client whose connection already failed.
 */
const PG_UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable/;

export const isPostgresUnavailable: UnavailableTest = (err) =>
  isNetworkFailure(err) ||
  PG_UNAVAILABLE.test(errorCode(err) ?? '') ||
  (err instanceof Error && PG_UNAVAILABLE_MESSAGE.test(err.message));

/** The PostgreSQL store, opened on a pool of at most `max` connections. */
export const PostgresStore = {
  open(url: string, options: { max?: number } = {}): Store {
    const pool = openPool(url, options.max ?? 10);
    const db: Db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const usage = new PostgresUsage(db, pool);
    const repositories = {
      market: new KyselyMarket(db, 'postgres'),
      imports: new PostgresImports(db),
      access: new KyselyAccess(db),
      usage,
      operator: new KyselyOperator(db),
      reporters: new KyselyReporters(db),
      consensus: new KyselyConsensus(db),
      webhooks: new KyselyWebhooks(db, 'postgres'),
    };
    const close = async () => {
      // The pool ends only once every client is back.
      usage.releaseClients();
      await db.destroy();
    };
    return assembleStore('postgres', url, db, repositories, close, isPostgresUnavailable, () =>
      probePostgresSpace(pool),
    );
  },
};

/** The usage repository's commits on the request path, PostgreSQL's way. */
class PostgresUsage extends KyselyUsage {
  constructor(
    db: Db,
    private readonly pool: Pool,
  ) {
    super(db);
  }

  /**
   * Clients kept checked out between usage commits, idle ones here. A pool
   * checkout and release per commit (its events, its idle timer) cost the
   * service more than the statement's own client work. The usage
   * recorder keeps two commits in flight; more concurrent callers get clients
   * that go back to the pool afterwards, so reads never wait for held ones.
   */
  private readonly idleUsageClients: HeldClient[] = [];
  private closing = false;

  /**
   * One statement for the whole tick: the group commit of every request waiting
   * on it, as a named prepared statement (parsed once per connection). It is a
   * synchronous commit, like every other: decisions §5 wants answered units to
   * survive a crash of any process, PostgreSQL's included, so the commit waits
   * for its WAL flush.
   */
  async addUsage(
    increments: readonly UsageIncrement[],
    now: number,
    commit: UsageCommit = {},
  ): Promise<void> {
    if (increments.length === 0) return;
    // Every PRUNE_EVERY-th commit also deletes a bounded number of expired batch
    // ids, skipping rows another instance's prune holds (no waits, no deadlock).
    const prune = ++this.commits % PRUNE_EVERY === 0;
    await this.usageQuery(addUsageStatement(increments, now, commit, prune));
  }

  private commits = 0;

  usageBatchOutcome(batchId: string, now: number): Promise<BatchOutcome> {
    return claimBatch(this.db, batchId, now);
  }

  /**
   * The store limiter's check-and-consume (PostgreSQL without Redis), one
   * call of mds_consume_usage (migrations/0009-consume-function.ts) in autocommit: it locks
   * each grant's month row and minute row, in grant order (no deadlock
   * between instances), reads the counts as last committed and adds the
   * allowed units, so another instance's batch for the same grant waits on
   * those row locks and sees this one's counts: exact across instances.
   */
  async consumeUsage(
    requests: readonly ConsumeRequest[],
    now: number,
    batchId?: string,
  ): Promise<ConsumeOutcome[]> {
    if (requests.length === 0) return [];
    const rows = await this.usageQuery<ConsumeRow>(consumeStatement(requests, now, batchId));
    return rows.map((r) => ({
      window: r.window_start,
      minuteUsed: r.minute_used,
      monthUsed: r.month_used,
      allowed: r.allowed,
    }));
  }

  /**
   * One statement on a client kept between usage commits. Failing before it
   * is sent (no connection), the error says so: the caller need not ask
   * whether it was applied.
   */
  private async usageQuery<R extends object = object>(statement: UsageStatement): Promise<R[]> {
    let held: HeldClient;
    try {
      held = this.idleUsageClients.pop() ?? (await this.holdClient());
    } catch (err) {
      throw markNotSent(err);
    }
    let rows: R[];
    try {
      rows = (await held.client.query<R>(statement)).rows;
    } catch (err) {
      // The connection may be what failed: the pool replaces it.
      held.release(err as Error);
      throw err;
    }
    if (this.closing || held.broken || this.idleUsageClients.length >= USAGE_CLIENTS_KEPT) held.release();
    else this.idleUsageClients.push(held);
    return rows;
  }

  private async holdClient(): Promise<HeldClient> {
    const client = await this.pool.connect();
    const held: HeldClient = {
      client,
      broken: false,
      released: false,
      release: (err?: Error) => {
        if (held.released) return;
        held.released = true;
        client.off('error', onBroken);
        client.off('end', onBroken);
        client.release(err ?? held.broken);
      },
    };
    // A held client that loses its server while idle is dropped at once, as the
    // pool drops an idle client of its own: the next commit then gets a fresh one.
    const onBroken = () => {
      held.broken = true;
      const i = this.idleUsageClients.indexOf(held);
      if (i !== -1) {
        this.idleUsageClients.splice(i, 1);
        held.release();
      }
    };
    client.on('error', onBroken);
    client.on('end', onBroken);
    return held;
  }

  /** The store is closing: every held client goes back to the pool. */
  releaseClients(): void {
    this.closing = true;
    for (const held of this.idleUsageClients.splice(0)) held.release();
  }
}

/** Idle clients kept for usage commits: the usage recorder's commits in flight. */
const USAGE_CLIENTS_KEPT = 2;

interface HeldClient {
  client: PoolClient;
  /** Its connection failed or ended: released (destroyed) rather than kept. */
  broken: boolean;
  released: boolean;
  release(err?: Error): void;
}

/**
 * pg is loaded when a PostgreSQL store is opened, not with this module: the
 * embedded default never needs it, and loading it (it probes for undici) was a
 * tenth of the time from process start to the first answer.
 */
const loadPg = (): typeof import('pg') => createRequire(import.meta.url)('pg');

function openPool(url: string, max: number): Pool {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 2_000,
    // A query stuck behind a dead server must fail fast enough to answer 503.
    query_timeout: 5_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // A client in use when the server goes away emits 'error' too; the query it
  // was running rejects on its own (→ 503), so the event needs only a listener.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
