/**
 * The operator's operations (accounts, grants, keys, admin tokens, audit,
 * usage), one set behind the CLI and the admin API (docs/decisions.md, 57).
 * This file is the contract both callers are written against: the types and
 * the signatures; each operation lives in its own module of this folder.
 *
 * Every operation that changes something appends one audit record in the same
 * transaction as the change, with its actor; none returns a secret except the
 * ones that create it (a key, an admin token), once.
 */

/** Who makes a change: an admin token, the CLI (with the operating-system user), or the service itself. */
export interface Actor {
  /** `adm_…` (an admin token's public id), `cli` or `system`. */
  id: string;
  /** The token's label, the operating-system user, or `system`. */
  label: string;
  /** The admin API request's id (X-Request-Id), or null from the CLI. */
  requestId: string | null;
  /**
   * The admin scopes the actor holds: an admin token's. Undefined: every one
   * (the CLI, run by whoever may read the store, and the service itself).
   */
  scopes?: readonly string[];
}

/** A refusal the caller can explain: the admin API maps `kind` to a status, the CLI to an exit code. */
export type OperationError =
  | { kind: 'invalid'; field: string; message: string } // 400
  | { kind: 'not_found'; message: string } // 404
  | { kind: 'conflict'; message: string } // 409 (a duplicate externalId, an illegal grant transition)
  | { kind: 'forbidden'; scope: string; message: string }; // 403 (a scope the actor would give without holding it)

export type Result<T> = { ok: true; value: T } | { ok: false; error: OperationError };

/** A page of a list, newest or oldest first as the list says, with an opaque cursor to the next one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface ListOptions {
  /** 1..1000, default 100. */
  limit?: number;
  cursor?: string;
}
