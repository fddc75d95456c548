/**
 * The import repository's contract, on every backend: all or nothing, exact
 * counts, text stored as given. (Its records and revisions as the operator
 * reads them: operator.contract.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UnknownAssetsError } from '../../src/storage/store.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const DAY = 86_400_000;
const asset = (code: string) => ({
  code,
  symbol: code,
  names: { en: `${code} en`, fr: `${code} fr`, ar: `${code} ar` },
  type: 'currency' as const,
});

describe.each(backends())('import repository on $name', ({ name }) => {
  const store = migratedStore(name);
  beforeAll(async () => {
    await store.imports.import({ kind: 'assets', records: [asset('EUR'), asset('USD')] });
  });

  it('refuses rates for an asset outside the directory without writing anything', async () => {
    const before = await store.market.latestRates();
    const imports = await store.imports.listImports(100);
    const rate = (currency: string, at = T0) => ({
      currency,
      source: 'transfer' as const,
      buy: 1,
      sell: 2,
      updatedAt: at,
    });
    const refused = store.imports.import({
      kind: 'rates',
      records: [rate('EUR'), rate('ZZZ'), rate('AAA'), rate('ZZZ', T0 + DAY)],
    });
    // The store's own error, naming each unknown currency once (store.ts, UnknownAssetsError).
    await expect(refused).rejects.toBeInstanceOf(UnknownAssetsError);
    await expect(refused).rejects.toMatchObject({ currencies: ['AAA', 'ZZZ'] });
    expect(await store.market.latestRates()).toEqual(before);
    expect(await store.imports.listImports(100)).toEqual(imports);
  });

  it('stores text exactly as given, quotes and backslashes included (the bulk paths build their own literals)', async () => {
    const odd = 'Q"\\{x},y';
    await store.imports.import({ kind: 'assets', records: [asset(odd)] });
    const rate = {
      currency: odd,
      source: 'official' as const,
      buy: 7_000_000,
      sell: 8_000_000,
      updatedAt: T0,
    };
    expect(await store.imports.import({ kind: 'rates', records: [rate] })).toMatchObject({ inserted: 1 });
    expect((await store.market.latestRates()).filter((r) => r.currency === odd)).toEqual([rate]);
    expect(await store.imports.import({ kind: 'rates', records: [rate] })).toMatchObject({ unchanged: 1 });
  });

  it('counts large imports exactly: new, changed and unchanged records mixed in every chunk', async () => {
    // Large batches are written many rows per statement (SQLite); a chunk that
    // meets stored keys must still tell inserted, updated and unchanged apart.
    const series = (n: number, from = 0) =>
      Array.from({ length: n }, (_, k) => ({
        currency: 'USD',
        source: 'transfer' as const,
        buy: 200_000_000 + from + k,
        sell: 210_000_000 + from + k,
        updatedAt: T0 + (from + k) * 3_600_000,
      }));
    const first = series(1_050);
    expect(await store.imports.import({ kind: 'rates', records: first })).toMatchObject({ inserted: 1_050 });
    // Every 7th stored record changed, then 230 new ones: chunks of stored, mixed and new records.
    const second = [
      ...first.map((r, k) => (k % 7 === 0 ? { ...r, sell: r.sell + 1 } : r)),
      ...series(230, 1_050),
    ];
    expect(await store.imports.import({ kind: 'rates', records: second })).toMatchObject({
      received: 1_280,
      inserted: 230,
      updated: 150,
      unchanged: 900,
    });
    const stored = await store.market.rateHistory({
      currency: 'USD',
      source: 'transfer',
      from: T0,
      to: T0 + 2_000 * 3_600_000,
      limit: 2_000,
    });
    expect(stored).toHaveLength(1_280);
    expect([...stored].reverse()).toEqual(second);

    const gold = Array.from({ length: 330 }, (_, k) => ({
      purity: (['18K', '21K', '24K'] as const)[k % 3]!,
      buy: 40_000_000_000 + k,
      sell: 41_000_000_000 + k,
      updatedAt: T0 + 1_000 * DAY + Math.floor(k / 3) * DAY,
    }));
    expect(await store.imports.import({ kind: 'gold', records: gold })).toMatchObject({ inserted: 330 });
    const changed = gold.map((g, k) => (k === 200 ? { ...g, buy: 1 } : g));
    expect(await store.imports.import({ kind: 'gold', records: changed })).toMatchObject({
      updated: 1,
      unchanged: 329,
    });
  });
});
