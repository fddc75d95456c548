/**
 * Holds the current MarketSnapshot and rebuilds it when the store's `data`
 * version moves. Requests never wait for a rebuild: they read the snapshot that
 * is current when they run.
 */

import type { Store } from '../storage/store.js';
import { loadQualities } from './quality.js';
import { MarketSnapshot } from './snapshot.js';

export class MarketData {
  private current = MarketSnapshot.empty();
  private loading: Promise<void> | null = null;

  constructor(private readonly store: Store) {}

  get snapshot(): MarketSnapshot {
    return this.current;
  }

  /** Reloads if `version` differs from the loaded one (or always, without a version). */
  async refresh(version?: number): Promise<void> {
    if (version !== undefined && version === this.current.version) return;
    if (this.loading) {
      // A load under way may have read the store before `version` was written
      // (the watcher's, say): wait for it, then load again unless it got there.
      await this.loading.catch(() => {});
      return this.refresh(version);
    }
    this.loading = (async () => {
      const v = version ?? (await this.store.versions()).data;
      const [assets, latest, gold] = await Promise.all([
        this.store.market.listAssets(),
        this.store.market.latestRates(),
        this.store.market.latestGold(),
      ]);
      // The quality of the latest records, read here once per data version so no request queries it.
      const points = await loadQualities(this.store, latest, gold);
      this.current = new MarketSnapshot(v, assets, latest, gold, points);
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }
}
