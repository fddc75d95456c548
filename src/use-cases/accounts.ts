/**
 * Accounts (docs/decisions.md, 57): created, listed, read and changed the same
 * way from the CLI and the admin API. `externalId` is the billing system's
 * customer id, unique across accounts.
 */
import { AccountCreate, AccountPatch } from '../schemas/admin.js';
import { DuplicateError, type Store } from '../storage/store.js';
import type { Actor, ListOptions, Page, Result } from './contract.js';
import {
  checked,
  conflict,
  keysetOf,
  newId,
  notFound,
  type OperationOptions,
  pageOf,
  refusing,
} from './rules.js';
import { type AccountView, accountView } from './views.js';

export interface AccountInput {
  name?: string | null;
  email?: string | null;
  externalId?: string | null;
}

export interface AccountListInput extends ListOptions {
  externalId?: string;
  email?: string;
}

const duplicate = (externalId: string) =>
  conflict(`externalId ${externalId} already belongs to another account`);

async function assertFreeExternalId(store: Store, externalId: string | null | undefined, self?: string) {
  if (externalId == null) return;
  const [other] = await store.access.listAccounts({ externalId }, { limit: 1 });
  if (other && other.id !== self) throw duplicate(externalId);
}

export function createAccount(
  store: Store,
  actor: Actor,
  input: AccountInput,
  options: OperationOptions = {},
): Promise<Result<AccountView>> {
  return refusing(async () => {
    const fields = checked(AccountCreate, input);
    await assertFreeExternalId(store, fields.externalId);
    const now = options.now ?? Date.now();
    const account = {
      id: newId('acc'),
      name: fields.name ?? null,
      email: fields.email ?? null,
      externalId: fields.externalId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await store.access.createAccount(account, actor);
    } catch (err) {
      // Another request took the external id between the check and the write.
      if (err instanceof DuplicateError) throw duplicate(account.externalId!);
      throw err;
    }
    return accountView(account);
  });
}

export function getAccount(
  store: Store,
  _actor: Actor,
  { id }: { id: string },
): Promise<Result<AccountView>> {
  return refusing(async () => {
    const account = await store.access.getAccount(id);
    if (!account) throw notFound(`no account ${id}`);
    return accountView(account);
  });
}

export function listAccounts(
  store: Store,
  _actor: Actor,
  input: AccountListInput = {},
): Promise<Result<Page<AccountView>>> {
  return refusing(async () => {
    const page = keysetOf(input);
    const filter = {
      ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
    };
    const rows = await store.access.listAccounts(filter, page);
    return pageOf(rows, page, (a) => ({ at: a.createdAt, id: a.id }), accountView);
  });
}

export function updateAccount(
  store: Store,
  actor: Actor,
  input: AccountInput & { id: string },
  options: OperationOptions = {},
): Promise<Result<AccountView>> {
  return refusing(async () => {
    const { id: _, ...given } = input;
    const patch = checked(AccountPatch, given);
    if (!(await store.access.getAccount(input.id))) throw notFound(`no account ${input.id}`);
    await assertFreeExternalId(store, patch.externalId, input.id);
    try {
      const updated = await store.access.updateAccount(input.id, patch, options.now ?? Date.now(), actor);
      if (!updated) throw notFound(`no account ${input.id}`);
      return accountView(updated);
    } catch (err) {
      if (err instanceof DuplicateError) throw duplicate(patch.externalId!);
      throw err;
    }
  });
}
