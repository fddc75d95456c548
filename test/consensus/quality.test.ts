/**
 * `quality` through /v1 on every backend (docs/decisions.md 114): a parallel
 * rate and a gold price published by the consensus carry the point's
 * organisations, quotes, exclusions, dispersion and confidence, in latest,
 * history and CSV; an imported observation says `import` with nulls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuoteRecord } from '../../src/storage/reporter-records.js';
import { createOrganisation, createReporter } from '../../src/use-cases/reporters.js';
import { TEST_ACTOR } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { csvRows } from '../support/csv.js';
import { type Harness, startHarness } from '../support/harness.js';
import { IMPORTED } from '../support/sample-records.js';

const MINUTE = 60_000;
const micros = (v: number) => Math.round(v * 1_000_000);

describe.each(backends())('quality of published and imported records on $name', (backend) => {
  let h: Harness;
  let key: string;
  let clock = Math.floor(Date.now() / MINUTE) * MINUTE;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness(backend, { now: () => clock });
    key = (await h.newKey()).key;
  });
  afterAll(async () => h?.close());

  async function reporterOf(name: string, markets: string[]): Promise<string> {
    const org = await createOrganisation(h.store, TEST_ACTOR, { name }, { now: clock });
    if (!org.ok) throw new Error(JSON.stringify(org.error));
    const r = await createReporter(
      h.store,
      TEST_ACTOR,
      { organisationId: org.value.id, label: name, markets },
      { now: clock },
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.value.reporter.id;
  }

  async function quote(reporterId: string, market: string, buy: number, sell: number) {
    const reporter = await h.store.reporters.getReporter(reporterId);
    seq += 1;
    const q: QuoteRecord = {
      id: `quo_q${seq}`,
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
    return h.runtime.services.consensus.recompute(market);
  }

  const latestEur = async () => {
    const res = await h.get('/v1/rates/latest?currency=EUR&source=parallel', key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data[0];
  };

  it('an imported observation says import, every other member null', async () => {
    expect((await latestEur()).quality).toEqual(IMPORTED);
    const official = await h.get('/v1/rates/latest?currency=EUR&source=official', key);
    expect(official.json().data[0].quality).toEqual(IMPORTED);
  });

  it('a published parallel rate carries its point: latest, history and CSV', async () => {
    const buys = [259.5, 259.8, 260.0];
    let published = null;
    for (const [i, buy] of buys.entries()) {
      clock += 1_000;
      published = (await quote(await reporterOf(`EUR desk ${i}`, ['EUR']), 'EUR', buy, buy + 2)).published;
    }
    // Mids 261.5 261.8 262.0: m 261.8, MAD 0.2, 1.4826 × 0.2 / 261.8 × 100 = 0.11; three organisations: medium.
    const quality = {
      method: 'consensus',
      organisations: 3,
      reporters: 3,
      excluded: 0,
      dispersionPercent: 0.11,
      confidence: 'medium',
    };
    const { method: _, ...point } = quality;
    expect(published).toMatchObject({ buy: micros(259.8), ...point });
    await h.refresh();

    const latest = await latestEur();
    expect(latest).toMatchObject({
      buy: 259.8,
      sell: 261.8,
      updatedAt: new Date(published!.at).toISOString(),
    });
    expect(latest.quality).toEqual(quality);
    // As of its instant (decisions 123), the record keeps its quality.
    const at = new Date(published!.at).toISOString();
    const asOf = await h.get(`/v1/rates/latest?currency=EUR&at=${at}`, key);
    expect(asOf.statusCode, asOf.body).toBe(200);
    expect(asOf.json().data[0]).toMatchObject({ buy: 259.8, updatedAt: at, quality });

    const url = '/v1/rates/history?currency=EUR&source=parallel&limit=3';
    const history = await h.get(url, key);
    expect(history.statusCode, history.body).toBe(200);
    const [newest, older] = history.json().data;
    expect(newest).toMatchObject({ buy: 259.8, quality });
    expect(older.quality).toEqual(IMPORTED);

    const csv = await h.get(url, key, { accept: 'text/csv' });
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, first, second] = csvRows(csv.body);
    // Every column the CSV had before keeps its place; the quality's come last.
    expect(header).toEqual([
      ...['currency', 'source', 'quote', 'buy', 'sell', 'updatedAt'],
      ...['quality_method', 'quality_organisations', 'quality_reporters', 'quality_excluded'],
      ...['quality_dispersionPercent', 'quality_confidence'],
    ]);
    expect(first!.slice(6)).toEqual(['consensus', '3', '3', '0', '0.11', 'medium']);
    expect(second!.slice(6)).toEqual(['import', '', '', '', '', '']);
  });

  it('an import that replaces the published values at that instant is served as an import', async () => {
    const state = await h.store.consensus.marketState('EUR');
    const at = state!.last!.at;
    const replaced = { buy: micros(259.9), sell: micros(261.9), updatedAt: at };
    await h.store.imports.import({
      kind: 'rates',
      records: [{ currency: 'EUR', source: 'parallel', ...replaced }],
    });
    await h.refresh();
    expect(await latestEur()).toMatchObject({ buy: 259.9, quality: IMPORTED });
  });

  it('a published gold price carries its point in latest and history', async () => {
    const served = await h.get('/v1/gold/latest', key);
    const k21 = served.json().data.find((g: { purity: string }) => g.purity === '21K');
    clock += MINUTE;
    let published = null;
    for (const [i, delta] of [0, 1, 2].entries()) {
      clock += 1_000;
      const reporter = await reporterOf(`jeweller ${i}`, ['21K']);
      published = (await quote(reporter, '21K', k21.buy + delta, k21.sell + delta)).published;
    }
    expect(published).not.toBeNull();
    await h.refresh();
    const quality = {
      method: 'consensus',
      organisations: 3,
      reporters: 3,
      excluded: 0,
      dispersionPercent: published!.dispersionPercent,
      confidence: published!.confidence,
    };
    const latest = await h.get('/v1/gold/latest', key);
    const byPurity = Object.fromEntries(
      latest.json().data.map((g: { purity: string }) => [g.purity, g] as const),
    );
    expect(byPurity['21K']).toMatchObject({ buy: k21.buy + 1, quality });
    expect(byPurity['18K'].quality).toEqual(IMPORTED);
    const asOf = await h.get(`/v1/gold/latest?at=${new Date(published!.at).toISOString()}`, key);
    expect(asOf.statusCode, asOf.body).toBe(200);
    const k21AsOf = asOf.json().data.find((g: { purity: string }) => g.purity === '21K');
    expect(k21AsOf).toMatchObject({ buy: k21.buy + 1, quality });

    const history = await h.get('/v1/gold/history?limit=2', key);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data[0]).toMatchObject({ purity: '21K', quality });
  });
});
