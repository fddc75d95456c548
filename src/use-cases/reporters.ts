/**
 * Organisations and the street-rate reporters who quote for them
 * (docs/decisions.md 108), one set of operations behind `mds organisations …`,
 * `mds reporters …` and /admin/v1/organisations, /admin/v1/reporters. A
 * reporter's token is returned once, by the create and the roll; the store
 * keeps its SHA-256 digest.
 */
import { bearerTokenFormat } from '../domain/bearer-tokens.js';
import { PURITIES } from '../domain/types.js';
import { DEFAULT_GRACE_PERIOD_SECONDS } from '../schemas/admin.js';
import {
  OrganisationCreate,
  ReporterCreate,
  ReporterPatch,
  ReporterRoll,
} from '../schemas/admin-reporters.js';
import type { OrganisationRecord, ReporterRecord, ReporterTokenRecord } from '../storage/reporter-records.js';
import { DuplicateError, type Store } from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import { flaggingOf } from './reporter-watch.js';
import {
  checked,
  conflict,
  invalid,
  keysetOf,
  newId,
  notFound,
  type OperationOptions,
  pageOf,
  refusing,
} from './rules.js';
import { iso } from './views.js';

export const reporterTokens = bearerTokenFormat('mdsrep_', 'rtk_');

export interface OrganisationView {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface ReporterView {
  id: string;
  label: string;
  organisationId: string;
  markets: string[];
  status: ReporterRecord['status'];
  createdAt: string;
  updatedAt: string;
}

const organisationView = (o: OrganisationRecord): OrganisationView => ({
  id: o.id,
  name: o.name,
  createdAt: iso(o.createdAt)!,
  updatedAt: iso(o.updatedAt)!,
});

const reporterView = (r: ReporterRecord): ReporterView => ({
  id: r.id,
  label: r.label,
  organisationId: r.organisationId,
  markets: r.markets,
  status: r.status,
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
});

export function createOrganisation(
  store: Store,
  actor: Actor,
  input: OrganisationCreate,
  options: OperationOptions = {},
): Promise<Result<OrganisationView>> {
  return refusing(async () => {
    const { name } = checked(OrganisationCreate, input);
    const now = options.now ?? Date.now();
    const record: OrganisationRecord = {
      id: newId('org'),
      name: name.trim(),
      createdAt: now,
      updatedAt: now,
    };
    try {
      await store.reporters.createOrganisation(record, actor);
    } catch (err) {
      if (err instanceof DuplicateError)
        throw conflict(`an organisation is already named ${JSON.stringify(record.name)}`);
      throw err;
    }
    return organisationView(record);
  });
}

export function listOrganisations(
  store: Store,
  _actor: Actor,
  input: ListOptions = {},
): Promise<Result<Page<OrganisationView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const rows = await store.reporters.listOrganisations(page);
    return pageOf(rows, page, (o) => ({ at: o.createdAt, id: o.id }), organisationView);
  });
}

/** Markets the directory knows: a currency's parallel rate or a gold purity. */
async function knownMarkets(store: Store, markets: readonly string[]): Promise<string[]> {
  const currencies = new Set(
    (await store.market.listAssets())
      .filter((a) => a.type === 'currency' && a.code !== 'DZD')
      .map((a) => a.code),
  );
  const unknown = markets.filter((m) => !currencies.has(m) && !(PURITIES as readonly string[]).includes(m));
  if (unknown.length > 0) {
    throw invalid(
      'markets',
      `${unknown.map((m) => JSON.stringify(m)).join(', ')} is not a market: give a currency of the asset directory (mds import assets) or one of ${PURITIES.join(', ')}`,
    );
  }
  return [...markets];
}

async function existingOrganisation(store: Store, id: string): Promise<void> {
  if (!(await store.reporters.getOrganisation(id))) {
    throw invalid(
      'organisationId',
      `no organisation ${JSON.stringify(id)}: create it first (mds organisations create)`,
    );
  }
}

function newToken(reporterId: string, now: number): { token: string; record: ReporterTokenRecord } {
  const generated = reporterTokens.generate();
  return {
    token: generated.token,
    record: {
      publicId: generated.publicId,
      reporterId,
      digest: generated.digest,
      createdAt: now,
      expiresAt: null,
      revokedAt: null,
    },
  };
}

export function createReporter(
  store: Store,
  actor: Actor,
  input: ReporterCreate,
  options: OperationOptions = {},
): Promise<Result<{ token: string; reporter: ReporterView }>> {
  return refusing(async () => {
    const given = checked(ReporterCreate, input);
    await existingOrganisation(store, given.organisationId);
    const now = options.now ?? Date.now();
    const record: ReporterRecord = {
      id: newId('rep'),
      label: given.label.trim(),
      organisationId: given.organisationId,
      markets: await knownMarkets(store, given.markets),
      status: 'active',
      createdAt: now,
      updatedAt: now,
    };
    const token = newToken(record.id, now);
    await store.reporters.createReporter(record, token.record, actor);
    return { token: token.token, reporter: reporterView(record) };
  });
}

export function getReporter(
  store: Store,
  _actor: Actor,
  { id }: { id: string },
): Promise<Result<ReporterView>> {
  return refusing(async () => reporterView(await existing(store, id)));
}

/** A reporter as the lists show it: flagged when its own quotes fail the exclusion test too often (decisions 117). */
export type ListedReporterView = ReporterView & { flagged: boolean };

export function listReporters(
  store: Store,
  _actor: Actor,
  input: ListOptions & { organisationId?: string } = {},
): Promise<Result<Page<ListedReporterView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const filter = input.organisationId === undefined ? {} : { organisationId: input.organisationId };
    const rows = await store.reporters.listReporters(filter, page);
    const flagged = new Map<string, boolean>();
    for (const r of rows) flagged.set(r.id, (await flaggingOf(store, r.id)).flagged);
    return pageOf(
      rows,
      page,
      (r) => ({ at: r.createdAt, id: r.id }),
      (r) => ({ ...reporterView(r), flagged: flagged.get(r.id) ?? false }),
    );
  });
}

async function existing(store: Store, id: string): Promise<ReporterRecord> {
  const reporter = await store.reporters.getReporter(id);
  if (!reporter) throw notFound(`no reporter ${id}`);
  return reporter;
}

/** A removed reporter stays removed: its quotes stay stored, its tokens never work again. */
async function changeable(store: Store, id: string): Promise<ReporterRecord> {
  const reporter = await existing(store, id);
  if (reporter.status === 'removed') throw conflict(`reporter ${id} was removed; create a new one`);
  return reporter;
}

export function updateReporter(
  store: Store,
  actor: Actor,
  input: ReporterPatch & { id: string },
  options: OperationOptions = {},
): Promise<Result<ReporterView>> {
  return refusing(async () => {
    const { id, ...fields } = input;
    const patch = checked(ReporterPatch, fields);
    await changeable(store, id);
    if (patch.organisationId !== undefined) await existingOrganisation(store, patch.organisationId);
    if (patch.markets !== undefined) patch.markets = await knownMarkets(store, patch.markets);
    if (patch.label !== undefined) patch.label = patch.label.trim();
    const updated = await store.reporters.updateReporter(id, patch, options.now ?? Date.now(), actor);
    if (!updated) throw notFound(`no reporter ${id}`);
    return reporterView(updated);
  });
}

/** Final: its tokens stop at once; its past quotes stay, so published points stay explainable. */
export function removeReporter(
  store: Store,
  actor: Actor,
  { id }: { id: string },
  options: OperationOptions = {},
): Promise<Result<ReporterView>> {
  return refusing(async () => {
    const reporter = await existing(store, id);
    if (reporter.status === 'removed') return reporterView(reporter);
    const updated = await store.reporters.updateReporter(
      id,
      { status: 'removed' },
      options.now ?? Date.now(),
      actor,
    );
    return reporterView(updated ?? reporter);
  });
}

export function rollReporterToken(
  store: Store,
  actor: Actor,
  input: ReporterRoll & { id: string },
  options: OperationOptions = {},
): Promise<Result<{ token: string; reporter: ReporterView; previousExpiresAt: string }>> {
  return refusing(async () => {
    const { id, ...fields } = input;
    const grace = checked(ReporterRoll, fields).gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    const reporter = await changeable(store, id);
    const now = options.now ?? Date.now();
    const token = newToken(id, now);
    const until = now + grace * 1000;
    await store.reporters.rollReporterToken(id, token.record, until, now, actor);
    return { token: token.token, reporter: reporterView(reporter), previousExpiresAt: iso(until)! };
  });
}
