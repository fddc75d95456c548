/**
 * Migration 0013_sealed_idempotent_answers (listed in migrations/index.ts;
 * never edited once released): idempotent answers are stored sealed from now
 * on (domain/sealed-answers.ts, docs/decisions.md 104); an answer stored in
 * plain text before that which holds a secret (a key created or rolled, a
 * webhook secret, an admin token) is deleted, so that no secret stays at rest.
 * The key of such a request is free again: a retry under it runs as a new
 * request. Answers without a secret stay and replay as they were stored.
 */
import type { Kysely, Migration } from 'kysely';

/** The members of an answer's `data` that hold a secret shown once. */
const SECRET_MEMBERS = ['key', 'secret', 'token'] as const;

function holdsSecret(body: string): boolean {
  try {
    const data = (JSON.parse(body) as { data?: Record<string, unknown> }).data;
    return (
      data !== null && typeof data === 'object' && SECRET_MEMBERS.some((m) => typeof data[m] === 'string')
    );
  } catch {
    return false;
  }
}

export const sealedIdempotentAnswersMigration: Migration = {
  async up(untyped: Kysely<unknown>) {
    // The table as 0006 made it, the part this migration reads.
    const db = untyped as Kysely<{ idempotency_keys: { actor: string; key: string; body: string | null } }>;
    const rows = await db
      .selectFrom('idempotency_keys')
      .select(['actor', 'key', 'body'])
      .where('body', 'is not', null)
      .execute();
    for (const row of rows) {
      if (row.body === null || !holdsSecret(row.body)) continue;
      await db
        .deleteFrom('idempotency_keys')
        .where('actor', '=', row.actor)
        .where('key', '=', row.key)
        .execute();
    }
  },
};
