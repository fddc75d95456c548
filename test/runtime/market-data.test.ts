/**
 * A refresh for a new data version is not answered by a load that started
 * before that version was written: found by test/http/premium.test.ts failing
 * now and then, when the watcher's poll was loading as the test imported.
 */
import { describe, expect, it } from 'vitest';
import type { RateObservation } from '../../src/domain/types.js';
import { MarketData } from '../../src/runtime/market-data.js';
import type { Store } from '../../src/storage/store.js';

describe('MarketData.refresh', () => {
  it('loads again when the version asked for is newer than the load under way', async () => {
    let version = 1;
    let rates: RateObservation[] = [];
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let loads = 0;
    const store = {
      versions: async () => ({ data: version, access: 1 }),
      market: {
        listAssets: async () => [],
        goldAsOf: async () => [],
        ratesAsOf: async () => {
          loads++;
          const seen = rates;
          if (loads === 1) await gate; // the first load read the store before the import
          return seen.map((current) => ({ current, previous: null }));
        },
        ratesAt: async () => [],
      },
      // No street-rate consensus: every record's quality is an import's.
      consensus: { qualities: async () => [] },
    } as unknown as Store;
    const market = new MarketData(store);

    const early = market.refresh(); // the watcher's poll, version 1
    await Promise.resolve();
    // An import lands: version 2 with one rate.
    version = 2;
    rates = [
      {
        currency: 'EUR',
        source: 'parallel',
        buy: 250_000_000,
        sell: 252_000_000,
        updatedAt: Date.parse('2026-11-20T09:00:00Z'),
      },
    ];
    const asked = market.refresh(2);
    release!();
    await Promise.all([early, asked]);
    expect(market.snapshot.version).toBe(2);
    expect(loads).toBe(2);
  });
});
