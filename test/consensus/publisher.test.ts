/**
 * Publication of the street markets' consensus (docs/decisions.md 107, 109)
 * on every backend, with a clock the test moves: the point published after
 * the quote that completes the quorum, served by /v1 as the parallel rate;
 * an organisation 10 % off excluded; an organisation counted once; silence
 * and suspension; the once-a-minute rule; and, on PostgreSQL, two instances
 * computing one market at once publishing it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsensusPublisher } from '../../src/consensus/publisher.js';
import type { QuoteRecord } from '../../src/storage/reporter-records.js';
import { createOrganisation, createReporter, updateReporter } from '../../src/use-cases/reporters.js';
import { TEST_ACTOR } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';

const MINUTE = 60_000;
const micros = (v: number) => Math.round(v * 1_000_000);

describe.each(backends())('consensus publication on $name', (backend) => {
  let h: Harness;
  let clock = Math.floor(Date.now() / MINUTE) * MINUTE;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
  });
  afterAll(async () => h?.close());

  const publisher = () => h.runtime.services.consensus;

  /** An organisation with `n` reporters allowed `markets`: the reporters' ids. */
  async function organisation(name: string, n = 1, markets = ['EUR', 'USD', '21K']): Promise<string[]> {
    const org = await createOrganisation(h.store, TEST_ACTOR, { name }, { now: clock });
    if (!org.ok) throw new Error(JSON.stringify(org.error));
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await createReporter(
        h.store,
        TEST_ACTOR,
        { organisationId: org.value.id, label: `${name} ${i}`, markets },
        { now: clock },
      );
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      ids.push(r.value.reporter.id);
    }
    return ids;
  }

  /** Stores a quote of `reporterId` observed and received now. */
  async function store(reporterId: string, market: string, buy: number, sell: number) {
    const reporter = await h.store.reporters.getReporter(reporterId);
    seq += 1;
    const q: QuoteRecord = {
      id: `quo_t${seq}`,
      reporterId,
      organisationId: reporter!.organisationId,
      market,
      buy: micros(buy),
      sell: micros(sell),
      observedAt: clock,
      receivedAt: clock,
      place: null,
    };
    await h.store.reporters.addQuotes([q]);
  }

  async function quote(reporterId: string, market: string, buy: number, sell: number) {
    await store(reporterId, market, buy, sell);
    return publisher().recompute(market);
  }

  it('publishes after the quote that completes the quorum; /v1 serves it; seven organisations give high confidence', async () => {
    const buys = [259.5, 259.8, 260.0, 260.1, 260.3, 259.9, 260.2];
    const reporters: string[] = [];
    for (let i = 0; i < buys.length; i++) reporters.push(...(await organisation(`EUR desk ${i}`)));

    expect((await quote(reporters[0]!, 'EUR', buys[0]!, buys[0]! + 2)).consensus.state).toBe('low_quorum');
    expect((await quote(reporters[1]!, 'EUR', buys[1]!, buys[1]! + 2)).published).toBeNull();
    const third = await quote(reporters[2]!, 'EUR', buys[2]!, buys[2]! + 2);
    // 259.5 259.8 260.0: the median is 259.8.
    expect(third.published).toMatchObject({ buy: micros(259.8), sell: micros(261.8), organisations: 3 });

    // Within the minute, moves wait (and 260.0 is less than 0.1 % from 259.8: no move at all).
    let latest = third;
    for (let i = 3; i < buys.length; i++) {
      clock += 1_000;
      latest = await quote(reporters[i]!, 'EUR', buys[i]!, buys[i]! + 2);
      expect(latest.published).toBeNull();
    }
    // Sorted 259.5 259.8 259.9 260.0 260.1 260.2 260.3: 260.0; dispersion 0.11 % (test/domain/consensus.test.ts).
    expect(latest.consensus).toMatchObject({ buy: micros(260), organisations: 7, confidence: 'high' });
    // The heartbeat publishes it an hour after the last publication.
    clock = third.published!.at + 60 * MINUTE;
    await publisher().pass();
    const state = await h.store.consensus.marketState('EUR');
    const point = await h.store.consensus.pointAt('EUR', state!.last!.at);
    expect(point).toMatchObject({
      at: clock,
      buy: micros(260),
      sell: micros(262),
      organisations: 7,
      excluded: 0,
      reporters: 7,
      dispersionPercent: 0.11,
      confidence: 'high',
      methodVersion: 1,
    });

    await h.refresh();
    const { key } = await h.newKey();
    const res = await h.get('/v1/rates/latest?currency=EUR&source=parallel', key);
    expect(res.statusCode, res.body).toBe(200);
    const [item] = res.json().data;
    expect(item.parallel ?? item).toMatchObject({ buy: 260, sell: 262 });
  });

  it('excludes an organisation 10 % off, and counts an organisation once however many quote', async () => {
    clock += 2 * MINUTE;
    const a = await organisation('USD a');
    const b = await organisation('USD b');
    const c = await organisation('USD c');
    const d = await organisation('USD d', 3);
    const rogue = await organisation('USD rogue');
    await quote(a[0]!, 'USD', 230, 232);
    await quote(b[0]!, 'USD', 230, 232);
    for (const r of d) await quote(r, 'USD', 232.3, 234.3);
    await quote(rogue[0]!, 'USD', 253, 255);
    const last = await quote(c[0]!, 'USD', 230, 232);
    // Organisations' buys 230 230 230 232.3 (d once): 230; three quotes of d would make it 231.15.
    expect(last.consensus).toMatchObject({ state: 'ok', buy: micros(230), organisations: 4, excluded: 1 });
    expect(last.consensus.verdicts.filter((v) => v.excluded).map((v) => v.excluded)).toEqual(['mid']);
    expect(last.consensus.verdicts.find((v) => v.excluded === 'mid')?.buy).toBe(micros(253));
    // Published when the quorum first held (a, b, d: 230 230 232.3) and not moved since.
    expect((await h.store.consensus.marketState('USD'))?.last).toMatchObject({ buy: micros(230) });
  });

  it('publishes nothing when organisations go silent; the state says low_quorum and the last value stays', async () => {
    const before = await h.store.consensus.marketState('USD');
    clock += 6 * 3_600_000 + MINUTE;
    await publisher().pass();
    const after = await h.store.consensus.marketState('USD');
    expect(after).toMatchObject({ state: 'low_quorum', quorumLost: true, last: before!.last });
    expect(await h.store.consensus.points('USD', before!.last!.at + 1, clock)).toEqual([]);
  });

  it('stops counting a suspended reporter at the next computation', async () => {
    clock += MINUTE;
    const reporters = [
      ...(await organisation('21K a', 1, ['21K'])),
      ...(await organisation('21K b', 1, ['21K'])),
      ...(await organisation('21K c', 1, ['21K'])),
    ];
    for (const r of reporters) await quote(r, '21K', 15_000, 15_200);
    expect((await h.store.consensus.marketState('21K'))?.state).toBe('ok');
    const suspended = await updateReporter(
      h.store,
      TEST_ACTOR,
      { id: reporters[0]!, status: 'suspended' },
      { now: clock },
    );
    expect(suspended.ok).toBe(true);
    clock += 1;
    const r = await publisher().recompute('21K');
    expect(r.consensus).toMatchObject({ state: 'low_quorum', organisations: 2 });
  });

  it('computes a market once for callers arriving together, each caller’s quote counted; its /v1 serves the point at once', async () => {
    clock += MINUTE;
    const reporters = [
      ...(await organisation('CAD a', 1, ['CAD'])),
      ...(await organisation('CAD b', 1, ['CAD'])),
      ...(await organisation('CAD c', 1, ['CAD'])),
    ];
    for (const [i, r] of reporters.entries()) await store(r, 'CAD', 190 + i, 192 + i);
    const p = publisher();
    const recompute = p.recompute.bind(p);
    let computations = 0;
    p.recompute = (market) => {
      computations += 1;
      return recompute(market);
    };
    try {
      // Sixteen requests told of new CAD quotes at once: one computation runs, the others share the next.
      await Promise.all(Array.from({ length: 16 }, () => p.quotesArrived(['CAD'])));
      expect(computations).toBeLessThanOrEqual(2);
      expect((await h.store.consensus.marketState('CAD'))?.last).toMatchObject({ buy: micros(191) });
      // The publishing process reloaded its snapshot before answering: no wait for the watcher.
      const { key } = await h.newKey();
      const res = await h.get('/v1/rates/latest?currency=CAD&source=parallel', key);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data[0]).toMatchObject({ buy: 191, sell: 193 });
    } finally {
      p.recompute = recompute;
    }
  });

  it.skipIf(backend.name !== 'postgres')(
    'publishes once when two instances compute one market at once',
    async () => {
      const second = h.db.open();
      const other = new ConsensusPublisher(second, h.runtime.services.consensusSettings, () => clock);
      try {
        clock += MINUTE;
        const reporters = [
          ...(await organisation('GBP a', 1, ['GBP'])),
          ...(await organisation('GBP b', 1, ['GBP'])),
          ...(await organisation('GBP c', 1, ['GBP'])),
        ];
        for (const r of reporters) await store(r, 'GBP', 300, 305);
        for (let round = 0; round < 10; round++) {
          const outcomes = await Promise.all([
            publisher().recompute('GBP'),
            other.recompute('GBP'),
            publisher().recompute('GBP'),
            other.recompute('GBP'),
          ]);
          // The first round publishes once; later rounds, an hour apart (the heartbeat), once each.
          expect(outcomes.filter((o) => o.published !== null)).toHaveLength(1);
          clock += 61 * MINUTE;
          // Keep the quotes inside the window.
          for (const r of reporters) await store(r, 'GBP', 300, 305);
        }
        expect(await h.store.consensus.points('GBP', 0, clock)).toHaveLength(10);
      } finally {
        await second.close();
      }
    },
  );
});
