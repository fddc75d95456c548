/**
 * Holds the current MarketSnapshot and rebuilds it when the store's `data`
 * version moves. Requests never wait for a rebuild: they read the snapshot that
 * is current when they run.
 */

import type { Store } from '../storage/store.js';
import { loadQualities } from './quality.js';
import { MarketSnapshot, premiumPoints } from './snapshot.js';

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
      // Each series' latest observation with the one its change compares it with (decisions 122).
      const [assets, series, gold] = await Promise.all([
        this.store.market.listAssets(),
        this.store.market.ratesAsOf(),
        this.store.market.goldAsOf(),
      ]);
      // The quality of the latest records and the previous day's premiums, read here once per data
      // version so no request queries them (decisions 114, 124).
      const [points, officials] = await Promise.all([
        loadQualities(
          this.store,
          series.map((s) => s.current),
          gold.map((g) => g.current),
        ),
        this.store.market.ratesAt(premiumPoints(series)),
      ]);
      this.current = new MarketSnapshot(v, assets, series, gold, points, officials);
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }
}
