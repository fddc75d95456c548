/**
 * The store: one repository per aggregate, each an interface of its own in
 * repositories/ with its contract suite on both backends (test/storage/), and
 * what belongs to the store as a whole (migrations, health, change counters,
 * settings). Callers take the repository they need (`store.access`,
 * `store.usage`…). Two backends implement them (SQLite for the embedded
 * default, PostgreSQL for scale-out): the queries both share are Kysely
 * classes (kysely/), which each backend extends with what it writes its own
 * way (sqlite-*.ts, postgres*.ts). Adding a storage method touches its
 * repository's interface and its implementations, nothing else.
 *
 * Every method of every repository fails with StoreUnavailableError
 * (errors.ts) when the backend cannot serve now; other errors are bugs or
 * refusals (UnknownAssetsError, DuplicateError, GrantCancelledError).
 */
import type { AccessRepository } from './repositories/access.js';
import type { ConsensusRepository } from './repositories/consensus.js';
import type { ImportRepository } from './repositories/imports.js';
import type { MarketRepository } from './repositories/market.js';
import type { OperatorRepository } from './repositories/operator.js';
import type { ReporterRepository } from './repositories/reporters.js';
import type { UsageRepository } from './repositories/usage.js';
import type { WebhookRepository } from './repositories/webhooks.js';
import type { StoreSpace } from './space.js';

export type StoreDialect = 'sqlite' | 'postgres';

export interface Versions {
  data: number;
  access: number;
}

export interface Store {
  readonly dialect: StoreDialect;
  /** Where it was opened (a file path or a postgres:// URL): another connection to it opens from this (an import's thread). */
  readonly url: string;
  readonly market: MarketRepository;
  readonly imports: ImportRepository;
  readonly access: AccessRepository;
  readonly usage: UsageRepository;
  readonly operator: OperatorRepository;
  readonly webhooks: WebhookRepository;
  readonly reporters: ReporterRepository;
  readonly consensus: ConsensusRepository;
  /** Whether a write was refused for lack of space and no probe has succeeded since (space.ts). */
  readonly space: StoreSpace;
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Change counters: `data` moves on every import, `access` on every account change. */
  versions(): Promise<Versions>;
  setting(name: string): Promise<string | undefined>;
}

// The records and the repositories, for callers that name them.
export type {
  AccountRecord,
  AdminTokenRecord,
  GrantRecord,
  GrantStatus,
  KeyRecord,
} from './admin-records.js';
export {
  DuplicateError,
  GrantCancelledError,
} from './admin-records.js';
export type { AccessRepository } from './repositories/access.js';
export type { ImportBatch, ImportOptions, ImportRepository } from './repositories/imports.js';
export { UnknownAssetsError } from './repositories/imports.js';
export type { MarketRepository } from './repositories/market.js';
export type { OperatorRepository } from './repositories/operator.js';
export type {
  ConsumeOutcome,
  ConsumeRequest,
  UsageIncrement,
  UsageRepository,
} from './repositories/usage.js';
export type { WebhookRepository } from './repositories/webhooks.js';
