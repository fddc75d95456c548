/**
 * What the CLI's commands share when they call an operation (src/use-cases/,
 * docs/decisions.md, 57): the CLI's actor, the refusal as a sentence naming
 * the option (not the admin API's field), whole lists read page by page, and
 * options turned into the operations' input.
 */
import { userInfo } from 'node:os';
import { AdminError } from '../access/admin-error.js';
import type { Actor, OperationError, Page, Result } from '../use-cases/contract.js';

/** The CLI acts as `cli`, labelled with the operating-system user who ran it. */
export function cliActor(): Actor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No entry for this uid (a container's arbitrary user): the actor is still `cli`.
  }
  return { id: 'cli', label: user, requestId: null };
}

/** The option that gives each field of the operations' input. */
const OPTIONS: Record<string, string> = {
  accountId: '--account',
  grantId: '--grant',
  name: '--name',
  email: '--email',
  externalId: '--external-id',
  plan: '--plan',
  provider: '--provider',
  scopes: '--scopes',
  monthlyRequestLimit: '--monthly-limit',
  requestsPerMinute: '--rpm',
  status: '--status',
  validFrom: '--valid-from',
  validUntil: '--valid-until',
  label: '--label',
  environment: '--environment',
  expiresAt: '--expires-at',
  gracePeriodSeconds: '--grace-period',
  from: '--since',
  to: '--until',
  limit: '--limit',
  cursor: '--cursor',
  organisationId: '--organisation',
  markets: '--markets',
  currency: '--currency',
  source: '--source',
  purity: '--purity',
  at: '--at',
  reason: '--reason',
  since: '--since',
};

/** Fields a message names (validFrom…): the camel-cased ones, never an English word like "plan". */
const FIELD_NAMES = new RegExp(
  `\\b(${Object.keys(OPTIONS)
    .filter((f) => /[A-Z]/.test(f))
    .join('|')})\\b`,
  'g',
);

/**
 * A refusal as the CLI says it: `--option: what is wrong`, or `--option is
 * required`, in the admin API's words (an item of a list, `scopes.1`, is its option's).
 */
export function refusalMessage(error: OperationError): string {
  if (error.kind !== 'invalid') return error.message;
  const name = error.field.split('.')[0]!;
  const option = OPTIONS[name] ?? error.field;
  const message = error.message.replace(FIELD_NAMES, (f) => OPTIONS[f] ?? f);
  return message.startsWith('is required') ? `${option} ${message}` : `${option}: ${message}`;
}

/** The operation's value; its refusal becomes an AdminError (printed on stderr, exit code 2). */
export function outcome<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new AdminError(refusalMessage(result.error));
}

/** Every item of a list, page after page. */
export async function everything<T>(
  page: (cursor: string | undefined) => Promise<Result<Page<T>>>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = outcome(await page(cursor));
    items.push(...next.items);
    cursor = next.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

export const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** A whole number option as a number for the operation to judge: NaN when it is not digits. */
export const wholeNumber = (v: unknown): number | undefined =>
  v === undefined ? undefined : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : Number.NaN;

/** A comma-separated option as a list, each item trimmed, empty ones left out (`a, b,` is `a` and `b`). */
export const list = (v: unknown): string[] | undefined =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** An instant option: a bare date (2027-01-01) is midnight UTC; anything else goes to the operation as given. */
export const instant = (v: unknown): string | undefined =>
  typeof v !== 'string' ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
