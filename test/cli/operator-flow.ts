/**
 * The operator's commands through the built `mds` CLI (docs/decisions.md, 57):
 * external ids, lists with their filters, grant transitions, a key roll and
 * its grace period, admin tokens, and the audit log: every change once, by
 * `cli` and the operating-system user, with its before and after, and no
 * secret, digest or full key in it or in any output but the one-time print.
 * operator.test.ts runs it on SQLite, operator-postgres.test.ts on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/access/authenticator.js';
import { type Backend, type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, type Json, mds } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const ADMIN_SCOPE_LIST =
  'accounts:read, accounts:write, keys:write, usage:read, data:write, audit:read, webhooks:write, reporters:write, admin-tokens:write';
const TOKEN = /^mdsadm_([a-z0-9]{12})_[0-9A-Za-z]{49}$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ASSETS = join(import.meta.dirname, '..', '..', 'config', 'assets.json');

function ok(r: CliResult) {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.json();
}

function refused(r: CliResult, message: string) {
  expect({ stdout: r.stdout, stderr: r.stderr, failed: r.status !== 0 }).toEqual({
    stdout: '',
    stderr: `mds: ${message}\n`,
    failed: true,
  });
}

export function operatorFlow(backend: Backend): void {
  describe(`mds operator commands and the audit log on ${backend.name}`, () => {
    let db: Database;
    /** Every output of every command but the one-time prints, to search for secrets. */
    const outputs: string[] = [];
    /** Full keys and tokens, their secrets and digests: none may appear in `outputs`. */
    const secrets: string[] = [];
    /** What `mds audit` printed: not even a key's public prefix belongs there. */
    const auditOutputs: string[] = [];
    const run = async (...args: string[]) => {
      const r = await mds(args, { db: db.url });
      outputs.push(r.stdout, r.stderr);
      if (args[0] === 'audit') auditOutputs.push(r.stdout, r.stderr);
      return r;
    };
    /** A command whose stdout is a one-time print: only its stderr is searched. */
    const once = async (...args: string[]) => {
      const r = await mds(args, { db: db.url });
      outputs.push(r.stderr);
      return r;
    };
    const remember = (full: string) => {
      secrets.push(full, full.slice(full.lastIndexOf('_') + 1), sha256(full));
    };
    const user = userInfo().username;
    let account: string;
    let grant: string;
    let token: { token: string; publicId: string };
    let rolled: Json;
    let keyId: string;

    beforeAll(async () => {
      db = await freshDatabase(backend.name);
    });
    afterAll(async () => db?.drop());

    it('admin tokens: created once with their scopes, listed without the token', async () => {
      const created = ok(
        await once(
          'admin-tokens',
          'create',
          '--label',
          'billing webhook',
          '--scopes',
          'accounts:write,keys:write',
          '--json',
        ),
      );
      expect(created.token).toMatch(TOKEN);
      expect(created.publicId).toBe(`adm_${TOKEN.exec(created.token)![1]}`);
      expect(created.adminToken).toMatchObject({
        publicId: created.publicId,
        label: 'billing webhook',
        scopes: ['accounts:write', 'keys:write'],
        status: 'active',
        lastUsedAt: null,
      });
      token = created;
      remember(created.token);
      const text = await once('admin-tokens', 'create', '--label', 'reports', '--scopes', 'audit:read');
      expect(text.status).toBe(0);
      const [printed, blank, note] = text.stdout.trimEnd().split('\n');
      expect(printed).toMatch(TOKEN);
      expect(blank).toBe('');
      expect(note).toMatch(
        /^This is the only time the token is shown\. Store it now\. Its public id: adm_[a-z0-9]{12}$/,
      );
      remember(printed!);

      const listed = ok(await run('admin-tokens', 'list', '--json')).adminTokens;
      expect(listed.map((t: Json) => t.label)).toEqual(['billing webhook', 'reports']);
      const table = await run('admin-tokens', 'list');
      expect(table.stdout.split('\n')[0]).toMatch(
        /^PUBLIC ID\s+LABEL\s+SCOPES\s+STATUS\s+CREATED\s+LAST USED$/,
      );
    });

    it('admin tokens: scopes replaced in place; the same list again changes (and records) nothing', async () => {
      const scopes = ['accounts:write', 'keys:write', 'usage:read'];
      for (let i = 0; i < 2; i++) {
        const updated = ok(
          await run('admin-tokens', 'update', token.publicId, '--scopes', scopes.join(','), '--json'),
        );
        expect(updated.adminToken).toMatchObject({ publicId: token.publicId, scopes, status: 'active' });
      }
      const [updateText, updateNone, updateBad] = await Promise.all([
        run('admin-tokens', 'update', token.publicId, '--scopes', scopes.join(',')),
        run('admin-tokens', 'update', 'adm_nobody', '--scopes', 'audit:read'),
        run('admin-tokens', 'update', token.publicId, '--scopes', 'usage:read,root'),
      ]);
      expect(updateText.stdout).toBe(`${token.publicId}: scopes ${scopes.join(',')}\n`);
      refused(updateNone, 'no admin token adm_nobody');
      refused(updateBad, `--scopes: unknown scope "root"; the admin scopes are ${ADMIN_SCOPE_LIST}`);
      expect(ok(await run('admin-tokens', 'list', '--json')).adminTokens[0].scopes).toEqual(scopes);
    });

    it('admin tokens: revoked for good; refusals name the option', async () => {
      const revoked = ok(await run('admin-tokens', 'revoke', token.publicId, '--json'));
      refused(
        await run('admin-tokens', 'update', token.publicId, '--scopes', 'audit:read'),
        `admin token ${token.publicId} is revoked; create a new one`,
      );
      expect(revoked).toEqual({ publicId: token.publicId, status: 'revoked', revokedAt: expect.any(String) });
      const [again, unknown, badScope, noLabel, noScopes] = await Promise.all([
        run('admin-tokens', 'revoke', token.publicId),
        run('admin-tokens', 'revoke', 'adm_nobody'),
        run('admin-tokens', 'create', '--label', 'x', '--scopes', 'accounts:write,root'),
        run('admin-tokens', 'create', '--scopes', 'audit:read'),
        run('admin-tokens', 'create', '--label', 'x'),
      ]);
      expect(again.stdout).toBe(`${token.publicId}: revoked\n`);
      refused(unknown, 'no admin token adm_nobody');
      refused(badScope, `--scopes: unknown scope "root"; the admin scopes are ${ADMIN_SCOPE_LIST}`);
      refused(noLabel, '--label is required');
      refused(noScopes, `--scopes: list at least one of ${ADMIN_SCOPE_LIST}`);
    });

    it('accounts: an external id is unique; list filters by it and by email', async () => {
      account = ok(
        await run(
          'accounts',
          'create',
          '--name',
          'Acme',
          '--email',
          'ops@acme.example',
          '--external-id',
          'cus_1',
          '--json',
        ),
      ).id;
      const other = ok(await run('accounts', 'create', '--email', 'b@b.example', '--json')).id;
      refused(
        await run('accounts', 'create', '--external-id', 'cus_1'),
        'externalId cus_1 already belongs to another account',
      );
      refused(
        await run('accounts', 'update', other, '--external-id', 'cus_1'),
        'externalId cus_1 already belongs to another account',
      );
      refused(
        await run('accounts', 'create', '--external-id', ' cus_2'),
        '--external-id: must be 1 to 255 printable characters, without surrounding spaces',
      );
      expect(ok(await run('accounts', 'update', other, '--name', 'Beta', '--json')).account).toMatchObject({
        id: other,
        name: 'Beta',
        externalId: null,
      });
      const all = ok(await run('accounts', 'list', '--json')).accounts;
      expect(all.map((a: Json) => a.id)).toEqual([account, other]);
      expect(all[0]).toEqual({
        id: account,
        name: 'Acme',
        email: 'ops@acme.example',
        externalId: 'cus_1',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(ok(await run('accounts', 'list', '--external-id', 'cus_1', '--json')).accounts).toHaveLength(1);
      expect(ok(await run('accounts', 'list', '--email', 'b@b.example', '--json')).accounts[0].id).toBe(
        other,
      );
      expect(ok(await run('accounts', 'list', '--external-id', 'cus_none', '--json')).accounts).toEqual([]);
      const text = await run('accounts', 'list');
      expect(text.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+EMAIL\s+EXTERNAL ID\s+CREATED$/);
      expect(text.stdout).toMatch(new RegExp(`^${account}\\s+Acme\\s+ops@acme\\.example\\s+cus_1\\s`, 'm'));
    });

    it('grants: an external id is unique per provider; list filters; an illegal transition is refused', async () => {
      const create = (...extra: string[]) =>
        run('grants', 'create', '--account', account, '--plan', 'pro', ...extra, '--json');
      grant = ok(await create('--provider', 'stripe', '--external-id', 'sub_1')).id;
      const paddle = ok(await create('--provider', 'paddle', '--external-id', 'sub_1')).grant;
      expect(paddle).toMatchObject({ provider: 'paddle', externalId: 'sub_1', plan: 'pro' });
      refused(
        await run(
          'grants',
          'create',
          '--account',
          account,
          '--plan',
          'pro',
          '--provider',
          'stripe',
          '--external-id',
          'sub_1',
        ),
        'provider stripe already has a grant with externalId sub_1',
      );
      const list = async (...filters: string[]) =>
        ok(await run('grants', 'list', ...filters, '--json')).grants.map((g: Json) => g.id);
      expect(await list()).toEqual([grant, paddle.id]);
      expect(await list('--provider', 'stripe')).toEqual([grant]);
      expect(await list('--external-id', 'sub_1')).toEqual([grant, paddle.id]);
      expect(await list('--account', account, '--provider', 'paddle', '--external-id', 'sub_1')).toEqual([
        paddle.id,
      ]);

      expect(
        ok(await run('grants', 'update', paddle.id, '--status', 'cancelled', '--json')).grant.status,
      ).toBe('cancelled');
      expect(await list('--status', 'cancelled')).toEqual([paddle.id]);
      expect(await list('--status', 'active')).toEqual([grant]);
      refused(
        await run('grants', 'update', paddle.id, '--status', 'active'),
        'a cancelled grant cannot be reopened',
      );
      refused(
        await run('grants', 'list', '--status', 'paused'),
        '--status: must be one of active, suspended, cancelled',
      );
      expect(ok(await run('grants', 'update', grant, '--status', 'suspended', '--json')).grant.status).toBe(
        'suspended',
      );
      expect(ok(await run('grants', 'update', grant, '--status', 'active', '--json')).grant.status).toBe(
        'active',
      );
      const text = await run('grants', 'list', '--provider', 'stripe');
      expect(text.stdout.split('\n')[0]).toMatch(
        /^ID\s+ACCOUNT\s+PLAN\s+STATUS\s+PROVIDER\s+EXTERNAL ID\s+MONTHLY\s+RPM\s+VALID UNTIL$/,
      );
      expect(text.stdout.split('\n')[2]).toMatch(
        new RegExp(`^${grant}\\s+${account}\\s+pro\\s+active\\s+stripe\\s+sub_1\\s`),
      );
    });

    it('keys roll: the old key works through the grace period and is refused after it', async () => {
      const created = ok(
        await once(
          'keys',
          'create',
          '--grant',
          grant,
          '--label',
          'backend',
          '--scopes',
          'gold:read',
          '--json',
        ),
      );
      remember(created.key);
      keyId = created.publicId;
      const roll = await once('keys', 'roll', keyId, '--grace-period', '3', '--json');
      rolled = ok(roll);
      remember(rolled.key);
      expect(rolled.previous).toMatchObject({
        publicId: keyId,
        status: 'active',
        expiresAt: expect.any(String),
      });
      expect(rolled.apiKey).toMatchObject({
        publicId: rolled.publicId,
        grantId: grant,
        accountId: account,
        plan: 'pro',
        label: 'backend',
        scopes: ['gold:read'],
        expiresAt: null,
      });
      expect(rolled.gracePeriodSeconds).toBe(3);
      const expiresAt = Date.parse(rolled.previous.expiresAt);

      const store = db.open();
      try {
        const check = (key: string, now = Date.now()) =>
          new Authenticator(store).authenticate({ authorization: `Bearer ${key}` }, now);
        expect((await check(created.key)).ok).toBe(true);
        expect((await check(rolled.key)).ok).toBe(true);
        const refusedAt = await waitFor(
          async () => {
            const now = Date.now();
            const r = await check(created.key, now);
            return r.ok ? undefined : { reason: r.reason, now };
          },
          { timeout: 15_000, interval: 100, what: 'the old key refused after its grace period' },
        );
        expect(refusedAt.reason).toBe('expired_api_key');
        expect(refusedAt.now).toBeGreaterThanOrEqual(expiresAt);
        expect((await check(rolled.key)).ok).toBe(true);

        // The default grace period is a day.
        const next = ok(await once('keys', 'roll', rolled.publicId, '--json'));
        remember(next.key);
        const until = Date.parse(next.previous.expiresAt);
        expect(until - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
        expect(until - Date.now()).toBeLessThanOrEqual(86_400_000);
        expect((await check(rolled.key, until - 1000)).ok).toBe(true);
        expect(await check(rolled.key, until + 1000)).toMatchObject({ ok: false, reason: 'expired_api_key' });
      } finally {
        await store.close();
      }
      const [revoked, bad, gone] = await Promise.all([
        run('keys', 'roll', keyId, '--grace-period', 'soon'),
        run('keys', 'roll', 'nosuchkey000'),
        run('keys', 'revoke', keyId),
      ]);
      refused(revoked, '--grace-period: must be a whole number of seconds from 0 to 7776000 (90 days)');
      refused(bad, 'no key nosuchkey000');
      expect(gone.status).toBe(0);
      refused(await run('keys', 'roll', keyId), `key ${keyId} is revoked: create a new key instead`);
    });

    it('keys list shows each key with its account and plan; filters by account', async () => {
      const keys = ok(await run('keys', 'list', '--account', account, '--json')).keys;
      expect(keys.map((k: Json) => [k.publicId, k.accountId, k.plan])).toEqual([
        [keyId, account, 'pro'],
        [rolled.publicId, account, 'pro'],
        [expect.any(String), account, 'pro'],
      ]);
      expect(ok(await run('keys', 'list', '--account', 'acc_none', '--json')).keys).toEqual([]);
    });

    it('an import is recorded as data.import by the CLI', async () => {
      const imported = ok(await run('import', 'assets', ASSETS, '--json'));
      const records = ok(await run('audit', '--action', 'data.import', '--json')).records;
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        actor: { id: 'cli', label: user },
        action: 'data.import',
        changes: { kind: { before: null, after: 'assets' } },
      });
      expect(JSON.stringify(imported)).toContain(records[0].targetId);
    });

    it('mds audit: every change once, by cli and the OS user, with before and after; filters', async () => {
      const doc = ok(await run('audit', '--limit', '1000', '--json'));
      expect(doc.nextCursor).toBeNull();
      const records: Json[] = doc.records;
      for (const r of records) {
        expect(r.actor).toEqual({ id: 'cli', label: user });
        expect(r.requestId).toBeNull();
        expect(r.id).toMatch(/^aud_[a-z0-9]+$/);
      }
      const count = (action: string, target?: string) =>
        records.filter((r) => r.action === action && (target === undefined || r.targetId === target)).length;
      expect(count('admin_token.create')).toBe(2);
      expect(count('admin_token.update', token.publicId)).toBe(1); // the same scopes again changed nothing
      expect(count('admin_token.revoke', token.publicId)).toBe(1); // the second revoke changed nothing
      expect(count('account.create')).toBe(2);
      expect(count('account.create', account)).toBe(1);
      expect(count('account.update')).toBe(1);
      expect(count('grant.create')).toBe(2);
      expect(count('grant.create', grant)).toBe(1);
      expect(count('grant.update', grant)).toBe(2);
      expect(count('key.create')).toBe(1);
      expect(count('key.roll')).toBe(2);
      expect(count('key.roll', keyId)).toBe(1);
      expect(count('key.revoke', keyId)).toBe(1);
      expect(count('data.import')).toBe(1);
      // Refused changes left nothing.
      expect(records).toHaveLength(2 + 1 + 1 + 2 + 1 + 2 + 3 + 1 + 2 + 1 + 1);

      const suspended = records.find(
        (r) => r.action === 'grant.update' && r.changes.status?.after === 'suspended',
      );
      expect(suspended.changes).toEqual({ status: { before: 'active', after: 'suspended' } });
      expect(records.find((r) => r.action === 'account.create' && r.targetId === account).changes).toEqual({
        name: { before: null, after: 'Acme' },
        email: { before: null, after: 'ops@acme.example' },
        externalId: { before: null, after: 'cus_1' },
      });
      expect(records.find((r) => r.action === 'key.roll' && r.targetId === keyId).changes).toEqual({
        expiresAt: { before: null, after: rolled.previous.expiresAt },
        replacedBy: { before: null, after: rolled.publicId },
      });

      // Newest first; the filters of the command.
      const ats = records.map((r) => Date.parse(r.at));
      expect([...ats].sort((a, b) => b - a)).toEqual(ats);
      const onGrant = ok(await run('audit', '--target', grant, '--json')).records;
      expect(onGrant.map((r: Json) => r.action)).toEqual(['grant.update', 'grant.update', 'grant.create']);
      expect(ok(await run('audit', '--actor', 'system', '--json')).records).toEqual([]);
      expect(ok(await run('audit', '--actor', 'cli', '--limit', '2', '--json')).records).toHaveLength(2);
      expect(ok(await run('audit', '--since', '2999-01-01', '--json')).records).toEqual([]);
      const paged = ok(await run('audit', '--limit', '3', '--json'));
      const nextPage = ok(await run('audit', '--limit', '3', '--cursor', paged.nextCursor, '--json'));
      expect([...paged.records, ...nextPage.records].map((r: Json) => r.id)).toEqual(
        records.slice(0, 6).map((r) => r.id),
      );
      refused(
        await run('audit', '--since', 'yesterday'),
        '--since: must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z',
      );
      refused(
        await run('audit', '--cursor', 'nonsense'),
        '--cursor: is not a cursor this list gave: pass the nextCursor of the previous page',
      );
      const text = await run('audit', '--target', keyId);
      expect(text.stdout.split('\n')[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+CHANGES$/);
      expect(text.stdout).toContain(`cli (${user})  key.revoke`);
    });

    it('keys list shows whether each key works now: active, expired, revoked, grant cancelled', async () => {
      const grantOf = async () =>
        ok(await run('grants', 'create', '--account', account, '--plan', 'basic', '--json')).grant.id;
      const newKey = async (g: string) => (await once('keys', 'create', '--grant', g, '--json')).json();
      const live = await grantOf();
      const [rolledAway, revokedKey] = [await newKey(live), await newKey(live)];
      remember(rolledAway.key);
      remember(revokedKey.key);
      const next = (await once('keys', 'roll', rolledAway.publicId, '--grace-period', '0', '--json')).json();
      remember(next.key);
      ok(await run('keys', 'revoke', revokedKey.publicId, '--json'));
      const ended = await grantOf();
      const ofEnded = await newKey(ended);
      remember(ofEnded.key);
      ok(await run('grants', 'update', ended, '--status', 'cancelled', '--json'));

      const states = async (g: string) =>
        Object.fromEntries(
          ok(await run('keys', 'list', '--grant', g, '--json')).keys.map((k: Json) => [
            k.publicId,
            [k.status, k.effectiveStatus],
          ]),
        );
      expect(await states(live)).toEqual({
        [rolledAway.publicId]: ['active', 'expired'],
        [revokedKey.publicId]: ['revoked', 'revoked'],
        [next.publicId]: ['active', 'active'],
      });
      expect(await states(ended)).toEqual({ [ofEnded.publicId]: ['active', 'grant_cancelled'] });
      const table = (await run('keys', 'list', '--grant', ended)).stdout.split('\n');
      expect(table.find((r) => r.startsWith(ofEnded.publicId))).toMatch(/\sgrant cancelled\s/);
      const rows = (await run('keys', 'list', '--grant', live)).stdout.split('\n');
      expect(rows.find((r) => r.startsWith(rolledAway.publicId))).toMatch(/\sexpired\s/);
    });

    it('no secret, digest or full key appears in any output but its one-time print', () => {
      const audit = auditOutputs.join('\n');
      expect(audit.length).toBeGreaterThan(1000);
      expect(audit).not.toContain('mds_live_');
      expect(audit).not.toContain('mds_test_');
      expect(audit).not.toContain('mdsadm_');
      // Elsewhere a key's public prefix (mds_live_<publicId>) is shown, never more of it.
      const everything = outputs.join('\n');
      expect(everything).not.toContain('mdsadm_');
      expect(everything).not.toMatch(/mds_(live|test)_[a-z0-9]{12}_/);
      expect(secrets.length).toBeGreaterThanOrEqual(15);
      for (const s of secrets) expect(everything).not.toContain(s);
      expect(everything).not.toMatch(/[0-9a-f]{64}/);
    });
  });
}
