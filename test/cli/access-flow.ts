/**
 * Accounts, grants, keys and usage through the built `mds` CLI (decisions §3,
 * §4, §11), on SQLite and, when configured, PostgreSQL. The refusals of bad
 * options are in access-validation.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlans } from '../../src/access/plans.js';
import { parseKey } from '../../src/domain/keys.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';

const KEY = /^mds_(live|test)_([a-z0-9]{12})_[0-9A-Za-z]{49}$/;
const HEX64 = /[0-9a-f]{64}/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const RATES = ENTITLEMENTS.filter((e) => e.startsWith('rates:'));

function ok(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return r.json();
}

function refused(r: CliResult, message: string) {
  expect(r.stdout).toBe('');
  expect(r.status).not.toBe(0);
  expect(r.stderr).toBe(`mds: ${message}\n`);
}

/** The suite on one backend; access.test.ts runs it on SQLite, access-postgres.test.ts on PostgreSQL. */
export function accessFlow(backend: Backend): void {
  describe(`mds accounts, grants, keys and usage on ${backend.name}`, () => {
    let db: Database;
    const run = (...args: string[]) => mds(args, { db: db.url });
    let account: string;
    /** A grant with every option given. */
    let grant: string;

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
    });
    afterAll(async () => db?.drop());

    it('accounts create prints the new id, or {id} with --json', async () => {
      const text = await run('accounts', 'create', '--name', 'Acme', '--email', 'ops@acme.example');
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(/^acc_[a-z0-9]+\n$/);
      const json = ok(await run('accounts', 'create', '--json'));
      expect(Object.keys(json)).toEqual(['id']);
      expect(json.id).toMatch(/^acc_[a-z0-9]+$/);
      expect(json.id).not.toBe(text.stdout.trim());
      account = json.id;
    });

    it('grants create with every option stores them; --json gives the grant', async () => {
      const doc = ok(
        await run(
          'grants',
          'create',
          '--account',
          account,
          '--plan',
          'custom',
          '--scopes',
          'rates:official:latest:read,usage:read',
          '--monthly-limit',
          '5000',
          '--rpm',
          '30',
          '--provider',
          'stripe',
          '--valid-from',
          '2025-01-01T00:00:00Z',
          '--valid-until',
          '2030-01-01',
          '--json',
        ),
      );
      expect(doc.id).toMatch(/^grt_[a-z0-9]+$/);
      expect(doc.grant).toEqual({
        id: doc.id,
        accountId: account,
        provider: 'stripe',
        plan: 'custom',
        status: 'active',
        scopes: ['rates:official:latest:read', 'usage:read'],
        entitlements: ['rates:official:latest:read', 'usage:read'],
        validFrom: '2025-01-01T00:00:00.000Z',
        validUntil: '2030-01-01T00:00:00.000Z',
        monthlyRequestLimit: 5000,
        requestsPerMinute: 30,
        externalId: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      grant = doc.id;
      // Without --json: the id alone.
      const text = await run(
        'grants',
        'create',
        '--account',
        account,
        '--plan',
        'custom',
        '--scopes',
        'assets:read',
        '--monthly-limit',
        '1',
        '--rpm',
        '1',
      );
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(/^grt_[a-z0-9]+\n$/);
    });

    it('legacy umbrellas are accepted and stored as given, expanded into entitlements', async () => {
      const common = [
        '--account',
        account,
        '--plan',
        'custom',
        '--monthly-limit',
        '10',
        '--rpm',
        '5',
        '--json',
      ];
      const [legacy, everything, latest, history] = await Promise.all([
        run('grants', 'create', ...common, '--scopes', 'rates:read,gold:read,market:read'),
        run('grants', 'create', ...common, '--scopes', 'read'),
        run('grants', 'create', ...common, '--scopes', 'rates:latest:read'),
        run('grants', 'create', ...common, '--scopes', 'rates:history:read,assets:read'),
      ]);
      const g = ok(legacy).grant;
      expect(g.scopes).toEqual(['rates:read', 'gold:read', 'market:read']);
      expect(g.entitlements).toEqual(
        [
          ...RATES,
          'gold:history:read',
          'gold:latest:read',
          'market:premium:history:read',
          'market:premium:read',
        ].sort(),
      );
      expect(ok(everything).grant).toMatchObject({ scopes: ['read'], entitlements: [...ENTITLEMENTS] });
      expect(ok(latest).grant).toMatchObject({
        scopes: ['rates:latest:read'],
        entitlements: RATES.filter((e) => e.endsWith(':latest:read')),
      });
      expect(ok(history).grant).toMatchObject({
        scopes: ['rates:history:read', 'assets:read'],
        entitlements: ['assets:read', ...RATES.filter((e) => e.endsWith(':history:read'))].sort(),
      });
    });

    it('a catalogued plan fills the limits and scopes the operator did not give', async () => {
      const free = loadPlans().get('free')!;
      const g = ok(
        await run('grants', 'create', '--account', account, '--plan', 'free', '--rpm', '7', '--json'),
      ).grant;
      expect(g).toMatchObject({
        plan: 'free',
        scopes: free.scopes,
        monthlyRequestLimit: free.monthlyRequestLimit,
        requestsPerMinute: 7,
      });
    });

    it('grants update: active ⇄ suspended, → cancelled, and a cancelled grant is final', async () => {
      const id = ok(
        await run(
          'grants',
          'create',
          '--account',
          account,
          '--plan',
          'custom',
          '--scopes',
          'read',
          '--monthly-limit',
          '10',
          '--rpm',
          '5',
          '--json',
        ),
      ).id;
      const status = async (s: string) =>
        ok(await run('grants', 'update', id, '--status', s, '--json')).grant.status;
      expect(await status('suspended')).toBe('suspended');
      expect(await status('active')).toBe('active');
      const text = await run('grants', 'update', id, '--status', 'suspended');
      expect(text.status).toBe(0);
      expect(text.stdout).toBe(`${id}: suspended\n`);
      expect(await status('cancelled')).toBe('cancelled');
      const [reopen, suspend, cancelAgain, newKey] = await Promise.all([
        run('grants', 'update', id, '--status', 'active'),
        run('grants', 'update', id, '--status', 'suspended'),
        run('grants', 'update', id, '--status', 'cancelled', '--json'),
        run('keys', 'create', '--grant', id),
      ]);
      refused(reopen, 'a cancelled grant cannot be reopened');
      refused(suspend, 'a cancelled grant cannot be reopened');
      expect(ok(cancelAgain).grant.status).toBe('cancelled');
      // A cancelled grant gets no new keys.
      refused(newKey, '--grant: the grant is cancelled');
    });

    it('grants update changes scopes, limits and the end of validity', async () => {
      const g = ok(
        await run(
          'grants',
          'update',
          grant,
          '--scopes',
          'gold:read,usage:read',
          '--monthly-limit',
          '7000',
          '--rpm',
          '44',
          '--valid-until',
          '2031-06-30T12:00:00+02:00',
          '--json',
        ),
      ).grant;
      expect(g).toMatchObject({
        id: grant,
        status: 'active',
        scopes: ['gold:read', 'usage:read'],
        entitlements: ['gold:history:read', 'gold:latest:read', 'usage:read'],
        monthlyRequestLimit: 7000,
        requestsPerMinute: 44,
        validFrom: '2025-01-01T00:00:00.000Z',
        validUntil: '2031-06-30T10:00:00.000Z',
      });
      const text = await run('grants', 'update', grant, '--rpm', '40');
      expect(text.status).toBe(0);
      expect(text.stdout).toBe(`${grant}: active\n`);
      const after = ok(await run('grants', 'update', grant, '--rpm', '45', '--json')).grant;
      expect(after).toEqual({ ...g, requestsPerMinute: 45, updatedAt: expect.stringMatching(ISO) });
    });

    it('keys create prints the full key once: live by default, test on request', async () => {
      const live = ok(await run('keys', 'create', '--grant', grant, '--label', 'backend', '--json'));
      expect(Object.keys(live).sort()).toEqual(['key', 'prefix', 'publicId']);
      const m = KEY.exec(live.key)!;
      expect(m).not.toBeNull();
      expect(m[1]).toBe('live');
      expect(m[2]).toBe(live.publicId);
      expect(live.prefix).toBe(`mds_live_${live.publicId}`);
      expect(live.key.startsWith(`${live.prefix}_`)).toBe(true);
      expect(parseKey(live.key)).toEqual({
        environment: 'live',
        publicId: live.publicId,
        prefix: live.prefix,
      });

      const test = await run('keys', 'create', '--grant', grant, '--environment', 'test');
      expect(test.status).toBe(0);
      const lines = test.stdout.split('\n');
      expect(lines[0]).toMatch(KEY);
      expect(lines[0]).toMatch(/^mds_test_/);
      expect(test.stdout).toBe(`${lines[0]}\n\nThis is the only time the full key is shown. Store it now.\n`);
      expect(parseKey(lines[0]!)?.environment).toBe('test');

      // The store keeps the SHA-256 digest of the key, never the key.
      const store = db.open();
      try {
        const stored = (await store.access.listKeys(grant)).find((k) => k.publicId === live.publicId)!;
        expect(stored.digest).toBe(createHash('sha256').update(live.key).digest('hex'));
        expect(stored).toMatchObject({
          environment: 'live',
          label: 'backend',
          status: 'active',
          scopes: null,
        });
      } finally {
        await store.close();
      }
    });

    it('keys create with its own scopes and an expiry', async () => {
      const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const scoped = ok(
        await run(
          'keys',
          'create',
          '--grant',
          grant,
          '--scopes',
          'gold:latest:read',
          '--expires-at',
          future,
          '--json',
        ),
      );
      const listed = ok(await run('keys', 'list', '--grant', grant, '--json')).keys;
      expect(listed.find((k: { publicId: string }) => k.publicId === scoped.publicId)).toMatchObject({
        scopes: ['gold:latest:read'],
        expiresAt: future,
        status: 'active',
      });
    });

    it('keys list never shows a key or its digest; keys revoke shows in it', async () => {
      const other = ok(
        await run(
          'grants',
          'create',
          '--account',
          account,
          '--plan',
          'custom',
          '--scopes',
          'read',
          '--monthly-limit',
          '10',
          '--rpm',
          '5',
          '--json',
        ),
      ).id;
      const a = ok(await run('keys', 'create', '--grant', other, '--label', 'first', '--json'));
      const b = ok(
        await run('keys', 'create', '--grant', other, '--label', 'second', '--environment', 'test', '--json'),
      );
      const secrets = [a.key, b.key, a.key.slice(a.prefix.length + 1), b.key.slice(b.prefix.length + 1)];
      const check = (out: string) => {
        for (const s of secrets) expect(out).not.toContain(s);
        expect(out).not.toMatch(HEX64);
      };

      const [text, json, all] = await Promise.all([
        run('keys', 'list', '--grant', other),
        run('keys', 'list', '--grant', other, '--json'),
        run('keys', 'list', '--json'),
      ]);
      expect(text.status).toBe(0);
      check(text.stdout);
      check(json.stdout);
      check(all.stdout);
      const rows = text.stdout.trimEnd().split('\n');
      expect(rows[0]).toMatch(
        /^PUBLIC ID\s+PREFIX\s+GRANT\s+ACCOUNT\s+PLAN\s+LABEL\s+STATUS\s+EXPIRES\s+LAST USED$/,
      );
      expect(rows).toHaveLength(4);
      expect(rows[2]).toMatch(
        new RegExp(
          `^${a.publicId}\\s+${a.prefix}\\s+${other}\\s+${account}\\s+custom\\s+first\\s+active\\s+-\\s+-$`,
        ),
      );
      expect(rows[3]).toMatch(
        new RegExp(
          `^${b.publicId}\\s+${b.prefix}\\s+${other}\\s+${account}\\s+custom\\s+second\\s+active\\s+-\\s+-$`,
        ),
      );

      const keys = ok(json).keys;
      expect(keys.map((k: { publicId: string }) => k.publicId)).toEqual([a.publicId, b.publicId]);
      expect(keys[0]).toEqual({
        publicId: a.publicId,
        prefix: a.prefix,
        grantId: other,
        accountId: account,
        plan: 'custom',
        label: 'first',
        environment: 'live',
        scopes: null,
        status: 'active',
        effectiveStatus: 'active',
        expiresAt: null,
        lastUsedAt: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        revokedAt: null,
      });
      // Every key of every grant, without --grant.
      const everyId = ok(all).keys.map((k: { publicId: string }) => k.publicId);
      expect(everyId).toEqual(expect.arrayContaining([a.publicId, b.publicId]));
      expect(everyId.length).toBeGreaterThan(2);

      const revoked = ok(await run('keys', 'revoke', a.publicId, '--json'));
      expect(revoked).toEqual({
        publicId: a.publicId,
        status: 'revoked',
        revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const [again, unknown, after, afterText] = await Promise.all([
        run('keys', 'revoke', a.publicId),
        run('keys', 'revoke', 'nosuchkey000'),
        run('keys', 'list', '--grant', other, '--json'),
        run('keys', 'list', '--grant', other),
      ]);
      expect(again.status).toBe(0);
      expect(again.stdout).toBe(`${a.publicId}: revoked\n`);
      refused(unknown, 'no key nosuchkey000');
      const afterKeys = ok(after).keys;
      expect(afterKeys[0]).toMatchObject({
        publicId: a.publicId,
        status: 'revoked',
        revokedAt: revoked.revokedAt,
      });
      expect(afterKeys[1]).toMatchObject({ publicId: b.publicId, status: 'active', revokedAt: null });
      expect(afterText.stdout.split('\n')[2]).toMatch(new RegExp(`^${a.publicId}\\s.*\\srevoked\\s`));
      check(after.stdout);
      check(afterText.stdout);
    });

    it('usage shows 0 used for a new grant, with its limits and period', async () => {
      const now = new Date();
      const period = now.toISOString().slice(0, 7);
      const start = `${period}-01T00:00:00.000Z`;
      const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
      const [json, text] = await Promise.all([run('usage', grant, '--json'), run('usage', grant)]);
      expect(ok(json)).toEqual({
        grantId: grant,
        period,
        periodStart: start,
        resetAt: reset,
        requestsUsed: 0,
        requestLimit: 7000,
        requestsRemaining: 7000,
        requestsPerMinute: 45,
      });
      expect(text.status).toBe(0);
      const rows = text.stdout.trimEnd().split('\n');
      expect(rows[0]).toMatch(/^GRANT\s+PERIOD\s+USED\s+LIMIT\s+REMAINING\s+RESETS$/);
      expect(rows[2]).toMatch(new RegExp(`^${grant}\\s+${period}\\s+0\\s+7000\\s+7000\\s+${reset}$`));
    });
  });
}
