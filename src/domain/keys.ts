/**
 * API key format (decisions §3): `mds_<environment>_<publicId>_<secret>`, where the
 * secret is 32 random bytes in base62 followed by a 6-character base62 CRC32 of
 * everything before it. The checksum lets us reject typos and random guesses
 * without touching the store, and lets secret scanners recognise a leaked key.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECKSUM_LENGTH = 6;
const PUBLIC_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PUBLIC_ID_LENGTH = 12;

/** Every key starts with it: secret scanners, and the log's redaction, look for it. */
const KEY_TAG = 'mds_';
/** The form of a key's public prefix, for values and for patterns alike. */
const prefixOf = (environment: string, publicId: string) => `${KEY_TAG}${environment}_${publicId}`;

/**
 * A key's public prefix, `mds_<environment>_<publicId>`: what listings, /v1/me
 * and the logs show of a key. Its form is written once (prefixOf); the
 * patterns that parse and redact keys are built from it.
 */
export const keyPrefix = (environment: KeyEnvironment, publicId: string): string =>
  prefixOf(environment, publicId);

const ENVIRONMENT = KEY_ENVIRONMENTS.join('|');
const PUBLIC_ID = `[a-z0-9]{${PUBLIC_ID_LENGTH}}`;
const SECRET = `[0-9A-Za-z]{${SECRET_BODY_LENGTH + CHECKSUM_LENGTH}}`;
const KEY_PATTERN = new RegExp(`^${prefixOf(`(${ENVIRONMENT})`, `(${PUBLIC_ID})`)}_(${SECRET})$`);
/** A key, or the start of one, anywhere in a text: its prefix and separator, then its secret. */
const KEY_IN_TEXT = new RegExp(`(${prefixOf(`(?:${ENVIRONMENT})`, PUBLIC_ID)}_)[0-9A-Za-z]+`, 'g');

/** `text` with the secret of every key in it redacted, its public prefix kept (a key pasted into a URL). */
export function redactKeys(text: string): string {
  return text.includes(KEY_TAG) ? text.replace(KEY_IN_TEXT, '$1[redacted]') : text;
}

function base62(value: bigint, length: number): string {
  let out = '';
  let v = value;
  while (v > 0n) {
    out = BASE62[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(length, '0');
}

function checksum(text: string): string {
  return base62(BigInt(crc32(text)), CHECKSUM_LENGTH);
}

export interface ParsedKey {
  environment: KeyEnvironment;
  publicId: string;
  prefix: string;
}

/** Syntax and checksum only; null means "not a key we could have issued". */
export function parseKey(key: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(key);
  if (!m) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  if (checksum(body) !== key.slice(-CHECKSUM_LENGTH)) return null;
  const environment = m[1] as KeyEnvironment;
  const publicId = m[2]!;
  return { environment, publicId, prefix: keyPrefix(environment, publicId) };
}

export function newPublicId(): string {
  const bytes = randomBytes(12);
  let out = '';
  // 256 % 36 = 4: the bias is below 2%, harmless for an identifier that is not a secret.
  for (const b of bytes) out += PUBLIC_ALPHABET[b % 36];
  return out;
}

export function generateKey(
  environment: KeyEnvironment,
  publicId = newPublicId(),
): {
  key: string;
  publicId: string;
  prefix: string;
  digest: string;
} {
  const prefix = keyPrefix(environment, publicId);
  const secret = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), SECRET_BODY_LENGTH);
  const body = `${prefix}_${secret}`;
  const key = body + checksum(body);
  return { key, publicId, prefix, digest: digestKey(key) };
}

export function digestKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
