/**
 * Admin tokens (docs/decisions.md, 57): `mdsadm_<id>_<secret>`, in the format
 * of domain/bearer-tokens.ts. The public id, shown in lists and the audit
 * log, is `adm_<id>`; the store keeps the token's SHA-256 digest only.
 */
import { bearerTokenFormat } from './bearer-tokens.js';

/** The admin API's scopes, one list (a scope added later is added here). */
export const ADMIN_SCOPES = [
  'accounts:read',
  'accounts:write',
  'keys:write',
  'usage:read',
  'data:write',
  'audit:read',
  'webhooks:write',
  'reporters:write',
  'admin-tokens:write',
] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export const isAdminScope = (s: string): s is AdminScope => (ADMIN_SCOPES as readonly string[]).includes(s);

const format = bearerTokenFormat('mdsadm_', 'adm_');

/** Syntax and checksum only: the token's public id (`adm_…`), or null for a token we could not have issued. */
export const parseAdminToken = format.parse;
export const generateAdminToken = format.generate;
