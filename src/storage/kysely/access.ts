/**
 * Accounts, grants and keys, as Kysely writes them for either dialect. Every
 * change moves the `access` version in its own transaction, which is how other
 * instances learn to drop their cached keys (runtime/watcher.ts).
 */
import type { Database } from '../schema.js';
import type { AccountRecord, GrantPatch, GrantRecord, GrantStatus, KeyRecord, KeyStatus } from '../store.js';
import { bump, type Db } from './database.js';

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

export async function createAccount(db: Db, a: AccountRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('accounts')
      .values({ id: a.id, name: a.name, email: a.email, created_at: a.createdAt })
      .execute();
    await bump(trx, 'access');
  });
}

export async function getAccount(db: Db, id: string): Promise<AccountRecord | undefined> {
  const r = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return r && { id: r.id, name: r.name, email: r.email, createdAt: Number(r.created_at) };
}

export async function countAccounts(db: Db): Promise<number> {
  const r = await db
    .selectFrom('accounts')
    .select((e) => e.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export async function createGrant(db: Db, g: GrantRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
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
    await bump(trx, 'access');
  });
}

export async function getGrant(db: Db, id: string): Promise<GrantRecord | undefined> {
  const r = await db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toGrant(r);
}

export async function updateGrant(
  db: Db,
  id: string,
  patch: GrantPatch,
  now: number,
): Promise<GrantRecord | undefined> {
  return db.transaction().execute(async (trx) => {
    const set: Partial<Database['grants']> = { updated_at: now };
    if (patch.status !== undefined) set.status = patch.status;
    if (patch.scopes !== undefined) set.scopes = patch.scopes.join(',');
    if (patch.monthlyRequestLimit !== undefined) set.monthly_request_limit = patch.monthlyRequestLimit;
    if (patch.requestsPerMinute !== undefined) set.requests_per_minute = patch.requestsPerMinute;
    if (patch.validUntil !== undefined) set.valid_until = patch.validUntil;
    const r = await trx.updateTable('grants').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    if (r) await bump(trx, 'access');
    return r && toGrant(r);
  });
}

export async function createKey(db: Db, k: KeyRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
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
    await bump(trx, 'access');
  });
}

export async function getKey(db: Db, publicId: string): Promise<KeyRecord | undefined> {
  const r = await db.selectFrom('api_keys').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  return r && toKey(r);
}

export async function listKeys(db: Db, grantId?: string): Promise<KeyRecord[]> {
  let q = db.selectFrom('api_keys').selectAll();
  if (grantId !== undefined) q = q.where('grant_id', '=', grantId);
  const rows = await q.orderBy('created_at').orderBy('public_id').execute();
  return rows.map(toKey);
}

export async function revokeKey(db: Db, publicId: string, now: number): Promise<KeyRecord | undefined> {
  return db.transaction().execute(async (trx) => {
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
    if (r) await bump(trx, 'access');
    return r && toKey(r);
  });
}

/**
 * PostgreSQL's `lastUsedAt` updates; SQLite runs them on its raw connection
 * (sqlite.ts). lastUsedAt is informational: it does not bump the access version.
 */
export async function touchKeys(
  db: Db,
  uses: ReadonlyArray<{ publicId: string; at: number }>,
): Promise<void> {
  if (uses.length === 0) return;
  await db.transaction().execute(async (trx) => {
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
