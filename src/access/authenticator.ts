/**
 * Authentication and grant checks (decisions §1 steps 2–3, §3). Key and grant
 * records are cached per public id and dropped whenever the store's `access`
 * version moves (see runtime/watcher.ts), so a revocation or suspension made
 * anywhere takes effect within one poll, and an unchanged key costs no query.
 *
 * A read of the store can be overtaken by that drop: it started before the
 * change was seen, so what it returns may predate the change (a key revoked
 * meanwhile, read as active). Each drop starts a new generation, and a record
 * is kept only if no drop came between the start of its read and its use;
 * otherwise it is read again.
 *
 * A refused key is a result, not an exception: the HTTP layer names its status
 * and headers (http/errors.ts, accessRefused). Only a failing store throws.
 */
import { digestKey, digestsEqual, parseKey } from '../domain/keys.js';
import { type Entitlement, expandScopes } from '../domain/scopes.js';
import type { GrantRecord, KeyRecord, Store } from '../storage/store.js';
import { FailedAttempts } from './failed-attempts.js';

export interface AccessContext {
  key: KeyRecord;
  grant: GrantRecord;
  /** Canonical entitlements of the key (its own, or its grant's when it has none). */
  keyScopes: ReadonlySet<Entitlement>;
  grantScopes: ReadonlySet<Entitlement>;
}

/** Why a key is refused (decisions §1 steps 2–3, 18a); each reason is also the `error.code` sent. */
export type AccessRefusalReason =
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'revoked_api_key'
  | 'expired_api_key'
  | 'grant_inactive'
  | 'too_many_requests';

export interface AccessRefused {
  ok: false;
  reason: AccessRefusalReason;
  /** Seconds until the address may try again (`too_many_requests` only). */
  retryAfter?: number;
  /** The error message, when the reason's own would not say what to do. */
  message?: string;
}

export type Authentication = { ok: true; access: AccessContext } | AccessRefused;

// The refusals without a parameter, made once: they are answered under attack.
const refused = (reason: AccessRefusalReason): AccessRefused => Object.freeze({ ok: false, reason });
const MISSING = refused('missing_api_key');
const INVALID = refused('invalid_api_key');
const REVOKED = refused('revoked_api_key');
const EXPIRED = refused('expired_api_key');
const GRANT_INACTIVE = refused('grant_inactive');
/**
 * An Authorization header that is not `Bearer <key>`: most often the key alone,
 * without its scheme (docs/decisions.md 63). Still `invalid_api_key`, with the
 * fix in the message; the value is never repeated.
 */
export const NOT_BEARER: AccessRefused = Object.freeze({
  ok: false,
  reason: 'invalid_api_key',
  message:
    'The Authorization header is not a Bearer credential: send Authorization: Bearer <key>, or the key alone in X-API-Key.',
});

interface CacheEntry {
  key: KeyRecord;
  grant: GrantRecord;
  keyScopes: ReadonlySet<Entitlement>;
  grantScopes: ReadonlySet<Entitlement>;
}

/**
 * Unknown public ids are remembered too, so repeated guesses stop reaching the
 * store. They are bounded on their own, oldest out first: a flood of guesses
 * displaces only other guesses, never a record a valid key depends on.
 */
const NEGATIVE_CACHE_LIMIT = 10_000;
// A digest nothing hashes to: an unknown public id costs the same compare as a known one.
const DUMMY_DIGEST = '0'.repeat(64);

export type KeyHeaders = { authorization?: string | string[]; 'x-api-key'?: string | string[] };

/** Keys verified since the last access change; a hit skips parsing and hashing. Oldest out first. */
const VERIFIED_LIMIT = 10_000;
/**
 * Reads of one public id within one request, when access changes keep
 * overtaking them; the last read is then used for this request but not kept.
 */
const MAX_READS = 3;

const UNKNOWN: Promise<null> = Promise.resolve(null);

/** A set that forgets its oldest member to stay within `limit`. */
class BoundedSet {
  private members = new Set<string>();
  constructor(private readonly limit: number) {}
  has(member: string): boolean {
    return this.members.has(member);
  }
  add(member: string): void {
    if (this.members.size >= this.limit) this.members.delete(this.members.values().next().value!);
    this.members.add(member);
  }
}

export class Authenticator {
  /** Reads of key and grant per public id, in flight or found, since the last access change. */
  private cache = new Map<string, Promise<CacheEntry | null>>();
  /** Public ids the store did not know, since the last access change. */
  private unknown = new BoundedSet(NEGATIVE_CACHE_LIMIT);
  private verified = new Map<string, CacheEntry>();
  /**
   * The last Authorization header `cached` found, and its entry: a client that
   * sends the same key again is recognised by comparing the header, not by
   * hashing its 70 characters for the map (about 0.1 µs of a 15 µs answer).
   * Dropped with the map on every access change.
   */
  private lastHeader: string | undefined;
  private lastEntry: CacheEntry | undefined;
  /** Moves on every invalidation; a read that started in an older one is not kept. */
  private generation = 0;

  constructor(
    private readonly store: Store,
    private readonly attempts = new FailedAttempts(),
    private readonly onCacheLookup?: (hit: boolean) => void,
  ) {}

  /** Drops every cached record; called when the access version changes. */
  invalidate(): void {
    this.generation++;
    this.cache = new Map();
    this.unknown = new BoundedSet(NEGATIVE_CACHE_LIMIT);
    this.verified = new Map();
    this.lastHeader = undefined;
    this.lastEntry = undefined;
  }

  /** Extracts the presented key, or the refusal of decisions §1 step 2 when absent or ambiguous. */
  static presentedKey(headers: KeyHeaders): string | AccessRefused {
    const auth = headers.authorization;
    const xKey = headers['x-api-key'];
    if (Array.isArray(auth) || Array.isArray(xKey)) return INVALID;
    let bearer: string | undefined;
    if (auth !== undefined) {
      const m = /^Bearer +(\S+) *$/i.exec(auth);
      if (!m) return NOT_BEARER;
      bearer = m[1];
    }
    const header = xKey?.trim();
    if (bearer === undefined && (header === undefined || header === '')) return MISSING;
    if (bearer !== undefined && header !== undefined && header !== '' && header !== bearer) return INVALID;
    return (bearer ?? header)!;
  }

  /** The access of the presented key, or why it is refused; rejects only when the store fails. */
  async authenticate(headers: KeyHeaders, now: number, address = ''): Promise<Authentication> {
    const presented = Authenticator.presentedKey(headers);
    if (typeof presented !== 'string') return presented;
    let entry = this.verified.get(presented);
    this.onCacheLookup?.(entry !== undefined);
    if (!entry) {
      // The key is judged first and the address only for a key that fails: the
      // throttle must never refuse a valid key, whoever shares its address.
      const parsed = parseKey(presented);
      if (!parsed) return this.failed(address, now);
      const { found, current } = await this.read(parsed.publicId);
      if (!digestsEqual(digestKey(presented), found?.key.digest ?? DUMMY_DIGEST) || !found) {
        return this.failed(address, now);
      }
      if (current) {
        if (this.verified.size >= VERIFIED_LIMIT) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(presented, found);
      }
      entry = found;
    }
    return this.check(entry, now);
  }

  /**
   * The access of a key verified since the last access change, when it passes
   * every check now; undefined otherwise (absent, malformed, unknown, refused),
   * leaving the verdict to `authenticate`. Synchronous, for the
   * pipeline's hot path: `Bearer <key>` exactly, the form clients send.
   */
  cached(
    authorization: string | undefined,
    xApiKey: string | undefined,
    now: number,
  ): AccessContext | undefined {
    if (xApiKey !== undefined || authorization === undefined) return;
    let entry: CacheEntry | undefined;
    if (authorization === this.lastHeader) entry = this.lastEntry;
    else {
      if (!authorization.startsWith('Bearer ')) return;
      entry = this.verified.get(authorization.slice(7));
      if (entry !== undefined) {
        this.lastHeader = authorization;
        this.lastEntry = entry;
      }
    }
    if (!entry || refusal(entry, now)) return;
    this.onCacheLookup?.(true);
    return entry;
  }

  /**
   * The answer to a key that failed: 429 once its address has failed too
   * often this minute (decisions 18a), else 401, counted against the address.
   */
  private failed(address: string, now: number): AccessRefused {
    const wait = this.attempts.blockedFor(address, now);
    if (wait > 0) return { ok: false, reason: 'too_many_requests', retryAfter: wait };
    this.attempts.fail(address, now);
    return INVALID;
  }

  private check(entry: CacheEntry, now: number): Authentication {
    return refusal(entry, now) ?? { ok: true, access: entry };
  }

  /**
   * The record of a public id as of the latest invalidation: `current` when no
   * invalidation overtook its read, so it may be kept.
   */
  private async read(publicId: string): Promise<{ found: CacheEntry | null; current: boolean }> {
    for (let reads = 1; ; reads++) {
      const generation = this.generation;
      // A promise in the lookup map was started in this generation: an
      // invalidation replaces the map, so it never hands out an older read.
      const found = await this.lookup(publicId);
      if (generation === this.generation) return { found, current: true };
      if (reads === MAX_READS) return { found, current: false };
    }
  }

  private lookup(publicId: string): Promise<CacheEntry | null> {
    let hit = this.cache.get(publicId);
    if (hit) return hit;
    if (this.unknown.has(publicId)) return UNKNOWN;
    hit = this.load(publicId);
    const cache = this.cache;
    const unknown = this.unknown;
    cache.set(publicId, hit);
    hit.then(
      (entry) => {
        // An unknown id moves to its own bounded set; a failed load is not kept
        // at all: the next request retries the store.
        if (entry === null && cache.get(publicId) === hit) {
          cache.delete(publicId);
          unknown.add(publicId);
        }
      },
      () => {
        if (cache.get(publicId) === hit) cache.delete(publicId);
      },
    );
    return hit;
  }

  private async load(publicId: string): Promise<CacheEntry | null> {
    const key = await this.store.access.getKey(publicId);
    if (!key) return null;
    const grant = await this.store.access.getGrant(key.grantId);
    if (!grant) return null;
    const grantScopes = new Set(expandScopes(grant.scopes));
    const keyScopes = key.scopes === null ? grantScopes : new Set(expandScopes(key.scopes));
    return { key, grant, keyScopes, grantScopes };
  }
}

/** Status, expiry and grant checks: on every request, as time moves. */
function refusal({ key, grant }: CacheEntry, now: number): AccessRefused | undefined {
  if (key.status !== 'active') return REVOKED;
  if (key.expiresAt !== null && now >= key.expiresAt) return EXPIRED;
  if (grant.status !== 'active' || now < grant.validFrom || now >= grant.validUntil) return GRANT_INACTIVE;
  return undefined;
}
