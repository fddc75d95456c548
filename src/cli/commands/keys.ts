/**
 * API keys: thin commands over the operations (src/use-cases/keys.ts,
 * docs/decisions.md, 57). A full key is printed once, by `keys create` and
 * `keys roll`; lists never show a key or its digest.
 */
import { createKey, listKeys, revokeKey, rollKey } from '../../use-cases/keys.js';
import type { Command } from '../command.js';
import { cliActor, everything, instant, list, outcome, str, wholeNumber } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const ONCE = 'This is the only time the full key is shown. Store it now.';

export const keyCommands: Command[] = [
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
      const input = {
        grantId: str(values.grant)!,
        label: str(values.label),
        environment: str(values.environment),
        scopes: list(values.scopes),
        expiresAt: instant(values['expires-at']),
      };
      const created = await withStore(databaseUrl, async (s) =>
        outcome(await createKey(s, cliActor(), input)),
      );
      out.result({ key: created.key, publicId: created.publicId, prefix: created.prefix }, [
        created.key,
        '',
        ONCE,
      ]);
    },
  },
  {
    name: ['keys', 'roll'],
    usage: 'keys roll PUBLIC_ID [--grace-period SECONDS]   (default 86400: the old key works one more day)',
    options: { 'grace-period': { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const input = { publicId: positionals[0]!, gracePeriodSeconds: wholeNumber(values['grace-period']) };
      const rolled = await withStore(databaseUrl, async (s) => outcome(await rollKey(s, cliActor(), input)));
      out.result(rolled, [
        rolled.key,
        '',
        ONCE,
        `The old key ${rolled.previous.publicId} keeps working until ${rolled.previous.expiresAt}.`,
      ]);
    },
  },
  {
    name: ['keys', 'revoke'],
    usage: 'keys revoke PUBLIC_ID',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const key = await withStore(databaseUrl, async (s) =>
        outcome(await revokeKey(s, cliActor(), { publicId: positionals[0]! })),
      );
      out.result(
        { publicId: key.publicId, status: key.status, revokedAt: key.revokedAt },
        `${key.publicId}: revoked`,
      );
    },
  },
  {
    name: ['keys', 'list'],
    usage: 'keys list [--grant ID] [--account ID]',
    options: { grant: { type: 'string' }, account: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const filter = { grantId: str(values.grant), accountId: str(values.account) };
      const keys = await withStore(databaseUrl, (s) =>
        everything((cursor) => listKeys(s, cliActor(), { ...filter, cursor, limit: 1000 })),
      );
      out.result(
        { keys },
        table(
          ['PUBLIC ID', 'PREFIX', 'GRANT', 'ACCOUNT', 'PLAN', 'LABEL', 'STATUS', 'EXPIRES', 'LAST USED'],
          keys.map((k) => [
            k.publicId,
            k.prefix,
            k.grantId,
            k.accountId,
            k.plan,
            k.label,
            // Whether it works now, in words (`grant cancelled`); --json keeps the stored status beside it.
            k.effectiveStatus.replaceAll('_', ' '),
            k.expiresAt ?? '-',
            k.lastUsedAt ?? '-',
          ]),
        ),
      );
    },
  },
];
