/**
 * The consensus repository's `qualities` on every backend (docs/decisions.md
 * 114): the points of the markets and instants asked for, in one query,
 * without their inputs; a market or an instant not asked for is not read.
 */
import { describe, expect, it } from 'vitest';
import type { ConsensusPoint } from '../../src/storage/reporter-records.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 28, 9);

const point = (market: string, at: number, buy: number): ConsensusPoint => ({
  market,
  at,
  methodVersion: 1,
  buy,
  sell: buy + 2_000_000,
  organisations: 5,
  reporters: 6,
  excluded: 1,
  dispersionPercent: 0.37,
  confidence: 'high',
  inputs: [{ organisationId: 'org_a', quoteIds: ['quo_a'], buy, sell: buy + 2_000_000, excluded: null }],
});

describe.each(backends())('consensus qualities on $name', ({ name }) => {
  const store = migratedStore(name);

  it('reads the points of the markets and instants asked for, without their inputs', async () => {
    const asset = (code: string) => ({
      code,
      symbol: code,
      names: { en: code, fr: code, ar: code },
      type: 'currency' as const,
    });
    await store.imports.import({ kind: 'assets', records: [asset('EUR'), asset('USD')] });
    const points = [
      point('EUR', T0, 260_000_000),
      point('EUR', T0 + 60_000, 261_000_000),
      point('USD', T0, 230_000_000),
      point('21K', T0 + 60_000, 35_000_000_000),
    ];
    for (const [i, p] of points.entries()) {
      const state = {
        market: p.market,
        state: 'ok' as const,
        quorumLost: false,
        last: { at: p.at, buy: p.buy, sell: p.sell },
        retryAt: null,
        heldReason: null,
        computedAt: p.at,
      };
      const version = (await store.consensus.marketState(p.market))?.version ?? 0;
      expect(
        await store.consensus.publish(p.market === '21K' ? 'gold' : 'rates', p, state, version),
        `${i}`,
      ).toBe(true);
    }

    expect(await store.consensus.qualities([], [T0])).toEqual([]);
    const read = await store.consensus.qualities(['EUR', '21K', 'EUR'], [T0 + 60_000]);
    const byKey = (q: { market: string; at: number }) => `${q.market}@${q.at}`;
    expect(read.map(byKey).sort()).toEqual([`21K@${T0 + 60_000}`, `EUR@${T0 + 60_000}`]);
    const { methodVersion: _v, inputs: _i, ...eur } = points[1]!;
    expect(read.find((q) => q.market === 'EUR')).toEqual(eur);
    // USD at T0 was not asked for; EUR at T0 was not either.
    expect((await store.consensus.qualities(['EUR'], [T0])).map(byKey)).toEqual([`EUR@${T0}`]);
  });
});
