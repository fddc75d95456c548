/**
 * Admin tokens (docs/decisions.md, 57): the admin API's bearer credentials.
 * The token is returned once, by createAdminToken; the store keeps its SHA-256
 * digest. Scopes come from one list (domain/admin-tokens.ts ADMIN_SCOPES).
 */
import { generateAdminToken, parseAdminToken } from '../domain/admin-tokens.js';
import { digestKey, digestsEqual } from '../domain/keys.js';
import { AdminTokenCreate, AdminTokenPatch } from '../schemas/admin.js';
import type { AdminTokenRecord, Store } from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import {
  checked,
  conflict,
  forbidden,
  keysetOf,
  notFound,
  type OperationOptions,
  pageOf,
  refusing,
} from './rules.js';
import { type AdminTokenView, adminTokenView } from './views.js';

export interface AdminTokenInput {
  label: string;
  scopes: string[];
}

/** A new token: the token itself, shown this once, and what lists show of it. */
export interface CreatedAdminToken {
  token: string;
  /** `adm_…`. */
  publicId: string;
  adminToken: AdminTokenView;
}

/** `lastUsedAt` is written at most this often per token: a read costs no write. */
const TOUCH_EVERY_MS = 60_000;

export function createAdminToken(
  store: Store,
  actor: Actor,
  input: AdminTokenInput,
  options: OperationOptions = {},
): Promise<Result<CreatedAdminToken>> {
  return refusing(async () => {
    const given = checked(AdminTokenCreate, input);
    const label = given.label;
    const scopes = [...new Set(given.scopes)];
    mayGive(actor, scopes);
    const generated = generateAdminToken();
    const record: AdminTokenRecord = {
      publicId: generated.publicId,
      digest: generated.digest,
      label,
      scopes,
      status: 'active',
      createdAt: options.now ?? Date.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await store.operator.createAdminToken(record, actor);
    return { token: generated.token, publicId: record.publicId, adminToken: adminTokenView(record) };
  });
}

export function listAdminTokens(
  store: Store,
  _actor: Actor,
  input: ListOptions = {},
): Promise<Result<Page<AdminTokenView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const rows = await store.operator.listAdminTokens(page);
    return pageOf(rows, page, (t) => ({ at: t.createdAt, id: t.publicId }), adminTokenView);
  });
}

/** No actor gives a scope it does not hold itself: an admin token cannot raise its own powers, or make a token that has more. */
function mayGive(actor: Actor, scopes: readonly string[]): void {
  if (actor.scopes === undefined) return;
  const lacking = scopes.find((s) => !actor.scopes!.includes(s));
  if (lacking !== undefined) {
    throw forbidden(
      lacking,
      `The admin token lacks the scope ${lacking}, so it cannot give it; a token holding ${lacking} (or mds admin-tokens update) can.`,
    );
  }
}

/**
 * A token's scopes, replaced by `scopes` (the whole list, as on create): the
 * token keeps its secret, and every request after the change is judged by the
 * new list. A revoked token cannot change (409); the same list changes nothing
 * and records nothing.
 */
export function updateAdminToken(
  store: Store,
  actor: Actor,
  input: { id: string; scopes: string[] },
  options: OperationOptions = {},
): Promise<Result<AdminTokenView>> {
  return refusing(async () => {
    const given = checked(AdminTokenPatch, { scopes: input.scopes });
    const scopes = [...new Set(given.scopes)];
    const current = await store.operator.getAdminToken(input.id);
    if (!current) throw notFound(`no admin token ${input.id}`);
    if (current.status === 'revoked') throw conflict(`admin token ${input.id} is revoked; create a new one`);
    mayGive(actor, scopes);
    const updated = await store.operator.updateAdminTokenScopes(
      input.id,
      scopes,
      options.now ?? Date.now(),
      actor,
    );
    if (!updated) throw notFound(`no admin token ${input.id}`);
    if (updated.status === 'revoked') throw conflict(`admin token ${input.id} is revoked; create a new one`);
    return adminTokenView(updated);
  });
}

/** Final, and idempotent: revoking a revoked token changes nothing and answers the token. */
export function revokeAdminToken(
  store: Store,
  actor: Actor,
  { id }: { id: string },
  options: OperationOptions = {},
): Promise<Result<AdminTokenView>> {
  return refusing(async () => {
    const token = await store.operator.revokeAdminToken(id, options.now ?? Date.now(), actor);
    if (!token) throw notFound(`no admin token ${id}`);
    return adminTokenView(token);
  });
}

/**
 * The active token record `token` is, or null: its format and checksum first
 * (a typo or a guess costs no lookup), then its digest, compared in constant
 * time. A revoked token is null. Moves `lastUsedAt` at most once a minute.
 */
export async function verifyAdminToken(
  store: Store,
  token: string,
  now = Date.now(),
): Promise<AdminTokenRecord | null> {
  const parsed = parseAdminToken(token);
  if (!parsed) return null;
  const digest = digestKey(token);
  const record = await store.operator.findAdminTokenByDigest(digest);
  if (!record || record.publicId !== parsed.publicId || !digestsEqual(record.digest, digest)) return null;
  if (record.status !== 'active') return null;
  if (record.lastUsedAt === null || now - record.lastUsedAt >= TOUCH_EVERY_MS) {
    await store.operator.touchAdminToken(record.publicId, now);
  }
  return record;
}
