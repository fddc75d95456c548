/**
 * The queries both backends share. Kysely writes the dialect-specific SQL; the
 * subclasses add only what must differ (connection set-up and bulk writes).
 */
import { type Kysely, Migrator, sql, type Transaction } from 'kysely';
import { DAY_MS } from '../domain/dates.js';
import type {
  Asset,
  AssetType,
  GoldObservation,
  ImportSummary,
  Purity,
  RateObservation,
  Source,
} from '../domain/types.js';
import { migrationProvider } from './migrations.js';
import type { Database } from './schema.js';
import type {
  AccountRecord,
  ConsumeOutcome,
  ConsumeRequest,
  DailyRatesQuery,
  GoldHistoryQuery,
  GrantPatch,
  GrantRecord,
  GrantStatus,
  ImportBatch,
  ImportOptions,
  KeyRecord,
  KeyStatus,
  RateHistoryQuery,
  Store,
  StoreDialect,
  UsageIncrement,
  Versions,
} from './store.js';

export type Db = Kysely<Database>;

type RateRow = { currency: string; source: string; updated_at: number; buy: number; sell: number };
type GoldRow = { purity: string; updated_at: number; buy: number; sell: number };

const toRate = (r: RateRow): RateObservation => ({
  currency: r.currency,
  source: r.source as Source,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});
const toGold = (r: GoldRow): GoldObservation => ({
  purity: r.purity as Purity,
  buy: Number(r.buy),
  sell: Number(r.sell),
  updatedAt: Number(r.updated_at),
});

const splitScopes = (text: string) => (text === '' ? [] : text.split(','));

function toGrant(r: Database['grants']): GrantRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    provider: r.provider,
    plan: r.plan,
    status: r.status as GrantStatus,
    scopes: splitScopes(r.scopes),
    validFrom: Number(r.valid_from),
    validUntil: Number(r.valid_until),
    monthlyRequestLimit: Number(r.monthly_request_limit),
    requestsPerMinute: Number(r.requests_per_minute),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toKey(r: Database['api_keys']): KeyRecord {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    publicId: r.public_id,
    grantId: r.grant_id,
    environment: r.environment as 'live' | 'test',
    digest: r.digest,
    label: r.label,
    scopes: r.scopes === null ? null : splitScopes(r.scopes),
    status: r.status as KeyStatus,
    expiresAt: num(r.expires_at),
    lastUsedAt: num(r.last_used_at),
    createdAt: Number(r.created_at),
    revokedAt: num(r.revoked_at),
  };
}

export abstract class KyselyStore implements Store {
  abstract readonly dialect: StoreDialect;

  constructor(protected readonly db: Db) {}

  async migrate(): Promise<string[]> {
    // On PostgreSQL, name the schema: without it Kysely looks for its own tables in
    // every schema, finds those of another schema of the same database (a second
    // deployment, a parallel test run) and then skips creating them in this one.
    const migrationTableSchema =
      this.dialect === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db)).rows[0]?.schema
        : undefined;
    const migrator = new Migrator({
      db: this.db,
      provider: migrationProvider,
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error;
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  async versions(): Promise<Versions> {
    const rows = await this.db.selectFrom('versions').select(['name', 'value']).execute();
    const v: Versions = { data: 0, access: 0 };
    for (const r of rows) if (r.name === 'data' || r.name === 'access') v[r.name] = Number(r.value);
    return v;
  }

  protected async bump(trx: Transaction<Database> | Db, name: 'data' | 'access'): Promise<void> {
    await trx.updateTable('versions').set({ value: sql`value + 1` }).where('name', '=', name).execute();
  }

  async setting(name: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.value;
  }

  async listAssets(): Promise<Asset[]> {
    const rows = await this.db.selectFrom('assets').selectAll().orderBy('code').execute();
    return rows.map((r) => ({
      code: r.code,
      symbol: r.symbol,
      names: { en: r.name_en, fr: r.name_fr, ar: r.name_ar },
      type: r.type as AssetType,
    }));
  }

  async latestRates(): Promise<RateObservation[]> {
    const rows = await this.db
      .selectFrom('rates as r')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('rates')
            .select(['currency', 'source', (e) => e.fn.max('updated_at').as('latest')])
            .groupBy(['currency', 'source'])
            .as('l'),
        (join) =>
          join
            .onRef('l.currency', '=', 'r.currency')
            .onRef('l.source', '=', 'r.source')
            .onRef('l.latest', '=', 'r.updated_at'),
      )
      .select(['r.currency', 'r.source', 'r.updated_at', 'r.buy', 'r.sell'])
      .orderBy('r.currency')
      .orderBy('r.source')
      .execute();
    return rows.map(toRate);
  }

  async rateHistory(q: RateHistoryQuery): Promise<RateObservation[]> {
    let query = this.db
      .selectFrom('rates')
      .select(['currency', 'source', 'updated_at', 'buy', 'sell'])
      .where('currency', '=', q.currency)
      .where('source', '=', q.source)
      .where('updated_at', '>=', q.from)
      .where('updated_at', '<=', q.to);
    if (q.before !== undefined) query = query.where('updated_at', '<', q.before);
    const rows = await query.orderBy('updated_at', 'desc').limit(q.limit).execute();
    return rows.map(toRate);
  }

  async dailyRates(q: DailyRatesQuery): Promise<RateObservation[]> {
    // Instants are non-negative epoch ms: integer division by a day's length is the
    // UTC day on both dialects (SQLite and PostgreSQL divide integers as integers).
    // A window holds up to 366 days, and may hold many observations a day: the
    // day's latest is picked here, on the primary key, rather than in the process.
    const day = sql`updated_at / ${sql.lit(DAY_MS)}`;
    const rows = await this.db
      .selectFrom('rates as r')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('rates')
            .select((e) => e.fn.max('updated_at').as('latest'))
            .where('currency', '=', q.currency)
            .where('source', '=', q.source)
            .where('updated_at', '>=', q.from)
            .where('updated_at', '<=', q.to)
            .groupBy(day)
            .as('l'),
        (join) => join.onRef('l.latest', '=', 'r.updated_at'),
      )
      .select(['r.currency', 'r.source', 'r.updated_at', 'r.buy', 'r.sell'])
      .where('r.currency', '=', q.currency)
      .where('r.source', '=', q.source)
      .orderBy('r.updated_at', 'desc')
      .execute();
    return rows.map(toRate);
  }

  async latestGold(): Promise<GoldObservation[]> {
    const rows = await this.db
      .selectFrom('gold as g')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('gold')
            .select(['purity', (e) => e.fn.max('updated_at').as('latest')])
            .groupBy('purity')
            .as('l'),
        (join) => join.onRef('l.purity', '=', 'g.purity').onRef('l.latest', '=', 'g.updated_at'),
      )
      .select(['g.purity', 'g.updated_at', 'g.buy', 'g.sell'])
      .orderBy('g.purity')
      .execute();
    return rows.map(toGold);
  }

  async goldHistory(q: GoldHistoryQuery): Promise<GoldObservation[]> {
    let query = this.db
      .selectFrom('gold')
      .select(['purity', 'updated_at', 'buy', 'sell'])
      .where('updated_at', '>=', q.from)
      .where('updated_at', '<=', q.to);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('updated_at', '<', after.updatedAt),
          eb.and([eb('updated_at', '=', after.updatedAt), eb('purity', '>', after.purity)]),
        ]),
      );
    }
    const rows = await query.orderBy('updated_at', 'desc').orderBy('purity', 'asc').limit(q.limit).execute();
    return rows.map(toGold);
  }

  async unknownAssets(codes: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(codes)];
    if (wanted.length === 0) return [];
    const known = new Set((await this.db.selectFrom('assets').select('code').execute()).map((r) => r.code));
    return wanted.filter((c) => !known.has(c)).sort();
  }

  async import(batch: ImportBatch, options: ImportOptions = {}): Promise<ImportSummary> {
    if (batch.kind === 'assets') return this.importAssets(batch.records);
    return this.importObservations(batch, options);
  }

  /** The asset directory is small: row-by-row upserts in one transaction are plenty. */
  private async importAssets(records: Asset[]): Promise<ImportSummary> {
    const summary: ImportSummary = {
      kind: 'assets',
      received: records.length,
      inserted: 0,
      updated: 0,
      unchanged: 0,
    };
    await this.db.transaction().execute(async (trx) => {
      const existing = new Map(
        (await trx.selectFrom('assets').selectAll().execute()).map((r) => [r.code, r]),
      );
      for (const a of records) {
        const row = {
          code: a.code,
          symbol: a.symbol,
          type: a.type,
          name_en: a.names.en,
          name_fr: a.names.fr,
          name_ar: a.names.ar,
        };
        const old = existing.get(a.code);
        if (!old) {
          await trx.insertInto('assets').values(row).execute();
          summary.inserted++;
        } else if (
          old.symbol !== row.symbol ||
          old.type !== row.type ||
          old.name_en !== row.name_en ||
          old.name_fr !== row.name_fr ||
          old.name_ar !== row.name_ar
        ) {
          await trx.updateTable('assets').set(row).where('code', '=', a.code).execute();
          summary.updated++;
        } else {
          summary.unchanged++;
        }
      }
      if (summary.inserted + summary.updated > 0) await this.bump(trx, 'data');
    });
    return summary;
  }

  /** Rates and gold: bulk paths differ per dialect for throughput. */
  protected abstract importObservations(
    batch: Exclude<ImportBatch, { kind: 'assets' }>,
    options: ImportOptions,
  ): Promise<ImportSummary>;

  async createAccount(a: AccountRecord): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('accounts')
        .values({ id: a.id, name: a.name, email: a.email, created_at: a.createdAt })
        .execute();
      await this.bump(trx, 'access');
    });
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const r = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return r && { id: r.id, name: r.name, email: r.email, createdAt: Number(r.created_at) };
  }

  async countAccounts(): Promise<number> {
    const r = await this.db
      .selectFrom('accounts')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async createGrant(g: GrantRecord): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('grants')
        .values({
          id: g.id,
          account_id: g.accountId,
          provider: g.provider,
          plan: g.plan,
          status: g.status,
          scopes: g.scopes.join(','),
          valid_from: g.validFrom,
          valid_until: g.validUntil,
          monthly_request_limit: g.monthlyRequestLimit,
          requests_per_minute: g.requestsPerMinute,
          created_at: g.createdAt,
          updated_at: g.updatedAt,
        })
        .execute();
      await this.bump(trx, 'access');
    });
  }

  async getGrant(id: string): Promise<GrantRecord | undefined> {
    const r = await this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toGrant(r);
  }

  async updateGrant(id: string, patch: GrantPatch, now: number): Promise<GrantRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const set: Partial<Database['grants']> = { updated_at: now };
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.scopes !== undefined) set.scopes = patch.scopes.join(',');
      if (patch.monthlyRequestLimit !== undefined) set.monthly_request_limit = patch.monthlyRequestLimit;
      if (patch.requestsPerMinute !== undefined) set.requests_per_minute = patch.requestsPerMinute;
      if (patch.validUntil !== undefined) set.valid_until = patch.validUntil;
      const r = await trx
        .updateTable('grants')
        .set(set)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (r) await this.bump(trx, 'access');
      return r && toGrant(r);
    });
  }

  async createKey(k: KeyRecord): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('api_keys')
        .values({
          public_id: k.publicId,
          grant_id: k.grantId,
          environment: k.environment,
          digest: k.digest,
          label: k.label,
          scopes: k.scopes === null ? null : k.scopes.join(','),
          status: k.status,
          expires_at: k.expiresAt,
          last_used_at: k.lastUsedAt,
          created_at: k.createdAt,
          revoked_at: k.revokedAt,
        })
        .execute();
      await this.bump(trx, 'access');
    });
  }

  async getKey(publicId: string): Promise<KeyRecord | undefined> {
    const r = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return r && toKey(r);
  }

  async listKeys(grantId?: string): Promise<KeyRecord[]> {
    let q = this.db.selectFrom('api_keys').selectAll();
    if (grantId !== undefined) q = q.where('grant_id', '=', grantId);
    const rows = await q.orderBy('created_at').orderBy('public_id').execute();
    return rows.map(toKey);
  }

  async revokeKey(publicId: string, now: number): Promise<KeyRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // Revocation is final: a revoked key keeps its first revocation time.
      await trx
        .updateTable('api_keys')
        .set({ status: 'revoked', revoked_at: now })
        .where('public_id', '=', publicId)
        .where('status', '=', 'active')
        .execute();
      const r = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('public_id', '=', publicId)
        .executeTakeFirst();
      if (r) await this.bump(trx, 'access');
      return r && toKey(r);
    });
  }

  /** lastUsedAt is informational: it does not bump the access version. */
  async touchKeys(uses: ReadonlyArray<{ publicId: string; at: number }>): Promise<void> {
    if (uses.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const u of uses) {
        await trx
          .updateTable('api_keys')
          .set({ last_used_at: u.at })
          .where('public_id', '=', u.publicId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', u.at)]))
          .execute();
      }
    });
  }

  async addUsage(increments: readonly UsageIncrement[], now: number): Promise<void> {
    if (increments.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const inc of increments) {
        await trx
          .insertInto('usage')
          .values({ grant_id: inc.grantId, period: inc.period, used: inc.count, updated_at: now })
          .onConflict((oc) =>
            oc.columns(['grant_id', 'period']).doUpdateSet({
              used: sql`usage.used + excluded.used`,
              updated_at: now,
            }),
          )
          .execute();
      }
    });
  }

  abstract consumeUsage(requests: readonly ConsumeRequest[], now: number): Promise<ConsumeOutcome[]>;

  async getMinuteUsage(grantId: string, window: number): Promise<number> {
    const r = await this.db
      .selectFrom('minute_usage')
      .select(['window_start', 'used'])
      .where('grant_id', '=', grantId)
      .executeTakeFirst();
    return r && Number(r.window_start) === window ? Number(r.used) : 0;
  }

  async releaseMinute(grantId: string, window: number, count: number): Promise<void> {
    await this.db
      .updateTable('minute_usage')
      .set({ used: sql`case when used > ${count} then used - ${count} else 0 end` })
      .where('grant_id', '=', grantId)
      .where('window_start', '=', window)
      .execute();
  }

  async getUsage(grantId: string, period: string): Promise<number> {
    const r = await this.db
      .selectFrom('usage')
      .select('used')
      .where('grant_id', '=', grantId)
      .where('period', '=', period)
      .executeTakeFirst();
    return r ? Number(r.used) : 0;
  }
}

export type ObservationKind = 'rates' | 'gold';
export type { GoldRow, RateRow };
