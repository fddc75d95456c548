/**
 * One contract for the operator's operations (docs/decisions.md 57, 58, 62):
 * every scenario runs through the `mds` CLI and through the admin API, on
 * every backend. Each run checks its own outcomes and its audit trail (one
 * record per change, with the caller's actor, and no secret, digest or full
 * key in any record); then the two callers' transcripts, normalised (ids by
 * the scenario's names, recent instants and secrets by placeholders), must be
 * the same. Where they differ by design or by a gap, SHAPES and the
 * comments at the scenario say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestKey } from '../../src/domain/keys.js';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';
import { type Backend, backends, type Database, freshDatabase } from '../support/backends.js';
import type { Json } from '../support/cli.js';
import { apiDriver, cliDriver, type Driver, type Kind, type Outcome } from './drivers.js';

const DAY = 86_400_000;
const START = Date.now();
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Where the CLI's --json document and the admin API's answer hold different
 * fields for the same operation's value: the fields of each (both checked),
 * the common ones compared. The CLI's documents predate the admin API and
 * scripts read them; the API's answers are its schemas' (src/schemas/admin.ts).
 * Neither is a one-line change in a caller: these are reported disagreements.
 */
const SHAPES: Partial<Record<keyof Driver, { cli: string[]; api: string[] }>> = {
  // `accounts create --json` prints `{ id }`; the API answers the whole account.
  createAccount: { cli: ['id'], api: ['createdAt', 'email', 'externalId', 'id', 'name', 'updatedAt'] },
  // DISAGREEMENT: the CLI prints `publicId` and `prefix` but not `apiKey`; the API's CreatedKeyAnswer
  // has `apiKey` but drops the operation's `publicId` and `prefix`.
  createKey: { cli: ['key', 'prefix', 'publicId'], api: ['apiKey', 'key'] },
  // DISAGREEMENT: the API's RolledKeyAnswer drops the operation's `publicId` and `prefix`, which the CLI prints.
  rollKey: {
    cli: ['apiKey', 'gracePeriodSeconds', 'key', 'prefix', 'previous', 'publicId'],
    api: ['apiKey', 'gracePeriodSeconds', 'key', 'previous'],
  },
  // `keys revoke --json` prints the public id, status and revocation time; the API answers the whole key.
  revokeKey: {
    cli: ['publicId', 'revokedAt', 'status'],
    api: [
      'accountId',
      'createdAt',
      'effectiveStatus',
      'environment',
      'expiresAt',
      'grantId',
      'label',
      'lastUsedAt',
      'plan',
      'prefix',
      'publicId',
      'revokedAt',
      'scopes',
      'status',
    ],
  },
};

/** A created or rolled key's public id: the CLI prints `publicId`, the API only `apiKey.publicId` (SHAPES). */
const publicIdOf = (created: Json): string => created.apiKey?.publicId ?? created.publicId;

interface Step {
  label: string;
  op: keyof Driver;
  raw: Json;
  asSet?: boolean;
}

interface ExpectedChange {
  action: string;
  target: string;
  admin?: boolean;
}

/** What a scenario does with one driver: its calls, the names of what they made, the changes they made. */
class Run {
  readonly steps: Step[] = [];
  readonly changes: ExpectedChange[] = [];
  private readonly names = new Map<string, string>();
  readonly secrets = new Set<string>();

  constructor(readonly d: Driver) {
    // The actor differs by design (`cli` and the OS user, or the token): each run checks its own.
    this.names.set(d.actor.id, '<actor>');
    this.names.set(d.actor.label, '<actor label>');
  }

  /** `id` is called `<name>` in the transcript. */
  name(id: string, name: string): string {
    this.names.set(id, `<${name}>`);
    return id;
  }

  /** One call: its outcome, in the transcript. */
  async call<T = Json>(label: string, op: keyof Driver, outcome: Promise<Outcome<T>>): Promise<Outcome<T>> {
    // The slot is taken now: calls made at once are recorded in the order the scenario makes them.
    const step: Step = { label, op, raw: undefined };
    this.steps.push(step);
    step.raw = await outcome;
    return step.raw as Outcome<T>;
  }

  /** A value the scenario read, in the transcript (`asSet`: a list compared whatever its order). */
  record(label: string, op: keyof Driver, value: Json, asSet = false): void {
    this.steps.push({ label, op, raw: { ok: true, value }, asSet });
  }

  /**
   * The steps normalised with every name the scenario gave (a name given after
   * a call, such as a rolled key's, applies to it too). A list is compared as
   * a set: records made at once in the same millisecond are in id order, and
   * ids differ between runs.
   */
  transcript(): Array<{ label: string; op: keyof Driver; outcome: Json }> {
    return this.steps.map((step) => {
      const outcome = this.normalise(step.raw);
      if ((step.asSet || step.op.startsWith('list')) && outcome.ok && Array.isArray(outcome.value)) {
        outcome.value.sort((x: Json, y: Json) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      }
      return { label: step.label, op: step.op, outcome };
    });
  }

  ok<T = Json>(o: Outcome<T>): T {
    if (!o.ok) throw new Error(`${this.d.name} refused: ${o.kind}`);
    return o.value;
  }

  refused(o: Outcome, kind: Kind): void {
    expect(o.ok ? { ok: true, value: o.value } : o).toEqual({ ok: false, kind });
  }

  /** A change the audit log must hold once. */
  change(action: string, target: string): void {
    this.changes.push({ action, target, admin: action.startsWith('admin_token.') });
  }

  normalise(value: Json): Json {
    if (typeof value === 'string') return this.word(value);
    if (Array.isArray(value)) return value.map((v) => this.normalise(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.normalise(v)]));
    }
    return value;
  }

  private word(s: string): string {
    const named = this.names.get(s);
    if (named) return named;
    if (/^(mds_(live|test)_[a-z0-9]{12}_|mdsadm_)/.test(s)) {
      this.secrets.add(s);
      return '<secret>';
    }
    const prefix = /^mds_(live|test)_([a-z0-9]{12})$/.exec(s);
    if (prefix) return `mds_${prefix[1]}_${this.names.get(prefix[2]!) ?? '<key?>'}`;
    // Instants of this run (creation, update, a grace period's end) differ between runs.
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(s) && Math.abs(Date.parse(s) - START) < 3 * DAY) {
      return '<now>';
    }
    const id = /^(acc|grt|aud|adm)_[a-z0-9]+$/.exec(s);
    if (id) return `<${id[1]}?>`;
    return s;
  }
}

interface Scenario {
  name: string;
  run(r: Run, d: Driver, tag: string): Promise<void>;
}

const today = utcDay(START);
const month = today.slice(0, 7);

const scenarios: Scenario[] = [
  {
    name: 'accounts: create, list with filters, get, update, refusals',
    async run(r, d, tag) {
      const [full, bare, badEmail] = await Promise.all([
        r.call(
          'create with every field',
          'createAccount',
          d.createAccount({
            name: 'Sarl Atlas',
            email: `billing-${tag}@atlas.example`,
            externalId: `cus_${tag}_1`,
          }),
        ),
        r.call('create with no field', 'createAccount', d.createAccount({})),
        r.call('create with a bad email', 'createAccount', d.createAccount({ email: 'not-an-email' })),
      ]);
      const acc1 = r.name(r.ok(full).id, 'acc1');
      const acc2 = r.name(r.ok(bare).id, 'acc2');
      r.refused(badEmail, 'invalid');
      r.change('account.create', acc1);
      r.change('account.create', acc2);

      const [dup, byExternal, byEmail, got, missing, updMissing] = await Promise.all([
        r.call(
          'create with a taken externalId',
          'createAccount',
          d.createAccount({ externalId: `cus_${tag}_1` }),
        ),
        r.call('list by externalId', 'listAccounts', d.listAccounts({ externalId: `cus_${tag}_1` })),
        r.call('list by email', 'listAccounts', d.listAccounts({ email: `billing-${tag}@atlas.example` })),
        r.call('get', 'getAccount', d.getAccount(acc1)),
        r.call('get a missing account', 'getAccount', d.getAccount('acc_missing0000000')),
        r.call(
          'update a missing account',
          'updateAccount',
          d.updateAccount('acc_missing0000000', { name: 'X' }),
        ),
      ]);
      r.refused(dup, 'conflict');
      expect(r.ok(byExternal).map((a: Json) => a.id)).toEqual([acc1]);
      expect(r.ok(byEmail).map((a: Json) => a.id)).toEqual([acc1]);
      expect(r.ok(got)).toMatchObject({ id: acc1, name: 'Sarl Atlas', externalId: `cus_${tag}_1` });
      r.refused(missing, 'not_found');
      r.refused(updMissing, 'not_found');

      const [updated, taken] = await Promise.all([
        r.call(
          'update name and externalId',
          'updateAccount',
          d.updateAccount(acc2, {
            name: 'Eurl Tassili',
            externalId: `cus_${tag}_2`,
          }),
        ),
        r.call(
          'update externalId to a free one',
          'updateAccount',
          d.updateAccount(acc1, {
            externalId: `cus_${tag}_0`,
          }),
        ),
      ]);
      expect(r.ok(updated)).toMatchObject({ id: acc2, name: 'Eurl Tassili', externalId: `cus_${tag}_2` });
      r.ok(taken);
      r.change('account.update', acc2);
      r.change('account.update', acc1);
      r.refused(
        await r.call(
          'update to a taken externalId',
          'updateAccount',
          d.updateAccount(acc1, {
            externalId: `cus_${tag}_2`,
          }),
        ),
        'conflict',
      );
      // A change of nothing is refused by both: the CLI names its options, the API's PATCH {} is a 400.
      r.refused(await d.updateAccount(acc1, {}), 'invalid');
    },
  },
  {
    name: 'grants: catalogue plan and explicit limits, provider and externalId, filters, transitions',
    async run(r, d, tag) {
      const acc = r.name(r.ok(await d.createAccount({ externalId: `cus_${tag}_g` })).id, 'acc');
      r.change('account.create', acc);
      const [basic, custom, noLimits, noAccount] = await Promise.all([
        r.call(
          'create from the catalogue, with provider and externalId',
          'createGrant',
          d.createGrant({
            accountId: acc,
            plan: 'basic',
            provider: 'stripe',
            externalId: `sub_${tag}_1`,
          }),
        ),
        r.call(
          'create with explicit limits',
          'createGrant',
          d.createGrant({
            accountId: acc,
            plan: 'custom-deal',
            scopes: ['rates:read'],
            monthlyRequestLimit: 5000,
            requestsPerMinute: 7,
            validUntil: '2030-01-01T00:00:00.000Z',
          }),
        ),
        r.call(
          'create an uncatalogued plan without limits',
          'createGrant',
          d.createGrant({
            accountId: acc,
            plan: 'custom-deal',
          }),
        ),
        r.call(
          'create for a missing account',
          'createGrant',
          d.createGrant({
            accountId: 'acc_missing0000000',
            plan: 'basic',
          }),
        ),
      ]);
      const g1 = r.name(r.ok(basic).id, 'grant1');
      const g2 = r.name(r.ok(custom).id, 'grant2');
      r.change('grant.create', g1);
      r.change('grant.create', g2);
      expect(r.ok(basic)).toMatchObject({ provider: 'stripe', externalId: `sub_${tag}_1`, status: 'active' });
      expect(r.ok(custom)).toMatchObject({
        provider: 'manual',
        externalId: null,
        monthlyRequestLimit: 5000,
        requestsPerMinute: 7,
        validUntil: '2030-01-01T00:00:00.000Z',
      });
      r.refused(noLimits, 'invalid');
      r.refused(noAccount, 'invalid');

      const [dup, byAccount, byProvider, got, missing, badStatusFilter] = await Promise.all([
        r.call(
          'create with a taken provider and externalId',
          'createGrant',
          d.createGrant({
            accountId: acc,
            plan: 'pro',
            provider: 'stripe',
            externalId: `sub_${tag}_1`,
          }),
        ),
        r.call('list by account', 'listGrants', d.listGrants({ accountId: acc })),
        r.call(
          'list by provider and externalId',
          'listGrants',
          d.listGrants({
            provider: 'stripe',
            externalId: `sub_${tag}_1`,
          }),
        ),
        r.call('get', 'getGrant', d.getGrant(g2)),
        r.call('get a missing grant', 'getGrant', d.getGrant('grt_missing0000000')),
        r.call('list by an unknown status', 'listGrants', d.listGrants({ status: 'paused' })),
      ]);
      r.refused(dup, 'conflict');
      expect(
        r
          .ok(byAccount)
          .map((g: Json) => g.id)
          .sort(),
      ).toEqual([g1, g2].sort());
      expect(r.ok(byProvider).map((g: Json) => g.id)).toEqual([g1]);
      expect(r.ok(got)).toMatchObject({ id: g2, plan: 'custom-deal' });
      r.refused(missing, 'not_found');
      r.refused(badStatusFilter, 'invalid');

      const suspended = await r.call(
        'suspend, with a new limit',
        'updateGrant',
        d.updateGrant(g1, {
          status: 'suspended',
          monthlyRequestLimit: 123,
        }),
      );
      expect(r.ok(suspended)).toMatchObject({ status: 'suspended', monthlyRequestLimit: 123 });
      r.change('grant.update', g1);
      const [bySuspended, badStatus, updMissing] = await Promise.all([
        r.call('list by status', 'listGrants', d.listGrants({ accountId: acc, status: 'suspended' })),
        r.call('update to an unknown status', 'updateGrant', d.updateGrant(g1, { status: 'paused' })),
        r.call(
          'update a missing grant',
          'updateGrant',
          d.updateGrant('grt_missing0000000', { status: 'active' }),
        ),
      ]);
      expect(r.ok(bySuspended).map((g: Json) => g.id)).toEqual([g1]);
      r.refused(badStatus, 'invalid');
      r.refused(updMissing, 'not_found');
      r.ok(await r.call('cancel', 'updateGrant', d.updateGrant(g1, { status: 'cancelled' })));
      r.change('grant.update', g1);
      r.refused(
        await r.call('reopen a cancelled grant', 'updateGrant', d.updateGrant(g1, { status: 'active' })),
        'conflict',
      );
      // A change of nothing is refused by both: the CLI names its options, the API's PATCH {} is a 400.
      r.refused(await d.updateGrant(g2, {}), 'invalid');
    },
  },
  {
    name: 'keys: create, list with account and plan, get, roll with a grace period, revoke',
    async run(r, d, tag) {
      const acc = r.name(r.ok(await d.createAccount({ externalId: `cus_${tag}_k` })).id, 'acc');
      const grant = r.name(r.ok(await d.createGrant({ accountId: acc, plan: 'pro' })).id, 'grant');
      r.change('account.create', acc);
      r.change('grant.create', grant);
      const [live, test, noGrant, badEnv] = await Promise.all([
        r.call('create with the defaults', 'createKey', d.createKey({ grantId: grant })),
        r.call(
          'create a test key with a label',
          'createKey',
          d.createKey({
            grantId: grant,
            label: 'Staging',
            environment: 'test',
          }),
        ),
        r.call('create for a missing grant', 'createKey', d.createKey({ grantId: 'grt_missing0000000' })),
        r.call(
          'create with an unknown environment',
          'createKey',
          d.createKey({ grantId: grant, environment: 'prod' }),
        ),
      ]);
      const k1 = r.name(publicIdOf(r.ok(live)), 'key1');
      const k2 = r.name(publicIdOf(r.ok(test)), 'key2');
      r.change('key.create', k1);
      r.change('key.create', k2);
      expect(r.ok(live).key).toMatch(/^mds_live_/);
      expect(r.ok(test).key).toMatch(/^mds_test_/);
      r.refused(noGrant, 'invalid');
      r.refused(badEnv, 'invalid');

      const [byAccount, byGrant, got, missing] = await Promise.all([
        r.call('list by account', 'listKeys', d.listKeys({ accountId: acc })),
        r.call('list by grant', 'listKeys', d.listKeys({ grantId: grant })),
        r.call('get', 'getKey', d.getKey(k2)),
        r.call('get a missing key', 'getKey', d.getKey('zzzzzzzzzzzz')),
      ]);
      for (const listed of [r.ok(byAccount), r.ok(byGrant)]) {
        expect(listed.map((k: Json) => [k.publicId, k.accountId, k.plan]).sort()).toEqual(
          [
            [k1, acc, 'pro'],
            [k2, acc, 'pro'],
          ].sort(),
        );
      }
      expect(r.ok(got)).toMatchObject({
        publicId: k2,
        label: 'Staging',
        environment: 'test',
        status: 'active',
      });
      r.refused(missing, 'not_found');

      const [rolled, rollMissing, badGrace] = await Promise.all([
        r.call('roll with a grace period of an hour', 'rollKey', d.rollKey(k1, 3600)),
        r.call('roll a missing key', 'rollKey', d.rollKey('zzzzzzzzzzzz')),
        r.call('roll with a grace period over 90 days', 'rollKey', d.rollKey(k2, 90 * 86_400 + 1)),
      ]);
      const roll = r.ok(rolled);
      r.name(publicIdOf(roll), 'key1-next');
      r.change('key.roll', k1);
      expect(roll.gracePeriodSeconds).toBe(3600);
      expect(Date.parse(roll.previous.expiresAt) - Date.parse(roll.apiKey.createdAt)).toBe(3_600_000);
      expect(roll.apiKey).toMatchObject({ grantId: grant, label: '', environment: 'live', status: 'active' });
      r.refused(rollMissing, 'not_found');
      r.refused(badGrace, 'invalid');

      const revoked = await r.call('revoke', 'revokeKey', d.revokeKey(k2));
      expect(r.ok(revoked)).toMatchObject({ publicId: k2, status: 'revoked' });
      r.change('key.revoke', k2);
      const [again, revokeMissing, rollRevoked] = await Promise.all([
        // Revocation is final and idempotent: no second audit record.
        r.call('revoke again', 'revokeKey', d.revokeKey(k2)),
        r.call('revoke a missing key', 'revokeKey', d.revokeKey('zzzzzzzzzzzz')),
        r.call('roll a revoked key', 'rollKey', d.rollKey(k2)),
      ]);
      expect(r.ok(again)).toMatchObject({
        publicId: k2,
        status: 'revoked',
        revokedAt: r.ok(revoked).revokedAt,
      });
      r.refused(revokeMissing, 'not_found');
      r.refused(rollRevoked, 'conflict');
    },
  },
  {
    // The admin API has no admin token routes: the API driver makes admin tokens through the CLI.
    name: 'admin tokens: create, list, revoke',
    async run(r, d) {
      const [created, badScope] = await Promise.all([
        r.call(
          'create',
          'createAdminToken',
          d.createAdminToken({ label: 'Billing sync', scopes: ['audit:read'] }),
        ),
        r.call(
          'create with an unknown scope',
          'createAdminToken',
          d.createAdminToken({
            label: 'Bad',
            scopes: ['everything'],
          }),
        ),
      ]);
      const t = r.name(r.ok(created).publicId, 'token');
      expect(r.ok(created).token).toMatch(/^mdsadm_/);
      r.change('admin_token.create', t);
      r.refused(badScope, 'invalid');
      const listed = r.ok(await d.listAdminTokens()).find((x: Json) => x.publicId === t);
      r.record('list, this token', 'listAdminTokens', listed);
      expect(listed).toMatchObject({ label: 'Billing sync', scopes: ['audit:read'], status: 'active' });
      const revoked = await r.call('revoke', 'revokeAdminToken', d.revokeAdminToken(t));
      expect(r.ok(revoked)).toMatchObject({ publicId: t, status: 'revoked' });
      r.change('admin_token.revoke', t);
      const [again, missing] = await Promise.all([
        r.call('revoke again', 'revokeAdminToken', d.revokeAdminToken(t)),
        r.call('revoke a missing token', 'revokeAdminToken', d.revokeAdminToken('adm_zzzzzzzzzzzz')),
      ]);
      expect(r.ok(again)).toMatchObject({ status: 'revoked' });
      r.refused(missing, 'not_found');
    },
  },
  {
    name: 'audit and usage: filters, daily usage, statement, refusals',
    async run(r, d, tag) {
      const acc = r.name(r.ok(await d.createAccount({ externalId: `cus_${tag}_u` })).id, 'acc');
      const grant = r.name(
        r.ok(
          await d.createGrant({
            accountId: acc,
            plan: 'basic',
            provider: 'stripe',
            externalId: `sub_${tag}_u`,
          }),
        ).id,
        'grant',
      );
      r.change('account.create', acc);
      r.change('grant.create', grant);
      const from = utcDay(START - 3 * DAY);
      const to = utcDay(START - DAY);
      const [filtered, badWindow, daily, dailyMissing, dailyBad, statement, statementBad] = await Promise.all(
        [
          d.listAudit({ actor: d.actor.id, targetId: grant, action: 'grant.create' }),
          r.call(
            'audit with to before from',
            'listAudit',
            d.listAudit({
              from: '2026-02-01T00:00:00Z',
              to: '2026-01-01T00:00:00Z',
            }),
          ),
          r.call('daily usage of a window', 'dailyUsage', d.dailyUsage({ grantId: grant, from, to })),
          r.call(
            'daily usage of a missing grant',
            'dailyUsage',
            d.dailyUsage({ grantId: 'grt_missing0000000' }),
          ),
          r.call(
            'daily usage with a bad day',
            'dailyUsage',
            d.dailyUsage({ grantId: grant, from: '2026-13-01' }),
          ),
          d.statement({ month }),
          r.call('statement of a bad month', 'statement', d.statement({ month: '2026-13' })),
        ],
      );
      const records = r.ok(filtered);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ action: 'grant.create', targetId: grant, actor: d.actor });
      // By design the request id is the API request's (X-Request-Id), null from the CLI.
      expect(records[0].requestId).toEqual(d.name === 'cli' ? null : expect.stringMatching(/./));
      const { requestId: _, ...record } = records[0];
      r.record('audit by actor, target and action', 'listAudit', record);
      r.refused(badWindow, 'invalid');
      expect(r.ok(daily)).toMatchObject({ grantId: grant, from, to, requests: 0 });
      expect(r.ok(daily).days).toHaveLength(3);
      r.refused(dailyMissing, 'not_found');
      r.refused(dailyBad, 'invalid');
      r.refused(statementBad, 'invalid');
      // The statement holds every grant of the database: this scenario's line only.
      const mine = r.ok(statement).lines.filter((l: Json) => l.account.id === acc);
      r.record('statement of the month, this account', 'statement', {
        month: r.ok(statement).month,
        lines: mine,
      });
      expect(mine).toEqual([
        {
          account: { id: acc, externalId: `cus_${tag}_u` },
          grant: {
            id: grant,
            plan: 'basic',
            provider: 'stripe',
            externalId: `sub_${tag}_u`,
            status: 'active',
            cancelledAt: null,
          },
          requestsUsed: 0,
          monthlyRequestLimit: expect.any(Number),
        },
      ]);
    },
  },
];

/** Runs of each scenario, by backend, driver and scenario, for the comparison. */
const transcripts = new Map<string, Run>();
const key = (backend: string, driver: string, scenario: string) => `${backend} ${driver} ${scenario}`;

/** The JSON text of the audit log holds no secret of the run, no digest of one, and no full key. */
function expectNoSecrets(records: Json[], run: Run): void {
  run.transcript(); // collects the secrets the run was given
  const text = JSON.stringify(records);
  for (const tag of ['mds_live_', 'mds_test_', 'mdsadm_']) {
    // A key's prefix (`mds_live_<publicId>`) is not in an audit record either: targets are public ids.
    expect(text).not.toContain(tag);
  }
  for (const secret of run.secrets) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(digestKey(secret));
  }
}

describe.each(backends())('operations contract on $name', (backend: Backend) => {
  describe.each(['cli', 'api'] as const)('through the %s', (driverName) => {
    let db: Database | undefined;
    let h: AdminHarness | undefined;
    let d: Driver;
    /** The audit record ids before the current scenario. */
    let seen: Set<string>;
    beforeAll(async () => {
      if (driverName === 'cli') {
        db = await freshDatabase(backend.name);
        d = cliDriver(db.url);
      } else {
        h = await startAdminHarness(backend);
        d = await apiDriver(h);
      }
      seen = new Set((await auditOf(d)).map((a) => a.id));
    });
    afterAll(async () => {
      await h?.close();
      await db?.drop();
    });

    async function auditOf(driver: Driver): Promise<Json[]> {
      const all = await driver.listAudit();
      if (!all.ok) throw new Error(`the audit log refused: ${all.kind}`);
      return all.value;
    }

    it.each(scenarios)('$name', async (scenario) => {
      const run = new Run(d);
      // The same literal external ids on both drivers: each driver has its own database.
      const tag = String(scenarios.indexOf(scenario));
      try {
        await scenario.run(run, d, tag);
      } catch (err) {
        // What this scenario changed is not the next one's.
        seen = new Set((await auditOf(d)).map((a) => a.id));
        throw err;
      }
      transcripts.set(key(backend.name, driverName, scenario.name), run);

      const log = await auditOf(d);
      const fresh = log.filter((a) => !seen.has(a.id));
      seen = new Set(log.map((a) => a.id));
      run.record(
        'audit records of the scenario (action, target, changes)',
        'listAudit',
        fresh.map((a) => ({ action: a.action, targetId: a.targetId, changes: a.changes })),
        true,
      );
      // Exactly one record per change, with its action, target and actor.
      const expected = run.changes.map((c) => ({
        action: c.action,
        targetId: c.target,
        actor: c.admin ? d.adminTokenActor : d.actor,
      }));
      const got = fresh.map((a) => ({ action: a.action, targetId: a.targetId, actor: a.actor }));
      const order = (x: { action: string; targetId: string }) => `${x.action} ${x.targetId}`;
      expect([...got].sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
        [...expected].sort((a, b) => order(a).localeCompare(order(b))),
      );
      expectNoSecrets(log, run);
    });
  });

  describe(`the CLI and the admin API agree on ${backend.name}`, () => {
    it.each(scenarios)('$name', (scenario) => {
      const cliRun = transcripts.get(key(backend.name, 'cli', scenario.name));
      const apiRun = transcripts.get(key(backend.name, 'api', scenario.name));
      if (!cliRun || !apiRun)
        throw new Error('a driver did not finish this scenario (see its failure above)');
      const cli = cliRun.transcript();
      const api = apiRun.transcript();
      expect(cli.map((s) => s.label)).toEqual(api.map((s) => s.label));
      cli.forEach((c, i) => {
        const a = api[i]!;
        const shapes = SHAPES[c.op];
        if (shapes && c.outcome.ok && a.outcome.ok) {
          expect(Object.keys(c.outcome.value).sort(), `${c.label} (CLI)`).toEqual(shapes.cli);
          expect(Object.keys(a.outcome.value).sort(), `${c.label} (API)`).toEqual(shapes.api);
          for (const f of shapes.cli.filter((x) => shapes.api.includes(x))) {
            expect(c.outcome.value[f], `${c.label}: ${f}`).toEqual(a.outcome.value[f]);
          }
          if (c.op === 'createKey' || c.op === 'rollKey') {
            expect(c.outcome.value.publicId, c.label).toEqual(a.outcome.value.apiKey.publicId);
          }
        } else {
          expect(c.outcome, c.label).toEqual(a.outcome);
        }
      });
    });
  });
});
