/**
 * Opaque pagination cursors (decisions §7). A cursor carries only the keyset
 * position; its MAC also covers the endpoint and filters, so a cursor replayed
 * with other filters, or edited, fails verification without any lookup.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_CURSOR_LENGTH = 500;
const MAC_BYTES = 16;

export interface CursorCodec {
  encode(scope: string, position: readonly number[]): string;
  /** The position, or null for a cursor this service did not issue for `scope`. */
  decode(scope: string, cursor: string): number[] | null;
}

/** Verified cursors kept (a client pages through a few at a time; the set is dropped when full). */
const VERIFIED_LIMIT = 1_000;

export function cursorCodec(secret: string): CursorCodec {
  const mac = (scope: string, body: string) =>
    createHmac('sha256', secret).update(scope).update('\n').update(body).digest().subarray(0, MAC_BYTES);
  // Clients poll the same pages again and again: a cursor verified once need not
  // be hashed again. Its position is a pure function of (scope, cursor).
  let verified = new Map<string, readonly number[]>();
  const verify = (scope: string, cursor: string): number[] | null => {
    const at = cursor.indexOf('~');
    if (at <= 0) return null;
    const body = cursor.slice(0, at);
    // Compare the text, not its decoding: base64url decoding ignores stray
    // characters and the unused low bits of the last one, so several strings
    // would decode to the same MAC and an edited cursor would pass.
    const given = Buffer.from(cursor.slice(at + 1), 'latin1');
    const expected = Buffer.from(mac(scope, body).toString('base64url'), 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const position = body.split('.').map((p) => Number.parseInt(p, 36));
    return position.every(Number.isSafeInteger) ? position : null;
  };
  return {
    encode(scope, position) {
      const body = position.map((n) => n.toString(36)).join('.');
      return `${body}~${mac(scope, body).toString('base64url')}`;
    },
    decode(scope, cursor) {
      if (cursor.length > MAX_CURSOR_LENGTH) return null;
      const key = `${scope}\n${cursor}`;
      const known = verified.get(key);
      if (known) return [...known];
      const position = verify(scope, cursor);
      if (position) {
        if (verified.size >= VERIFIED_LIMIT) verified = new Map();
        verified.set(key, position);
      }
      return position && [...position];
    },
  };
}
