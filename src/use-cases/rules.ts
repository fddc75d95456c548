/**
 * How every operation judges what it is given, whoever calls it (the CLI or
 * the admin API; docs/decisions.md, 57): each field by the admin API's own
 * schema (`checked`, schemas/admin-check.ts), so both callers refuse the same
 * input with the same sentence; what no schema can say (one field against
 * another, against the store or the clock) in the operation itself. Also list
 * limits and cursors. A broken rule is a Refusal, caught by `refusing` at the
 * operation's edge and returned as its Result: operations never throw for a
 * refusal.
 */
import { randomBytes } from 'node:crypto';
import type { Static, TSchema } from '@sinclair/typebox';
import { PageSize } from '../schemas/admin.js';
import { check, forbiddenCharacters } from '../schemas/admin-check.js';
import type { KeysetPage } from '../storage/admin-records.js';
import type { ListOptions, OperationError, Page, Result } from './contract.js';

/** A refusal on its way to the operation's Result. */
export class Refusal extends Error {
  constructor(readonly error: OperationError) {
    super(error.message);
    this.name = 'Refusal';
  }
}

export const invalid = (field: string, message: string) => new Refusal({ kind: 'invalid', field, message });
export const notFound = (message: string) => new Refusal({ kind: 'not_found', message });
export const conflict = (message: string) => new Refusal({ kind: 'conflict', message });
export const forbidden = (scope: string, message: string) =>
  new Refusal({ kind: 'forbidden', scope, message });

/** Runs an operation's body: its value, or the refusal it threw as `{ ok: false }`. */
export async function refusing<T>(body: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await body() };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, error: err.error };
    throw err;
  }
}

/**
 * `input` by its admin schema (schemas/admin.ts): the value, its members left
 * undefined dropped, or a refusal naming the first field that breaks its rule
 * (the admin API's validator, with the same check, names every one).
 */
export function checked<T extends TSchema>(schema: T, input: unknown): Static<T> {
  const result = check(schema, input);
  if (result.ok) return result.value;
  const [first] = result.problems;
  throw invalid(first!.field, first!.message);
}

/** What every changing operation may be given besides its input (tests pin the clock). */
export interface OperationOptions {
  now?: number;
}

/** Far enough to mean "no end" while staying a valid timestamp for /v1/me. */
export const NO_END = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const newId = (prefix: string) =>
  `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').toLowerCase()}`;

const DEFAULT_LIMIT = 100;

/**
 * A list's page as the store reads it: one more than asked, so that whether a
 * next page exists is known without another query.
 */
export function keysetOf(options: ListOptions): KeysetPage {
  // A list's filters and cursor, whoever gives them: no character an admin input may not hold.
  const forbidden = forbiddenCharacters(options);
  if (forbidden) throw invalid(forbidden.field, forbidden.message);
  const { limit = DEFAULT_LIMIT } = checked(PageSize, { limit: options.limit });
  const page: KeysetPage = { limit: limit + 1 };
  if (options.cursor !== undefined) page.after = decodeCursor(options.cursor);
  return page;
}

/** The page of `rows` (read with keysetOf) and the cursor to the next one. */
export function pageOf<R, T>(
  rows: R[],
  page: KeysetPage,
  position: (row: R) => { at: number; id: string },
  view: (row: R) => T,
): Page<T> {
  const limit = page.limit - 1;
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(view),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null,
  };
}

/** Opaque to callers: the last item's time and id. */
function encodeCursor(p: { at: number; id: string }): string {
  return Buffer.from(JSON.stringify([p.at, p.id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: number; id: string } {
  try {
    if (cursor.length <= 200) {
      const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
      const ok = Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string';
      // An id with a control character is no id this list gave (PostgreSQL would refuse a NUL with a 500).
      if (ok && forbiddenCharacters(v[1]) === null) {
        return { at: v[0] as number, id: v[1] };
      }
    }
  } catch {
    // Refused below, as any other text that is not a cursor.
  }
  throw invalid('cursor', 'is not a cursor this list gave: pass the nextCursor of the previous page');
}
