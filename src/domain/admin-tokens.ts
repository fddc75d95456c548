/**
 * Admin token format (docs/decisions.md, 57): `mdsadm_<id>_<secret>`, built as
 * API keys are (domain/keys.ts): `id` is 12 characters `[a-z0-9]`, the secret
 * 32 random bytes in base62 followed by a 6-character base62 CRC32 of
 * everything before it, so a typo is refused without a store lookup and a
 * secret scanner can recognise a leaked token. Its own prefix keeps an admin
 * token and an API key apart at a glance and in every check. The public id,
 * shown in lists and the audit log, is `adm_<id>`; the store keeps the
 * token's SHA-256 digest only.
 */
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { digestKey, newPublicId } from './keys.js';

/** The admin API's scopes, one list (a scope added later is added here). */
export const ADMIN_SCOPES = [
  'accounts:read',
  'accounts:write',
  'keys:write',
  'usage:read',
  'data:write',
  'audit:read',
  'webhooks:write',
  'admin-tokens:write',
] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export const isAdminScope = (s: string): s is AdminScope => (ADMIN_SCOPES as readonly string[]).includes(s);

const TOKEN_TAG = 'mdsadm_';
const ID_TAG = 'adm_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BODY_LENGTH = 43; // ceil(256 / log2(62)), as for API keys
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = new RegExp(
  `^${TOKEN_TAG}([a-z0-9]{12})_[0-9A-Za-z]{${SECRET_BODY_LENGTH + CHECKSUM_LENGTH}}$`,
);

function base62(value: bigint, length: number): string {
  let out = '';
  let v = value;
  while (v > 0n) {
    out = BASE62[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(length, '0');
}

const checksum = (text: string) => base62(BigInt(crc32(text)), CHECKSUM_LENGTH);

/** Syntax and checksum only: the token's public id (`adm_…`), or null for a token we could not have issued. */
export function parseAdminToken(token: string): { publicId: string } | null {
  const m = TOKEN_PATTERN.exec(token);
  if (!m) return null;
  const body = token.slice(0, token.length - CHECKSUM_LENGTH);
  if (checksum(body) !== token.slice(-CHECKSUM_LENGTH)) return null;
  return { publicId: `${ID_TAG}${m[1]}` };
}

export function generateAdminToken(): { token: string; publicId: string; digest: string } {
  const publicId = newPublicId();
  const secret = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), SECRET_BODY_LENGTH);
  const body = `${TOKEN_TAG}${publicId}_${secret}`;
  const token = body + checksum(body);
  return { token, publicId: `${ID_TAG}${publicId}`, digest: digestKey(token) };
}
