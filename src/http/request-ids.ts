/**
 * Request ids: a random per-process prefix and a counter. Unique across
 * instances and restarts, and far cheaper than a UUID per request. Its own
 * module, importing nothing else of src/, so that the bench's reference
 * servers make their ids as the service does (bench/reference-config.ts).
 */
import { randomBytes } from 'node:crypto';

/** What every id `requestIds` makes looks like (docs/decisions.md 11). */
export const REQUEST_ID_FORM = /^req_[\w-]{8}_[0-9a-z]+$/;

export function requestIds(): () => string {
  const prefix = `req_${randomBytes(6).toString('base64url')}_`;
  let n = 0;
  return () => prefix + (n++).toString(36);
}
