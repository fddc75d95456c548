/**
 * The two callers of the operator's operations (docs/decisions.md 57, 58, 62)
 * behind one interface, for the contract suite (contract.test.ts): the `mds`
 * CLI with `--json` (its main, in this process: the flows in test/cli run the
 * built executable), and the admin API under /admin/v1 with a token
 * holding every scope. Each method answers a normalised outcome: the value the
 * caller gives (its envelope removed) or the kind of its refusal.
 */
import { userInfo } from 'node:os';
import type { AdminHarness } from '../support/admin.js';
import { type Json, mdsInProcess as mds } from '../support/cli.js';

export type Kind = 'invalid' | 'not_found' | 'conflict';
export type Outcome<T = Json> = { ok: true; value: T } | { ok: false; kind: Kind };

export interface AccountInput {
  name?: string;
  email?: string;
  externalId?: string;
}
export interface GrantInput {
  accountId: string;
  plan: string;
  scopes?: string[];
  monthlyRequestLimit?: number;
  requestsPerMinute?: number;
  provider?: string;
  externalId?: string;
  validFrom?: string;
  validUntil?: string;
}
export interface GrantPatch {
  status?: string;
  scopes?: string[];
  monthlyRequestLimit?: number;
  requestsPerMinute?: number;
  validUntil?: string;
}
export interface KeyInput {
  grantId: string;
  label?: string;
  environment?: string;
  scopes?: string[];
  expiresAt?: string;
}
export interface AuditFilter {
  actor?: string;
  targetId?: string;
  action?: string;
  from?: string;
  to?: string;
}

/** Who the audit log names as the actor of a change. */
export interface AuditActor {
  id: string;
  label: string;
}

export interface Driver {
  name: 'cli' | 'api';
  /** The actor of the changes this driver makes. */
  actor: AuditActor;
  /** The actor of admin token changes (the admin API has no admin token routes: the CLI makes them). */
  adminTokenActor: AuditActor;
  createAccount(input: AccountInput): Promise<Outcome>;
  listAccounts(filter: { externalId?: string; email?: string }): Promise<Outcome<Json[]>>;
  getAccount(id: string): Promise<Outcome>;
  updateAccount(id: string, patch: AccountInput): Promise<Outcome>;
  createGrant(input: GrantInput): Promise<Outcome>;
  listGrants(filter: {
    accountId?: string;
    provider?: string;
    externalId?: string;
    status?: string;
  }): Promise<Outcome<Json[]>>;
  getGrant(id: string): Promise<Outcome>;
  updateGrant(id: string, patch: GrantPatch): Promise<Outcome>;
  createKey(input: KeyInput): Promise<Outcome>;
  listKeys(filter: { grantId?: string; accountId?: string }): Promise<Outcome<Json[]>>;
  getKey(publicId: string): Promise<Outcome>;
  revokeKey(publicId: string): Promise<Outcome>;
  rollKey(publicId: string, gracePeriodSeconds?: number): Promise<Outcome>;
  createAdminToken(input: { label: string; scopes: string[] }): Promise<Outcome>;
  listAdminTokens(): Promise<Outcome<Json[]>>;
  revokeAdminToken(publicId: string): Promise<Outcome>;
  /** Every record (all pages), newest first. */
  listAudit(filter?: AuditFilter): Promise<Outcome<Json[]>>;
  dailyUsage(input: { grantId: string; from?: string; to?: string }): Promise<Outcome>;
  /** `{ month, lines }`. */
  statement(input: { month?: string }): Promise<Outcome>;
}

// ---- The CLI ----------------------------------------------------------------------

/** The CLI's options for a driver input, undefined ones left out. */
function options(pairs: Array<[string, string | number | string[] | undefined]>): string[] {
  return pairs.flatMap(([flag, v]) =>
    v === undefined ? [] : [flag, Array.isArray(v) ? v.join(',') : String(v)],
  );
}

/**
 * The kind of a CLI refusal. The CLI exits 2 for every refusal of an
 * operation (src/cli/operation.ts `outcome`), so the kind is read from the
 * message: an invalid field names its option (`--account: …`), a missing
 * record is `no <what> <id>`, and the rest are the operations' conflicts.
 */
export function cliKind(message: string): Kind {
  if (message.startsWith('--')) return 'invalid';
  if (/^no (account|grant|key|admin token) \S+$/.test(message)) return 'not_found';
  if (
    /already (belongs to|has a grant)|cannot be reopened|is revoked: create|has expired: create|is cancelled$/.test(
      message,
    )
  )
    return 'conflict';
  return 'invalid';
}

export function cliDriver(db: string): Driver {
  const run = async (args: string[], pick: (doc: Json) => Json = (d) => d): Promise<Outcome> => {
    const r = await mds([...args, '--json'], { db });
    if (r.status === 0) return { ok: true, value: pick(r.json()) };
    if (r.status === 2) return { ok: false, kind: cliKind(r.errorJson().error.message) };
    throw new Error(`mds ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  };
  /**
   * The CLI has no `get` of an account, a grant or a key: the driver finds
   * the record in the whole list, and answers not_found when it is not there.
   */
  const find = async (list: Promise<Outcome<Json[]>>, field: string, id: string): Promise<Outcome> => {
    const all = await list;
    if (!all.ok) return all;
    const found = all.value.find((r: Json) => r[field] === id);
    return found === undefined ? { ok: false, kind: 'not_found' } : { ok: true, value: found };
  };
  const actor = { id: 'cli', label: userInfo().username };
  const driver: Driver = {
    name: 'cli',
    actor,
    adminTokenActor: actor,
    createAccount: (i) =>
      run([
        'accounts',
        'create',
        ...options([
          ['--name', i.name],
          ['--email', i.email],
          ['--external-id', i.externalId],
        ]),
      ]),
    listAccounts: (f) =>
      run(
        [
          'accounts',
          'list',
          ...options([
            ['--external-id', f.externalId],
            ['--email', f.email],
          ]),
        ],
        (d) => d.accounts,
      ),
    getAccount: (id) => find(driver.listAccounts({}), 'id', id),
    updateAccount: (id, p) =>
      run(
        [
          'accounts',
          'update',
          id,
          ...options([
            ['--name', p.name],
            ['--email', p.email],
            ['--external-id', p.externalId],
          ]),
        ],
        (d) => d.account,
      ),
    createGrant: (i) =>
      run(
        [
          'grants',
          'create',
          ...options([
            ['--account', i.accountId],
            ['--plan', i.plan],
            ['--scopes', i.scopes],
            ['--monthly-limit', i.monthlyRequestLimit],
            ['--rpm', i.requestsPerMinute],
            ['--provider', i.provider],
            ['--external-id', i.externalId],
            ['--valid-from', i.validFrom],
            ['--valid-until', i.validUntil],
          ]),
        ],
        (d) => d.grant,
      ),
    listGrants: (f) =>
      run(
        [
          'grants',
          'list',
          ...options([
            ['--account', f.accountId],
            ['--provider', f.provider],
            ['--external-id', f.externalId],
            ['--status', f.status],
          ]),
        ],
        (d) => d.grants,
      ),
    getGrant: (id) => find(driver.listGrants({}), 'id', id),
    updateGrant: (id, p) =>
      run(
        [
          'grants',
          'update',
          id,
          ...options([
            ['--status', p.status],
            ['--scopes', p.scopes],
            ['--monthly-limit', p.monthlyRequestLimit],
            ['--rpm', p.requestsPerMinute],
            ['--valid-until', p.validUntil],
          ]),
        ],
        (d) => d.grant,
      ),
    createKey: (i) =>
      run([
        'keys',
        'create',
        ...options([
          ['--grant', i.grantId],
          ['--label', i.label],
          ['--environment', i.environment],
          ['--scopes', i.scopes],
          ['--expires-at', i.expiresAt],
        ]),
      ]),
    listKeys: (f) =>
      run(
        [
          'keys',
          'list',
          ...options([
            ['--grant', f.grantId],
            ['--account', f.accountId],
          ]),
        ],
        (d) => d.keys,
      ),
    getKey: (publicId) => find(driver.listKeys({}), 'publicId', publicId),
    revokeKey: (publicId) => run(['keys', 'revoke', publicId]),
    rollKey: (publicId, grace) => run(['keys', 'roll', publicId, ...options([['--grace-period', grace]])]),
    createAdminToken: (i) =>
      run([
        'admin-tokens',
        'create',
        ...options([
          ['--label', i.label],
          ['--scopes', i.scopes],
        ]),
      ]),
    listAdminTokens: () => run(['admin-tokens', 'list'], (d) => d.adminTokens),
    revokeAdminToken: (publicId) => run(['admin-tokens', 'revoke', publicId]),
    async listAudit(f = {}) {
      const records: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = await run(
          [
            'audit',
            '--limit',
            '1000',
            ...options([
              ['--actor', f.actor],
              ['--target', f.targetId],
              ['--action', f.action],
              ['--since', f.from],
              ['--until', f.to],
              ['--cursor', cursor],
            ]),
          ],
          (d) => d,
        );
        if (!page.ok) return page;
        records.push(...page.value.records);
        cursor = page.value.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return { ok: true, value: records };
    },
    dailyUsage: (i) =>
      run([
        'usage',
        i.grantId,
        '--daily',
        ...options([
          ['--from', i.from],
          ['--to', i.to],
        ]),
      ]),
    statement: (i) => run(['usage', 'statement', ...options([['--month', i.month]])]),
  };
  return driver;
}

// ---- The admin API ----------------------------------------------------------------

const KINDS: Record<number, Kind> = { 400: 'invalid', 404: 'not_found', 409: 'conflict' };

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The admin API on the harness's admin app (every answer checked against
 * /admin/openapi.json), with a token holding every scope. It has no admin
 * token routes: those three operations go through the CLI on the same
 * database (`cli`), as an operator makes admin tokens.
 */
export async function apiDriver(h: AdminHarness, label = 'contract suite'): Promise<Driver> {
  const { token, publicId } = await h.token(undefined, label);
  const call = async (method: string, url: string, body?: unknown): Promise<Outcome> => {
    const res = await h.call(method, `/admin/v1${url}`, {
      token,
      ...(body === undefined ? {} : { body }),
    });
    if (res.statusCode === 200 || res.statusCode === 201) return { ok: true, value: res.json() };
    const kind = KINDS[res.statusCode];
    if (!kind) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return { ok: false, kind };
  };
  const data = async (method: string, url: string, body?: unknown) => {
    const r = await call(method, url, body);
    return r.ok ? { ok: true as const, value: r.value.data } : r;
  };
  /** Every page of a list. */
  const all = async (url: string, params: Record<string, string | undefined>): Promise<Outcome<Json[]>> => {
    const items: Json[] = [];
    let cursor: string | undefined;
    do {
      const r = await call('GET', `${url}${query({ ...params, limit: '1000', cursor })}`);
      if (!r.ok) return r;
      items.push(...r.value.data);
      cursor = r.value.meta.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return { ok: true, value: items };
  };
  const cli = cliDriver(h.db.url);
  return {
    name: 'api',
    actor: { id: publicId, label },
    adminTokenActor: cli.actor,
    createAccount: (i) => data('POST', '/accounts', i),
    listAccounts: (f) => all('/accounts', f),
    getAccount: (id) => data('GET', `/accounts/${encodeURIComponent(id)}`),
    updateAccount: (id, p) => data('PATCH', `/accounts/${encodeURIComponent(id)}`, p),
    createGrant: (i) => data('POST', '/grants', i),
    listGrants: (f) => all('/grants', f),
    getGrant: (id) => data('GET', `/grants/${encodeURIComponent(id)}`),
    updateGrant: (id, p) => data('PATCH', `/grants/${encodeURIComponent(id)}`, p),
    createKey: (i) => data('POST', '/keys', i),
    listKeys: (f) => all('/keys', f),
    getKey: (id) => data('GET', `/keys/${encodeURIComponent(id)}`),
    revokeKey: (id) => data('POST', `/keys/${encodeURIComponent(id)}/revoke`),
    rollKey: (id, grace) =>
      data(
        'POST',
        `/keys/${encodeURIComponent(id)}/roll`,
        grace === undefined ? {} : { gracePeriodSeconds: grace },
      ),
    createAdminToken: cli.createAdminToken,
    listAdminTokens: cli.listAdminTokens,
    revokeAdminToken: cli.revokeAdminToken,
    listAudit: (f = {}) => all('/audit', { ...f }),
    dailyUsage: (i) =>
      data('GET', `/grants/${encodeURIComponent(i.grantId)}/usage/daily${query({ from: i.from, to: i.to })}`),
    async statement(i) {
      const r = await call('GET', `/usage/statement${query({ month: i.month })}`);
      return r.ok ? { ok: true, value: { month: r.value.meta.month, lines: r.value.data } } : r;
    },
  };
}
