/**
 * A Store from its repositories: the Kysely classes both backends share, as
 * each backend extends them (sqlite.ts, postgres.ts), and what belongs to the
 * store as a whole (database.ts). Every failure the backend's driver reports
 * as an outage leaves every method as StoreUnavailableError (errors.ts).
 */
import { guarded, type UnavailableTest } from '../errors.js';
import { SpaceMonitor } from '../space.js';
import type { Store, StoreDialect } from '../store.js';
import { type Db, migrate, ping, setting, versions } from './database.js';

export type Repositories = Pick<
  Store,
  'market' | 'imports' | 'access' | 'usage' | 'operator' | 'webhooks' | 'reporters' | 'consensus'
>;

export function assembleStore(
  dialect: StoreDialect,
  url: string,
  db: Db,
  repositories: Repositories,
  /** Releases what the backend holds, then the Kysely handle. */
  close: () => Promise<void>,
  unavailable: UnavailableTest,
  /** A write that needs space and keeps nothing (space.ts): the probe of a full store. */
  probeSpace: () => Promise<void>,
): Store {
  const space = new SpaceMonitor(probeSpace);
  const own = <T extends object>(repository: T): T => guarded(repository, unavailable, space.observe);
  return guarded<Store>(
    {
      dialect,
      space,
      url,
      market: own(repositories.market),
      imports: own(repositories.imports),
      access: own(repositories.access),
      usage: own(repositories.usage),
      operator: own(repositories.operator),
      webhooks: own(repositories.webhooks),
      reporters: own(repositories.reporters),
      consensus: own(repositories.consensus),
      migrate: () => migrate(db, dialect),
      ping: () => ping(db),
      close: async () => {
        space.close();
        await close();
      },
      versions: () => versions(db),
      setting: (name) => setting(db, name),
    },
    unavailable,
    space.observe,
  );
}
