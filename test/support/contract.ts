/**
 * The contract suites' common set-up (test/storage/*.contract.test.ts). Apart
 * from backends.ts, which the global setup imports and where vitest cannot load.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../src/storage/store.js';
import { type BackendName, type Database, freshDatabase } from './backends.js';

/**
 * A fresh, migrated store for the enclosing `describe`, opened before its
 * tests and closed and dropped after them: the contract suites' common set-up.
 * The store is reached through a stand-in, since it exists only once the
 * block's `beforeAll` has run.
 */
export function migratedStore(name: BackendName): Store {
  let db: Database | undefined;
  let store: Store | undefined;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });
  return new Proxy({} as Store, {
    get(_, key) {
      if (!store) throw new Error('migratedStore: the store is opened by the block’s beforeAll');
      const value = Reflect.get(store, key, store);
      return typeof value === 'function' ? value.bind(store) : value;
    },
  });
}
