/**
 * The credential headers as received, before any key is read: a key sent
 * twice is refused whichever copy is valid (docs/decisions.md 60).
 */
import type { AccessRefused } from './authenticator.js';

/**
 * A credential header sent twice (docs/decisions.md 60): Node keeps the first
 * Authorization and joins X-API-Key values, a proxy may read the last, so the
 * key checked could differ from the key billed. Never accepted.
 */
export const REPEATED_CREDENTIAL: AccessRefused = Object.freeze({
  ok: false,
  reason: 'invalid_api_key',
  message:
    'The request carries more than one Authorization or X-API-Key header: send one credential, in one header.',
});

/**
 * Whether a credential header appears more than once among the raw headers
 * (`[name, value, …]` as received). Authorization and X-API-Key once each is
 * not a repetition: the same key in both is accepted, different keys are
 * refused by `presentedKey` (docs/security.md, Keys). Cheap: most names are
 * ruled out by their length.
 */
export function repeatedCredential(rawHeaders: readonly string[]): boolean {
  let authorization = 0;
  let apiKey = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13) {
      if (sameName(name, 'authorization') && ++authorization > 1) return true;
    } else if (name.length === 9) {
      if (sameName(name, 'x-api-key') && ++apiKey > 1) return true;
    }
  }
  return false;
}

/**
 * `name` is `lower` (lower-case ASCII, of the same length) in any case. Unlike
 * `toLowerCase`, it makes no string: this runs on every request, and clients
 * send `Authorization` capitalised.
 */
function sameName(name: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}
