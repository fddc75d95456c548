/**
 * The format of the service's own bearer tokens, admin tokens
 * (`mdsadm_…`, docs/decisions.md 57) and reporter tokens (`mdsrep_…`,
 * decisions 108): `<tag><id>_<secret>`, built as API keys are
 * (domain/keys.ts): `id` is 12 characters `[a-z0-9]`, the secret 32 random
 * bytes in base62 followed by a 6-character base62 CRC32 of everything before
 * it, so a typo is refused without a store lookup and a secret scanner can
 * recognise a leaked token. Each kind's own tag keeps tokens apart at a glance
 * and in every check. The store keeps the token's SHA-256 digest only.
 */
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { digestKey, newPublicId } from './keys.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BODY_LENGTH = 43; // ceil(256 / log2(62)), as for API keys
const CHECKSUM_LENGTH = 6;

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

export function bearerTokenFormat(tokenTag: string, idTag: string) {
  const pattern = new RegExp(
    `^${tokenTag}([a-z0-9]{12})_[0-9A-Za-z]{${SECRET_BODY_LENGTH + CHECKSUM_LENGTH}}$`,
  );
  return {
    /** Syntax and checksum only: the token's public id, or null for a token we could not have issued. */
    parse(token: string): { publicId: string } | null {
      const m = pattern.exec(token);
      if (!m) return null;
      const body = token.slice(0, token.length - CHECKSUM_LENGTH);
      if (checksum(body) !== token.slice(-CHECKSUM_LENGTH)) return null;
      return { publicId: `${idTag}${m[1]}` };
    },
    generate(): { token: string; publicId: string; digest: string } {
      const id = newPublicId();
      const secret = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), SECRET_BODY_LENGTH);
      const body = `${tokenTag}${id}_${secret}`;
      const token = body + checksum(body);
      return { token, publicId: `${idTag}${id}`, digest: digestKey(token) };
    },
  };
}
