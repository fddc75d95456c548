/**
 * Grants (decisions §3, §4; docs/decisions.md, 57): a plan of the catalogue
 * (config/plans.json, or MDS_PLANS_FILE) fills the limits and scopes not
 * given; `provider` names who sold it and `externalId` its id there (a
 * subscription), unique per provider. Status transitions: active ⇄ suspended,
 * either → cancelled, which is final; an illegal one is a conflict.
 */
import { loadPlans } from '../access/plans.js';
import { GrantCreate, GrantPatch, GrantStatusFilter } from '../schemas/admin.js';
import type { GrantPatch as StoredGrantPatch } from '../storage/admin-records.js';
import {
  DuplicateError,
  GrantCancelledError,
  type GrantRecord,
  type GrantStatus,
  type Store,
} from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import {
  checked,
  conflict,
  invalid,
  keysetOf,
  NO_END,
  newId,
  notFound,
  type OperationOptions,
  pageOf,
  refusing,
} from './rules.js';
import { type GrantView, grantView } from './views.js';

export interface GrantInput {
  accountId: string;
  /** A plan of the catalogue, or any name when scopes and both limits are given. */
  plan: string;
  scopes?: string[];
  monthlyRequestLimit?: number;
  requestsPerMinute?: number;
  /** Who sold it; default `manual`. */
  provider?: string;
  /** The provider's id for it; unique per provider. */
  externalId?: string | null;
  /** ISO 8601; default now. */
  validFrom?: string;
  /** ISO 8601; default no end. */
  validUntil?: string;
}

export interface GrantOptions extends OperationOptions {
  /** MDS_PLANS_FILE; undefined: config/plans.json. */
  plansFile?: string;
}

export interface GrantUpdateInput {
  id: string;
  status?: string;
  scopes?: string[];
  monthlyRequestLimit?: number;
  requestsPerMinute?: number;
  validUntil?: string;
}

export interface GrantListInput extends ListOptions {
  accountId?: string;
  provider?: string;
  externalId?: string;
  status?: string;
}

export const DEFAULT_PROVIDER = 'manual';

/** Scopes are stored as given, each once (decisions §4). */
export const withoutRepeats = (scopes: string[]) => [...new Set(scopes)];

const duplicate = (provider: string, externalId: string) =>
  conflict(`provider ${provider} already has a grant with externalId ${externalId}`);

/** Grant transitions: active ⇄ suspended, either → cancelled (final). */
export function checkTransition(from: GrantStatus, to: GrantStatus): void {
  if (from === 'cancelled' && to !== 'cancelled') throw conflict('a cancelled grant cannot be reopened');
}

export function createGrant(
  store: Store,
  actor: Actor,
  input: GrantInput,
  options: GrantOptions = {},
): Promise<Result<GrantView>> {
  return refusing(async () => {
    const now = options.now ?? Date.now();
    const given = checked(GrantCreate, input);
    // A catalogued plan fills what the caller did not give; anything given overrides it.
    const catalogued = loadPlans(options.plansFile).get(given.plan);
    if (!catalogued) {
      for (const field of ['scopes', 'monthlyRequestLimit', 'requestsPerMinute'] as const) {
        if (given[field] === undefined) {
          throw invalid(field, `is required (plan "${given.plan}" is not in the plan catalogue)`);
        }
      }
    }
    const scopes = given.scopes === undefined ? catalogued!.scopes : withoutRepeats(given.scopes);
    const monthlyRequestLimit = given.monthlyRequestLimit ?? catalogued!.monthlyRequestLimit;
    const requestsPerMinute = given.requestsPerMinute ?? catalogued!.requestsPerMinute;
    const provider = given.provider ?? DEFAULT_PROVIDER;
    const externalId = given.externalId ?? null;
    const validFrom = given.validFrom === undefined ? now : Date.parse(given.validFrom);
    const validUntil = given.validUntil === undefined ? NO_END : Date.parse(given.validUntil);
    if (validUntil <= validFrom) throw invalid('validUntil', 'must be after validFrom');
    if (!(await store.access.getAccount(input.accountId))) {
      throw invalid('accountId', `no account ${input.accountId}`);
    }
    if (externalId !== null) {
      const [other] = await store.access.listGrants({ provider, externalId }, { limit: 1 });
      if (other) throw duplicate(provider, externalId);
    }
    const grant: GrantRecord = {
      id: newId('grt'),
      accountId: input.accountId,
      provider,
      externalId,
      plan: given.plan,
      status: 'active',
      scopes,
      validFrom,
      validUntil,
      monthlyRequestLimit,
      requestsPerMinute,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await store.access.createGrant(grant, actor);
    } catch (err) {
      // Another request took the external id between the check and the write.
      if (err instanceof DuplicateError) throw duplicate(provider, externalId!);
      throw err;
    }
    return grantView(grant);
  });
}

export function getGrant(store: Store, _actor: Actor, { id }: { id: string }): Promise<Result<GrantView>> {
  return refusing(async () => {
    const grant = await store.access.getGrant(id);
    if (!grant) throw notFound(`no grant ${id}`);
    return grantView(grant);
  });
}

export function listGrants(
  store: Store,
  _actor: Actor,
  input: GrantListInput = {},
): Promise<Result<Page<GrantView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const filter = {
      ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
      ...(input.provider !== undefined ? { provider: input.provider } : {}),
      ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
      ...checked(GrantStatusFilter, { status: input.status }),
    };
    const rows = await store.access.listGrants(filter, page);
    return pageOf(rows, page, (g) => ({ at: g.createdAt, id: g.id }), grantView);
  });
}

export function updateGrant(
  store: Store,
  actor: Actor,
  input: GrantUpdateInput,
  options: OperationOptions = {},
): Promise<Result<GrantView>> {
  return refusing(async () => {
    const { id: _, ...fields } = input;
    const { validUntil, scopes, ...given } = checked(GrantPatch, fields);
    const patch: StoredGrantPatch = {
      ...given,
      ...(scopes !== undefined ? { scopes: withoutRepeats(scopes) } : {}),
      ...(validUntil !== undefined ? { validUntil: Date.parse(validUntil) } : {}),
    };
    const grant = await store.access.getGrant(input.id);
    if (!grant) throw notFound(`no grant ${input.id}`);
    if (patch.status !== undefined) checkTransition(grant.status, patch.status);
    if (patch.validUntil !== undefined && patch.validUntil <= grant.validFrom) {
      throw invalid('validUntil', 'must be after the grant starts');
    }
    try {
      const updated = await store.access.updateGrant(input.id, patch, options.now ?? Date.now(), actor);
      if (!updated) throw notFound(`no grant ${input.id}`);
      return grantView(updated);
    } catch (err) {
      // Cancelled by another request since it was read.
      if (err instanceof GrantCancelledError) throw conflict('a cancelled grant cannot be reopened');
      throw err;
    }
  });
}
