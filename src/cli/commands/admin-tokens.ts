/**
 * Admin tokens, the admin API's credentials: thin commands over the
 * operations (src/use-cases/admin-tokens.ts, docs/decisions.md, 57). The
 * token is printed once, by `admin-tokens create`; lists show its public id.
 */
import { ADMIN_SCOPES } from '../../domain/admin-tokens.js';
import {
  createAdminToken,
  listAdminTokens,
  revokeAdminToken,
  updateAdminToken,
} from '../../use-cases/admin-tokens.js';
import type { Command } from '../command.js';
import { cliActor, everything, list, outcome, str } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

export const adminTokenCommands: Command[] = [
  {
    name: ['admin-tokens', 'create'],
    usage: `admin-tokens create --label L --scopes A,B   (scopes: ${ADMIN_SCOPES.join(', ')})`,
    options: { label: { type: 'string' }, scopes: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const input = { label: str(values.label)!, scopes: list(values.scopes) ?? [] };
      const created = await withStore(databaseUrl, async (s) =>
        outcome(await createAdminToken(s, cliActor(), input)),
      );
      out.result({ token: created.token, publicId: created.publicId, adminToken: created.adminToken }, [
        created.token,
        '',
        `This is the only time the token is shown. Store it now. Its public id: ${created.publicId}`,
      ]);
    },
  },
  {
    name: ['admin-tokens', 'list'],
    usage: 'admin-tokens list',
    async run({ out, databaseUrl }) {
      const tokens = await withStore(databaseUrl, (s) =>
        everything((cursor) => listAdminTokens(s, cliActor(), { cursor, limit: 1000 })),
      );
      out.result(
        { adminTokens: tokens },
        table(
          ['PUBLIC ID', 'LABEL', 'SCOPES', 'STATUS', 'CREATED', 'LAST USED'],
          tokens.map((t) => [
            t.publicId,
            t.label,
            t.scopes.join(','),
            t.status,
            t.createdAt,
            t.lastUsedAt ?? '-',
          ]),
        ),
      );
    },
  },
  {
    name: ['admin-tokens', 'update'],
    usage: 'admin-tokens update PUBLIC_ID --scopes A,B   (the whole list; the token keeps its secret)',
    positionals: { min: 1, max: 1 },
    options: { scopes: { type: 'string' } },
    async run({ positionals, values, out, databaseUrl }) {
      const input = { id: positionals[0]!, scopes: list(values.scopes) ?? [] };
      const token = await withStore(databaseUrl, async (s) =>
        outcome(await updateAdminToken(s, cliActor(), input)),
      );
      out.result({ adminToken: token }, `${token.publicId}: scopes ${token.scopes.join(',')}`);
    },
  },
  {
    name: ['admin-tokens', 'revoke'],
    usage: 'admin-tokens revoke PUBLIC_ID',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const token = await withStore(databaseUrl, async (s) =>
        outcome(await revokeAdminToken(s, cliActor(), { id: positionals[0]! })),
      );
      out.result(
        { publicId: token.publicId, status: token.status, revokedAt: token.revokedAt },
        `${token.publicId}: revoked`,
      );
    },
  },
];
