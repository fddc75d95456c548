/**
 * Accounts, grants and usage (keys: keys.ts): thin commands over the operations
 * (src/use-cases/, docs/decisions.md, 57), which hold every rule and write the
 * audit log; the admin API calls the same ones.
 */
import { AdminError } from '../../access/admin-error.js';
import { monthPeriod } from '../../domain/dates.js';
import { STATEMENT_COLUMNS } from '../../http/admin/statement-columns.js';
import { toCsv } from '../../http/csv.js';
import { createAccount, listAccounts, updateAccount } from '../../use-cases/accounts.js';
import type { Result } from '../../use-cases/contract.js';
import { createGrant, listGrants, updateGrant } from '../../use-cases/grants.js';
import { dailyUsage, statement } from '../../use-cases/usage.js';
import type { GrantView } from '../../use-cases/views.js';
import type { Command } from '../command.js';
import { cliActor, everything, instant, list, outcome, str, wholeNumber } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A usage read's value; its refusal names the option (`--from`, `--month`: the fields' own names). */
function usageOutcome<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { error } = result;
  if (error.kind !== 'invalid') throw new AdminError(error.message);
  throw new AdminError(`--${error.field}: ${error.message.replace(/`(from|to)`/g, '--$1')}`);
}

/** What `grants create` and `grants update` print with --json, as before external ids. */
const grantDoc = (g: GrantView) => ({ id: g.id, grant: g });

export const accessCommands: Command[] = [
  {
    name: ['accounts', 'create'],
    usage: 'accounts create [--name N] [--email E] [--external-id X]',
    options: { name: { type: 'string' }, email: { type: 'string' }, 'external-id': { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const input = {
        name: str(values.name),
        email: str(values.email),
        externalId: str(values['external-id']),
      };
      const account = await withStore(databaseUrl, async (s) =>
        outcome(await createAccount(s, cliActor(), input)),
      );
      out.result({ id: account.id }, account.id);
    },
  },
  {
    name: ['accounts', 'update'],
    usage: 'accounts update ID [--name N] [--email E] [--external-id X]',
    options: { name: { type: 'string' }, email: { type: 'string' }, 'external-id': { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const input = {
        id: positionals[0]!,
        name: str(values.name),
        email: str(values.email),
        externalId: str(values['external-id']),
      };
      if (input.name === undefined && input.email === undefined && input.externalId === undefined)
        throw new AdminError('nothing to update: give at least one option');
      const account = await withStore(databaseUrl, async (s) =>
        outcome(await updateAccount(s, cliActor(), input)),
      );
      out.result({ id: account.id, account }, account.id);
    },
  },
  {
    name: ['accounts', 'list'],
    usage: 'accounts list [--external-id X] [--email E]',
    options: { 'external-id': { type: 'string' }, email: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const filter = { externalId: str(values['external-id']), email: str(values.email) };
      const accounts = await withStore(databaseUrl, (s) =>
        everything((cursor) => listAccounts(s, cliActor(), { ...filter, cursor, limit: 1000 })),
      );
      out.result(
        { accounts },
        table(
          ['ID', 'NAME', 'EMAIL', 'EXTERNAL ID', 'CREATED'],
          accounts.map((a) => [a.id, a.name ?? '-', a.email ?? '-', a.externalId ?? '-', a.createdAt]),
        ),
      );
    },
  },
  {
    name: ['grants', 'create'],
    usage:
      'grants create --account ID --plan P [--scopes A,B] [--monthly-limit N] [--rpm N] [--provider manual] [--external-id X] [--valid-from ISO] [--valid-until ISO]   (free|basic|pro|enterprise fill defaults from config/plans.json)',
    options: {
      account: { type: 'string' },
      plan: { type: 'string' },
      scopes: { type: 'string' },
      'monthly-limit': { type: 'string' },
      rpm: { type: 'string' },
      provider: { type: 'string' },
      'external-id': { type: 'string' },
      'valid-from': { type: 'string' },
      'valid-until': { type: 'string' },
    },
    async run({ values, out, databaseUrl, plansFile }) {
      const input = {
        accountId: str(values.account)!,
        plan: str(values.plan)!,
        scopes: list(values.scopes),
        monthlyRequestLimit: wholeNumber(values['monthly-limit']),
        requestsPerMinute: wholeNumber(values.rpm),
        provider: str(values.provider),
        externalId: str(values['external-id']),
        validFrom: instant(values['valid-from']),
        validUntil: instant(values['valid-until']),
      };
      const grant = await withStore(databaseUrl, async (s) =>
        outcome(await createGrant(s, cliActor(), input, { plansFile })),
      );
      out.result(grantDoc(grant), grant.id);
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
        scopes: list(values.scopes),
        monthlyRequestLimit: wholeNumber(values['monthly-limit']),
        requestsPerMinute: wholeNumber(values.rpm),
        validUntil: instant(values['valid-until']),
      };
      if (Object.values(patch).every((v) => v === undefined))
        throw new AdminError('nothing to update: give at least one option');
      const grant = await withStore(databaseUrl, async (s) =>
        outcome(await updateGrant(s, cliActor(), { id: positionals[0]!, ...patch })),
      );
      out.result(grantDoc(grant), `${grant.id}: ${grant.status}`);
    },
  },
  {
    name: ['grants', 'list'],
    usage: 'grants list [--account ID] [--provider P] [--external-id X] [--status S]',
    options: {
      account: { type: 'string' },
      provider: { type: 'string' },
      'external-id': { type: 'string' },
      status: { type: 'string' },
    },
    async run({ values, out, databaseUrl }) {
      const filter = {
        accountId: str(values.account),
        provider: str(values.provider),
        externalId: str(values['external-id']),
        status: str(values.status),
      };
      const grants = await withStore(databaseUrl, (s) =>
        everything((cursor) => listGrants(s, cliActor(), { ...filter, cursor, limit: 1000 })),
      );
      out.result(
        { grants },
        table(
          ['ID', 'ACCOUNT', 'PLAN', 'STATUS', 'PROVIDER', 'EXTERNAL ID', 'MONTHLY', 'RPM', 'VALID UNTIL'],
          grants.map((g) => [
            g.id,
            g.accountId,
            g.plan,
            g.status,
            g.provider,
            g.externalId ?? '-',
            String(g.monthlyRequestLimit),
            String(g.requestsPerMinute),
            g.validUntil,
          ]),
        ),
      );
    },
  },
  {
    name: ['usage'],
    usage:
      'usage GRANT_ID [--daily [--from YYYY-MM-DD] [--to YYYY-MM-DD]]   (--daily: per UTC day and key; default the current month)',
    options: { daily: { type: 'boolean' }, from: { type: 'string' }, to: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const grantId = positionals[0]!;
      if (values.daily === true) {
        const input = { grantId, from: str(values.from), to: str(values.to) };
        const daily = await withStore(databaseUrl, async (s) =>
          usageOutcome(await dailyUsage(s, cliActor(), input)),
        );
        const rows = daily.days.flatMap((d) => [
          [d.day, 'total', String(d.requests)],
          ...d.keys.map((k) => [d.day, k.publicId, String(k.requests)]),
        ]);
        out.result(daily, [
          `${daily.grantId}: ${daily.requests} requests from ${daily.from} to ${daily.to} (UTC days)`,
          ...table(['DAY', 'KEY', 'REQUESTS'], rows),
        ]);
        return;
      }
      if (values.from !== undefined || values.to !== undefined)
        throw new AdminError('--from and --to go with --daily: mds usage GRANT_ID --daily --from YYYY-MM-DD');
      const now = Date.now();
      const period = monthPeriod(now);
      const result = await withStore(databaseUrl, async (s) => {
        const grant = await s.access.getGrant(grantId);
        if (!grant) throw new AdminError(`no grant ${grantId}`);
        return { grant, used: await s.usage.getUsage(grantId, period.key) };
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
              doc.resetAt,
            ],
          ],
        ),
      );
    },
  },
  {
    name: ['usage', 'statement'],
    usage:
      "usage statement [--month YYYY-MM] [--csv]   (every grant's requests in the month, for invoices; default the current month)",
    options: { month: { type: 'string' }, csv: { type: 'boolean' } },
    async run({ values, out, databaseUrl }) {
      if (values.csv === true && out.json) throw new AdminError('give --csv or --json, not both');
      const result = await withStore(databaseUrl, async (s) =>
        usageOutcome(await statement(s, cliActor(), { month: str(values.month) })),
      );
      if (values.csv === true) {
        // The admin API's CSV, byte for byte (docs/decisions.md 62): header row, CRLF, RFC 4180.
        process.stdout.write(toCsv(STATEMENT_COLUMNS, result.lines));
        return;
      }
      out.result(
        result,
        table(
          [
            'ACCOUNT',
            'ACCOUNT EXTERNAL ID',
            'GRANT',
            'PLAN',
            'PROVIDER',
            'GRANT EXTERNAL ID',
            'STATUS',
            'CANCELLED',
            'USED',
            'LIMIT',
          ],
          result.lines.map((l) => [
            l.account.id,
            l.account.externalId ?? '-',
            l.grant.id,
            l.grant.plan,
            l.grant.provider,
            l.grant.externalId ?? '-',
            l.grant.status,
            l.grant.cancelledAt ?? '-',
            String(l.requestsUsed),
            String(l.monthlyRequestLimit),
          ]),
        ),
      );
    },
  },
];
