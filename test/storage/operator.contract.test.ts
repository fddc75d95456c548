/**
 * The operator repository's contract (docs/decisions.md, 57), with the access
 * repository's side the operator uses (its lists, the key roll), on
 * every backend: external ids unique, lists filtered and paged by keyset, the
 * audit record written in the transaction of its change (and rolled back with
 * it), the audit log append-only, and Idempotency-Key claims that tell
 * concurrent duplicates apart.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditActor, GrantRecord, KeyRecord, NewGrant } from '../../src/storage/admin-records.js';
import { DuplicateError, type Store } from '../../src/storage/store.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const ALICE: AuditActor = { id: 'cli', label: 'alice', requestId: null };
const TOKEN: AuditActor = { id: 'adm_aaaaaaaaaaaa', label: 'billing', requestId: 'req-1' };

const grant = (id: string, accountId: string, extra: Partial<GrantRecord> = {}): NewGrant => ({
  id,
  accountId,
  provider: 'manual',
  plan: 'pro',
  status: 'active',
  scopes: ['read'],
  validFrom: T0,
  validUntil: T0 + 365 * 86_400_000,
  monthlyRequestLimit: 1000,
  requestsPerMinute: 10,
  createdAt: T0,
  updatedAt: T0,
  ...extra,
});

const key = (publicId: string, grantId: string, createdAt = T0): KeyRecord => ({
  publicId,
  grantId,
  environment: 'live',
  digest: publicId.padEnd(64, 'f').slice(0, 64),
  label: 'k',
  scopes: null,
  status: 'active',
  expiresAt: null,
  lastUsedAt: null,
  createdAt,
  revokedAt: null,
});

describe.each(backends())('operator records on $name', ({ name }) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const auditOf = (targetId: string) => store.operator.listAudit({ targetId }, { limit: 100 });

  it('refuses a second account with the same externalId, and writes nothing for it', async () => {
    await store.access.createAccount(
      { id: 'acc_a', name: 'A', email: 'a@x.example', createdAt: T0, externalId: 'cus_1' },
      ALICE,
    );
    await store.access.createAccount({ id: 'acc_b', name: null, email: null, createdAt: T0 + 1 });
    await store.access.createAccount({ id: 'acc_c', name: null, email: null, createdAt: T0 + 2 });
    const versions = await store.versions();
    await expect(
      store.access.createAccount({
        id: 'acc_d',
        name: null,
        email: null,
        createdAt: T0,
        externalId: 'cus_1',
      }),
    ).rejects.toBeInstanceOf(DuplicateError);
    await expect(store.access.updateAccount('acc_b', { externalId: 'cus_1' }, T0 + 5)).rejects.toBeInstanceOf(
      DuplicateError,
    );
    expect(await store.access.getAccount('acc_d')).toBeUndefined();
    expect((await store.access.getAccount('acc_b'))?.externalId).toBeNull();
    expect(await auditOf('acc_d')).toEqual([]);
    expect(await auditOf('acc_b')).toHaveLength(1); // its creation only
    expect(await store.versions()).toEqual(versions);
    expect(await store.access.getAccount('acc_a')).toEqual({
      id: 'acc_a',
      name: 'A',
      email: 'a@x.example',
      externalId: 'cus_1',
      createdAt: T0,
      updatedAt: T0,
    });
  });

  it('refuses a grant externalId twice for one provider, not across providers', async () => {
    await store.access.createGrant(grant('grt_a', 'acc_a', { provider: 'stripe', externalId: 'sub_1' }));
    await store.access.createGrant(
      grant('grt_b', 'acc_a', { provider: 'paddle', externalId: 'sub_1', createdAt: T0 + 1 }),
    );
    await store.access.createGrant(grant('grt_c', 'acc_b', { createdAt: T0 + 2 }));
    await store.access.createGrant(grant('grt_d', 'acc_b', { createdAt: T0 + 3, status: 'suspended' }));
    await expect(
      store.access.createGrant(grant('grt_e', 'acc_b', { provider: 'stripe', externalId: 'sub_1' })),
    ).rejects.toBeInstanceOf(DuplicateError);
    expect(await store.access.getGrant('grt_e')).toBeUndefined();
    expect((await store.access.getGrant('grt_a'))?.externalId).toBe('sub_1');
    expect((await store.access.getGrant('grt_c'))?.externalId).toBeNull();
  });

  it('lists accounts, grants and keys with their filters, page by keyset', async () => {
    const ids = async <T>(rows: Promise<T[]>, id: (r: T) => string) => (await rows).map(id);
    const acc = (r: { id: string }) => r.id;
    expect(await ids(store.access.listAccounts({}, { limit: 2 }), acc)).toEqual(['acc_a', 'acc_b']);
    expect(
      await ids(store.access.listAccounts({}, { limit: 2, after: { at: T0 + 1, id: 'acc_b' } }), acc),
    ).toEqual(['acc_c']);
    expect(await ids(store.access.listAccounts({ externalId: 'cus_1' }, { limit: 10 }), acc)).toEqual([
      'acc_a',
    ]);
    expect(await ids(store.access.listAccounts({ email: 'a@x.example' }, { limit: 10 }), acc)).toEqual([
      'acc_a',
    ]);
    expect(await ids(store.access.listAccounts({ email: 'nobody@x.example' }, { limit: 10 }), acc)).toEqual(
      [],
    );

    expect(await ids(store.access.listGrants({ accountId: 'acc_a' }, { limit: 10 }), acc)).toEqual([
      'grt_a',
      'grt_b',
    ]);
    expect(
      await ids(store.access.listGrants({ provider: 'stripe', externalId: 'sub_1' }, { limit: 10 }), acc),
    ).toEqual(['grt_a']);
    expect(await ids(store.access.listGrants({ externalId: 'sub_1' }, { limit: 10 }), acc)).toEqual([
      'grt_a',
      'grt_b',
    ]);
    expect(await ids(store.access.listGrants({ status: 'suspended' }, { limit: 10 }), acc)).toEqual([
      'grt_d',
    ]);
    expect(
      await ids(store.access.listGrants({}, { limit: 3, after: { at: T0 + 1, id: 'grt_b' } }), acc),
    ).toEqual(['grt_c', 'grt_d']);

    await store.access.createKey(key('aaaaaaaaaaa1', 'grt_a', T0));
    await store.access.createKey(key('aaaaaaaaaaa2', 'grt_c', T0 + 1));
    await store.access.createKey(key('aaaaaaaaaaa3', 'grt_c', T0 + 1));
    const items = await store.access.listKeyItems({}, { limit: 10 });
    expect(items.map((k) => [k.publicId, k.accountId, k.plan])).toEqual([
      ['aaaaaaaaaaa1', 'acc_a', 'pro'],
      ['aaaaaaaaaaa2', 'acc_b', 'pro'],
      ['aaaaaaaaaaa3', 'acc_b', 'pro'],
    ]);
    const pid = (k: { publicId: string }) => k.publicId;
    expect(await ids(store.access.listKeyItems({ accountId: 'acc_b' }, { limit: 1 }), pid)).toEqual([
      'aaaaaaaaaaa2',
    ]);
    expect(
      await ids(
        store.access.listKeyItems(
          { accountId: 'acc_b' },
          { limit: 5, after: { at: T0 + 1, id: 'aaaaaaaaaaa2' } },
        ),
        pid,
      ),
    ).toEqual(['aaaaaaaaaaa3']);
    expect(await ids(store.access.listKeyItems({ grantId: 'grt_a' }, { limit: 5 }), pid)).toEqual([
      'aaaaaaaaaaa1',
    ]);
  });

  it('writes one audit record with each change: actor, action, target, before and after', async () => {
    await store.access.updateGrant('grt_c', { status: 'suspended', requestsPerMinute: 20 }, T0 + 100, TOKEN);
    const [update] = await auditOf('grt_c');
    expect(update).toEqual({
      id: expect.stringMatching(/^aud_[a-z0-9]+$/),
      at: T0 + 100,
      actorId: 'adm_aaaaaaaaaaaa',
      actorLabel: 'billing',
      action: 'grant.update',
      targetId: 'grt_c',
      changes: {
        status: { before: 'active', after: 'suspended' },
        requestsPerMinute: { before: 10, after: 20 },
      },
      requestId: 'req-1',
    });
    const [created] = await auditOf('acc_a');
    expect(created).toMatchObject({
      action: 'account.create',
      actorId: 'cli',
      actorLabel: 'alice',
      changes: {
        name: { before: null, after: 'A' },
        email: { before: null, after: 'a@x.example' },
        externalId: { before: null, after: 'cus_1' },
      },
    });
    // Without an actor: the service itself.
    expect((await auditOf('acc_b'))[0]).toMatchObject({ actorId: 'system', actorLabel: 'system' });

    await store.access.updateAccount('acc_b', { name: 'B', externalId: 'cus_2' }, T0 + 200, ALICE);
    expect((await auditOf('acc_b'))[0]).toMatchObject({
      action: 'account.update',
      at: T0 + 200,
      changes: { name: { before: null, after: 'B' }, externalId: { before: null, after: 'cus_2' } },
    });
    expect((await store.access.getAccount('acc_b'))?.updatedAt).toBe(T0 + 200);
    // A change that changes nothing is not recorded.
    await store.access.updateAccount('acc_b', { name: 'B' }, T0 + 300, ALICE);
    expect(await auditOf('acc_b')).toHaveLength(2);

    await store.access.revokeKey('aaaaaaaaaaa3', T0 + 400, ALICE);
    await store.access.revokeKey('aaaaaaaaaaa3', T0 + 500, ALICE); // already revoked: nothing to record
    const revoked = await auditOf('aaaaaaaaaaa3');
    expect(revoked.map((r) => r.action)).toEqual(['key.revoke', 'key.create']);
    expect(revoked[0]!.changes).toEqual({
      status: { before: 'active', after: 'revoked' },
      revokedAt: { before: null, after: new Date(T0 + 400).toISOString() },
    });
    // A key's record never holds its digest.
    expect(JSON.stringify(revoked)).not.toContain(key('aaaaaaaaaaa3', 'x').digest);
  });

  it('rolls a key in one transaction: the new key, the old one expiring, one key.roll record', async () => {
    const rolled = await store.access.rollKey(
      'aaaaaaaaaaa2',
      key('bbbbbbbbbbb2', 'grt_c', T0 + 600),
      T0 + 900,
      T0 + 600,
      ALICE,
    );
    expect(rolled?.old).toMatchObject({ publicId: 'aaaaaaaaaaa2', expiresAt: T0 + 900, status: 'active' });
    expect(await store.access.getKey('bbbbbbbbbbb2')).toMatchObject({ grantId: 'grt_c', status: 'active' });
    const [roll] = await auditOf('aaaaaaaaaaa2');
    expect(roll).toMatchObject({
      action: 'key.roll',
      changes: {
        expiresAt: { before: null, after: new Date(T0 + 900).toISOString() },
        replacedBy: { before: null, after: 'bbbbbbbbbbb2' },
      },
    });
    // A later grace period never pushes the expiry back.
    await store.access.rollKey('aaaaaaaaaaa2', key('ccccccccccc2', 'grt_c', T0 + 700), T0 + 5000, T0 + 700);
    expect((await store.access.getKey('aaaaaaaaaaa2'))?.expiresAt).toBe(T0 + 900);
    expect(await store.access.rollKey('nosuchkey000', key('ddddddddddd2', 'grt_c'), T0, T0)).toBeUndefined();
    expect(await store.access.getKey('ddddddddddd2')).toBeUndefined();
  });

  it('rolls a change back with its audit record: a record that cannot be written undoes the change', async () => {
    const broken = { id: 'cli', label: null, requestId: null } as unknown as AuditActor;
    await expect(
      store.access.createAccount({ id: 'acc_broken', name: null, email: null, createdAt: T0 }, broken),
    ).rejects.toThrow();
    expect(await store.access.getAccount('acc_broken')).toBeUndefined();
    await expect(
      store.access.updateGrant('grt_a', { requestsPerMinute: 99 }, T0 + 1000, broken),
    ).rejects.toThrow();
    expect((await store.access.getGrant('grt_a'))?.requestsPerMinute).toBe(10);
    await expect(store.access.revokeKey('aaaaaaaaaaa1', T0 + 1000, broken)).rejects.toThrow();
    expect((await store.access.getKey('aaaaaaaaaaa1'))?.status).toBe('active');
  });

  it('keeps admin tokens as digests and records them without it', async () => {
    const token = {
      publicId: 'adm_bbbbbbbbbbbb',
      digest: 'e'.repeat(64),
      label: 'billing webhook',
      scopes: ['accounts:write', 'keys:write'],
      status: 'active' as const,
      createdAt: T0,
      lastUsedAt: null,
      revokedAt: null,
    };
    await store.operator.createAdminToken(token, ALICE);
    await store.operator.createAdminToken({
      ...token,
      publicId: 'adm_cccccccccccc',
      digest: 'd'.repeat(64),
      createdAt: T0 + 1,
    });
    expect(await store.operator.findAdminTokenByDigest('e'.repeat(64))).toEqual(token);
    expect(await store.operator.getAdminToken('adm_bbbbbbbbbbbb')).toEqual(token);
    expect((await store.operator.listAdminTokens({ limit: 1 })).map((t) => t.publicId)).toEqual([
      'adm_bbbbbbbbbbbb',
    ]);
    expect(
      (await store.operator.listAdminTokens({ limit: 5, after: { at: T0, id: 'adm_bbbbbbbbbbbb' } })).map(
        (t) => t.publicId,
      ),
    ).toEqual(['adm_cccccccccccc']);
    await store.operator.touchAdminToken('adm_bbbbbbbbbbbb', T0 + 50);
    await store.operator.touchAdminToken('adm_bbbbbbbbbbbb', T0 + 10);
    expect((await store.operator.getAdminToken('adm_bbbbbbbbbbbb'))?.lastUsedAt).toBe(T0 + 50);
    expect(await store.operator.revokeAdminToken('adm_bbbbbbbbbbbb', T0 + 60, ALICE)).toMatchObject({
      status: 'revoked',
      revokedAt: T0 + 60,
    });
    expect(await store.operator.revokeAdminToken('adm_bbbbbbbbbbbb', T0 + 70)).toMatchObject({
      revokedAt: T0 + 60,
    });
    expect(await store.operator.revokeAdminToken('adm_nobody', T0)).toBeUndefined();
    const records = await auditOf('adm_bbbbbbbbbbbb');
    expect(records.map((r) => r.action)).toEqual(['admin_token.revoke', 'admin_token.create']);
    expect(records[1]!.changes).toEqual({
      label: { before: null, after: 'billing webhook' },
      scopes: { before: null, after: ['accounts:write', 'keys:write'] },
      status: { before: null, after: 'active' },
    });
    expect(JSON.stringify(records)).not.toContain('e'.repeat(64));
  });

  it('replaces an admin token’s scopes with their audit record; the same ones or a revoked token change nothing', async () => {
    const id = 'adm_cccccccccccc';
    const updated = await store.operator.updateAdminTokenScopes(id, ['usage:read'], T0 + 80, ALICE);
    expect(updated).toMatchObject({ publicId: id, scopes: ['usage:read'], digest: 'd'.repeat(64) });
    expect((await store.operator.getAdminToken(id))?.scopes).toEqual(['usage:read']);
    await store.operator.updateAdminTokenScopes(id, ['usage:read'], T0 + 81, ALICE);
    expect((await auditOf(id)).map((r) => [r.action, r.changes])).toEqual([
      ['admin_token.update', { scopes: { before: ['accounts:write', 'keys:write'], after: ['usage:read'] } }],
      ['admin_token.create', expect.any(Object)],
    ]);
    // The revoked one of the test before keeps its scopes.
    const revoked = await store.operator.updateAdminTokenScopes('adm_bbbbbbbbbbbb', ['usage:read'], T0 + 90);
    expect(revoked).toMatchObject({ status: 'revoked', scopes: ['accounts:write', 'keys:write'] });
    expect(await store.operator.updateAdminTokenScopes('adm_nobody', ['usage:read'], T0)).toBeUndefined();
  });

  it('records an import that wrote as data.import, in its transaction; a dry run leaves none', async () => {
    const asset = {
      code: 'EUR',
      symbol: '€',
      names: { en: 'e', fr: 'e', ar: 'e' },
      type: 'currency' as const,
    };
    const meta = (id: string, actor: string) => ({
      id,
      actor,
      sourceName: 'rates.csv',
      format: 'csv',
      acceptedOutliers: false,
      outliers: 0,
      maxChangePercent: 20,
    });
    await store.imports.import(
      { kind: 'assets', records: [asset] },
      { meta: meta('imp_assets', 'cli:alice') },
    );
    const rates = [0, 1].map((d) => ({
      currency: 'EUR',
      source: 'parallel' as const,
      updatedAt: T0 + d * 86_400_000,
      buy: 240_000_000,
      sell: 242_000_000,
    }));
    await store.imports.import(
      { kind: 'rates', records: rates },
      { meta: meta('imp_rates', 'adm_cccccccccccc') },
    );
    await store.imports.import(
      { kind: 'rates', records: rates },
      { meta: meta('imp_dry', 'cli:alice'), dryRun: true },
    );
    expect(await auditOf('imp_dry')).toEqual([]);
    expect((await auditOf('imp_assets'))[0]).toMatchObject({
      action: 'data.import',
      actorId: 'cli',
      actorLabel: 'alice',
      changes: { kind: { before: null, after: 'assets' }, inserted: { before: null, after: 1 } },
    });
    expect((await auditOf('imp_rates'))[0]).toMatchObject({
      actorId: 'adm_cccccccccccc',
      actorLabel: 'billing webhook',
      changes: {
        kind: { before: null, after: 'rates' },
        received: { before: null, after: 2 },
        inserted: { before: null, after: 2 },
        updated: { before: null, after: 0 },
        unchanged: { before: null, after: 0 },
      },
    });
  });

  it('lists the audit log newest first, filtered, page by keyset', async () => {
    const all = await store.operator.listAudit({}, { limit: 1000 });
    const order = all.map((r) => [r.at, r.id] as const);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0));
    expect(order).toEqual(sorted);
    const first = await store.operator.listAudit({}, { limit: 3 });
    const last = first[2]!;
    const next = await store.operator.listAudit({}, { limit: 3, after: { at: last.at, id: last.id } });
    expect([...first, ...next].map((r) => r.id)).toEqual(all.slice(0, 6).map((r) => r.id));
    expect(
      (await store.operator.listAudit({ actor: 'adm_aaaaaaaaaaaa' }, { limit: 10 })).map((r) => r.action),
    ).toEqual(['grant.update']);
    const revokes = await store.operator.listAudit({ action: 'key.revoke' }, { limit: 10 });
    expect(revokes.map((r) => r.targetId)).toEqual(['aaaaaaaaaaa3']);
    const window = await store.operator.listAudit({ from: T0 + 100, to: T0 + 400 }, { limit: 100 });
    expect(window.map((r) => r.at)).toEqual([T0 + 400, T0 + 200, T0 + 100]);
  });

  it('refuses to update or delete an audit record', async () => {
    const attempts = ['update audit_log set action = ?', 'delete from audit_log where action <> ?'];
    if (name === 'sqlite') {
      const raw = new BetterSqlite3(db.url);
      try {
        for (const q of attempts) expect(() => raw.prepare(q).run('x')).toThrow(/append-only/);
      } finally {
        raw.close();
      }
    } else {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        for (const q of attempts) {
          await expect(client.query(q.replace('?', '$1'), ['x'])).rejects.toThrow(/append-only/);
        }
      } finally {
        await client.end();
      }
    }
  });

  it('claims an idempotency key once among concurrent duplicates, replays it, releases it', async () => {
    const other = db.open();
    try {
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? other : store).operator.claimIdempotencyKey('adm_x', 'key-1', 'fp-1', T0, 86_400_000),
        ),
      );
      expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c.state === 'in_progress')).toEqual(
        Array(9).fill({ state: 'in_progress', fingerprint: 'fp-1' }),
      );
      await store.operator.completeIdempotencyKey('adm_x', 'key-1', 201, '{"data":1}');
      expect(await other.operator.claimIdempotencyKey('adm_x', 'key-1', 'fp-2', T0 + 1, 86_400_000)).toEqual({
        state: 'done',
        fingerprint: 'fp-1',
        status: 201,
        body: '{"data":1}',
      });
      // Another actor's key of the same text is its own.
      expect(await store.operator.claimIdempotencyKey('adm_y', 'key-1', 'fp-1', T0, 86_400_000)).toEqual({
        state: 'claimed',
      });
      // Released after a 5xx: the retry runs.
      await store.operator.releaseIdempotencyKey('adm_y', 'key-1');
      expect(await store.operator.claimIdempotencyKey('adm_y', 'key-1', 'fp-3', T0 + 2, 86_400_000)).toEqual({
        state: 'claimed',
      });
      // Expired: replaced by the next claim.
      expect(
        await store.operator.claimIdempotencyKey('adm_x', 'key-1', 'fp-4', T0 + 86_400_000, 86_400_000),
      ).toEqual({
        state: 'claimed',
      });
    } finally {
      await other.close();
    }
  });
});
