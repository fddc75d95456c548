import { openStore } from '../storage/open.js';
import type { Store } from '../storage/store.js';

/** Runs `fn` on the store at `url`, migrated first, and closes it. */
export async function withStore<T>(url: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}
