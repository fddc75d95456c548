/**
 * Stored idempotent answers, sealed (docs/decisions.md 104). An answer may
 * hold a secret shown once (a key created or rolled, an admin token, a webhook
 * secret): the store keeps it for a day to replay it, so it is kept encrypted
 * with AES-256-GCM under a key derived by HKDF-SHA-256 from the credential
 * that made the request, which the store never holds (it keeps a SHA-256
 * digest of it, for lookup; the derivation's own label makes the two
 * unrelated). A replay by the same credential opens it; a copy of the store
 * alone cannot. The row's owner and key are the associated data, so a sealed
 * answer moved to another row does not open.
 *
 * Any bearer credential can seal its answers this way: the label names the
 * purpose, not the kind of credential.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** What a sealed answer starts with; an answer stored before sealing existed starts with `{`. */
export const SEALED_TAG = 'sealed:v1:';
const LABEL = 'mds idempotent answer v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The sealing key of a credential: HKDF-SHA-256 of the credential as presented, with its own label. */
export function answerKey(credential: string): Buffer {
  return Buffer.from(hkdfSync('sha256', credential, Buffer.alloc(0), LABEL, 32));
}

/** `owner` and `name` (the row's actor and Idempotency-Key) bind the sealed text to its row. */
const aad = (owner: string, name: string) => Buffer.from(`${owner}\n${name}`);

export function seal(key: Buffer, owner: string, name: string, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(owner, name));
  const text = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return SEALED_TAG + Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64');
}

/**
 * The answer `stored` holds: opened with `key`, or as it is when it was stored
 * before sealing (such rows hold no secret: migration 0013 removed those).
 * Null when it does not open (another credential's key, or altered).
 */
export function unseal(key: Buffer, owner: string, name: string, stored: string): string | null {
  if (!stored.startsWith(SEALED_TAG)) return stored;
  const bytes = Buffer.from(stored.slice(SEALED_TAG.length), 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(aad(owner, name));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return null;
  }
}
