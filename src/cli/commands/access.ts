import {
  AdminError,
  createAccount,
  createGrant,
  createKey,
  parseInstant,
  parsePositiveInt,
  parseScopes,
  revokeKey,
  updateGrant,
} from '../../access/admin.js';
import { loadPlans } from '../../access/plans.js';
import { monthPeriod } from '../../domain/dates.js';
import { keyPrefix } from '../../domain/keys.js';
import { expandScopes } from '../../domain/scopes.js';
import type { GrantRecord, KeyRecord } from '../../storage/store.js';
import type { Command } from '../command.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function grantView(g: GrantRecord) {
  return {
    id: g.id,
    accountId: g.accountId,
    provider: g.provider,
    plan: g.plan,
    status: g.status,
    scopes: g.scopes,
    entitlements: expandScopes(g.scopes),
    validFrom: iso(g.validFrom),
    validUntil: iso(g.validUntil),
    monthlyRequestLimit: g.monthlyRequestLimit,
    requestsPerMinute: g.requestsPerMinute,
  };
}

/** Never includes the digest: `keys list` is safe to paste into a ticket. */
export function keyView(k: KeyRecord) {
  return {
    publicId: k.publicId,
    prefix: keyPrefix(k.environment, k.publicId),
    grantId: k.grantId,
    label: k.label,
    environment: k.environment,
    scopes: k.scopes,
    status: k.status,
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    createdAt: iso(k.createdAt),
    revokedAt: iso(k.revokedAt),
  };
}

export const accessCommands: Command[] = [
  {
    name: ['accounts', 'create'],
    usage: 'accounts create [--name N] [--email E]',
    options: { name: { type: 'string' }, email: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const email = str(values.email);
      if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email))
        throw new AdminError('--email: not an email address');
      const { id } = await withStore(databaseUrl, (s) => createAccount(s, { name: str(values.name), email }));
      out.result({ id }, id);
    },
  },
  {
    name: ['grants', 'create'],
    usage:
      'grants create --account ID --plan P [--scopes A,B] [--monthly-limit N] [--rpm N] [--provider manual] [--valid-from ISO] [--valid-until ISO]   (free|basic|pro|enterprise fill defaults from config/plans.json)',
    options: {
      account: { type: 'string' },
      plan: { type: 'string' },
      scopes: { type: 'string' },
      'monthly-limit': { type: 'string' },
      rpm: { type: 'string' },
      provider: { type: 'string' },
      'valid-from': { type: 'string' },
      'valid-until': { type: 'string' },
    },
    async run({ values, out, databaseUrl, plansFile }) {
      for (const required of ['account', 'plan']) {
        if (values[required] === undefined) throw new AdminError(`--${required} is required`);
      }
      // A catalogued plan fills what the operator did not give; any option overrides it.
      const plan = loadPlans(plansFile).get(str(values.plan)!);
      if (!plan) {
        for (const required of ['scopes', 'monthly-limit', 'rpm']) {
          if (values[required] === undefined) {
            throw new AdminError(
              `--${required} is required (plan "${str(values.plan)}" is not in the plan catalogue)`,
            );
          }
        }
      }
      const input = {
        accountId: str(values.account)!,
        plan: str(values.plan)!,
        scopes: values.scopes === undefined ? plan!.scopes : parseScopes(str(values.scopes)!),
        monthlyRequestLimit:
          values['monthly-limit'] === undefined
            ? plan!.monthlyRequestLimit
            : parsePositiveInt(str(values['monthly-limit']), '--monthly-limit'),
        requestsPerMinute:
          values.rpm === undefined ? plan!.requestsPerMinute : parsePositiveInt(str(values.rpm), '--rpm'),
        provider: str(values.provider),
        validFrom:
          values['valid-from'] === undefined
            ? undefined
            : parseInstant(str(values['valid-from'])!, '--valid-from'),
        validUntil:
          values['valid-until'] === undefined
            ? undefined
            : parseInstant(str(values['valid-until'])!, '--valid-until'),
      };
      const grant = await withStore(databaseUrl, (s) => createGrant(s, input));
      out.result({ id: grant.id, grant: grantView(grant) }, grant.id);
    },
  },
  {
    name: ['grants', 'update'],
    usage:
      'grants update ID [--status active|suspended|cancelled] [--scopes A,B] [--monthly-limit N] [--rpm N] [--valid-until ISO]',
    options: {
      status: { type: 'string' },
      scopes: { type: 'string' },
      'monthly-limit': { type: 'string' },
      rpm: { type: 'string' },
      'valid-until': { type: 'string' },
    },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const patch = {
        status: str(values.status),
        scopes: values.scopes === undefined ? undefined : parseScopes(str(values.scopes)!),
        monthlyRequestLimit:
          values['monthly-limit'] === undefined
            ? undefined
            : parsePositiveInt(str(values['monthly-limit']), '--monthly-limit'),
        requestsPerMinute: values.rpm === undefined ? undefined : parsePositiveInt(str(values.rpm), '--rpm'),
        validUntil:
          values['valid-until'] === undefined
            ? undefined
            : parseInstant(str(values['valid-until'])!, '--valid-until'),
      };
      if (Object.values(patch).every((v) => v === undefined))
        throw new AdminError('nothing to update: give at least one option');
      const grant = await withStore(databaseUrl, (s) => updateGrant(s, positionals[0]!, patch));
      out.result({ id: grant.id, grant: grantView(grant) }, `${grant.id}: ${grant.status}`);
    },
  },
  {
    name: ['keys', 'create'],
    usage: 'keys create --grant ID [--label L] [--environment live|test] [--scopes A,B] [--expires-at ISO]',
    options: {
      grant: { type: 'string' },
      label: { type: 'string' },
      environment: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
    },
    async run({ values, out, databaseUrl }) {
      if (values.grant === undefined) throw new AdminError('--grant is required');
      const input = {
        grantId: str(values.grant)!,
        label: str(values.label),
        environment: str(values.environment),
        scopes: values.scopes === undefined ? undefined : parseScopes(str(values.scopes)!),
        expiresAt:
          values['expires-at'] === undefined
            ? undefined
            : parseInstant(str(values['expires-at'])!, '--expires-at'),
      };
      const created = await withStore(databaseUrl, (s) => createKey(s, input));
      out.result({ key: created.key, publicId: created.publicId, prefix: created.prefix }, [
        created.key,
        '',
        'This is the only time the full key is shown. Store it now.',
      ]);
    },
  },
  {
    name: ['keys', 'revoke'],
    usage: 'keys revoke PUBLIC_ID',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const key = await withStore(databaseUrl, (s) => revokeKey(s, positionals[0]!));
      out.result(
        { publicId: key.publicId, status: key.status, revokedAt: iso(key.revokedAt) },
        `${key.publicId}: revoked`,
      );
    },
  },
  {
    name: ['keys', 'list'],
    usage: 'keys list [--grant ID]',
    options: { grant: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const keys = await withStore(databaseUrl, (s) => s.listKeys(str(values.grant)));
      const views = keys.map(keyView);
      out.result(
        { keys: views },
        table(
          ['PUBLIC ID', 'PREFIX', 'GRANT', 'LABEL', 'STATUS', 'EXPIRES', 'LAST USED'],
          views.map((k) => [
            k.publicId,
            k.prefix,
            k.grantId,
            k.label,
            k.status,
            k.expiresAt ?? '-',
            k.lastUsedAt ?? '-',
          ]),
        ),
      );
    },
  },
  {
    name: ['usage'],
    usage: 'usage GRANT_ID',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const grantId = positionals[0]!;
      const now = Date.now();
      const period = monthPeriod(now);
      const result = await withStore(databaseUrl, async (s) => {
        const grant = await s.getGrant(grantId);
        if (!grant) throw new AdminError(`no grant ${grantId}`);
        return { grant, used: await s.getUsage(grantId, period.key) };
      });
      const doc = {
        grantId,
        period: period.key,
        periodStart: iso(period.start),
        resetAt: iso(period.end),
        requestsUsed: result.used,
        requestLimit: result.grant.monthlyRequestLimit,
        requestsRemaining: Math.max(0, result.grant.monthlyRequestLimit - result.used),
        requestsPerMinute: result.grant.requestsPerMinute,
      };
      out.result(
        doc,
        table(
          ['GRANT', 'PERIOD', 'USED', 'LIMIT', 'REMAINING', 'RESETS'],
          [
            [
              grantId,
              doc.period,
              String(doc.requestsUsed),
              String(doc.requestLimit),
              String(doc.requestsRemaining),
              doc.resetAt!,
            ],
          ],
        ),
      );
    },
  },
];
