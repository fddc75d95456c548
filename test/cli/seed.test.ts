/**
 * `mds seed sample` (decisions §11): the deterministic synthetic data set,
 * idempotent, ending on --end-date.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSample, SAMPLE_NOTICE } from '../../src/sample/generate.js';
import { type Database, freshDatabase } from '../support/backends.js';
import { mds } from '../support/cli.js';

const END = '2026-06-30';

describe('mds seed sample', () => {
  let db: Database;
  const run = (...args: string[]) => mds(args, { db: db.url });
  const sample = generateSample({ endDate: END });

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
  });
  afterAll(async () => db?.drop());

  it('loads the whole sample set ending on --end-date, then a re-run changes nothing', async () => {
    const first = await run('seed', 'sample', '--end-date', END, '--json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.json()).toEqual({
      notice: SAMPLE_NOTICE,
      endDate: END,
      summaries: [
        {
          kind: 'assets',
          received: sample.assets.length,
          inserted: sample.assets.length,
          updated: 0,
          unchanged: 0,
          retracted: 0,
          reinstated: 0,
        },
        {
          kind: 'rates',
          received: sample.rates.length,
          inserted: sample.rates.length,
          updated: 0,
          unchanged: 0,
          retracted: 0,
          reinstated: 0,
        },
        {
          kind: 'gold',
          received: sample.gold.length,
          inserted: sample.gold.length,
          updated: 0,
          unchanged: 0,
          retracted: 0,
          reinstated: 0,
        },
      ],
    });
    const again = await run('seed', 'sample', '--end-date', END);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(
      [
        SAMPLE_NOTICE,
        `assets: ${sample.assets.length} received, 0 inserted, 0 updated, ${sample.assets.length} unchanged`,
        `rates: ${sample.rates.length} received, 0 inserted, 0 updated, ${sample.rates.length} unchanged`,
        `gold: ${sample.gold.length} received, 0 inserted, 0 updated, ${sample.gold.length} unchanged`,
        '',
      ].join('\n'),
    );
  });

  it('the seeded records are what the generator gives: importing them again is unchanged', async () => {
    const newest = sample.rates.filter((r) => new Date(r.updatedAt).toISOString().startsWith(END));
    expect(newest.length).toBeGreaterThan(0);
    const csv = [
      'currency,source,buy,sell,updatedAt',
      ...newest.map(
        (r) =>
          `${r.currency},${r.source},${r.buy / 1e6},${r.sell / 1e6},${new Date(r.updatedAt).toISOString()}`,
      ),
    ].join('\n');
    const r = await mds(['import', 'rates', '-', '--json'], { db: db.url, input: csv });
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({
      received: newest.length,
      inserted: 0,
      updated: 0,
      unchanged: newest.length,
    });
  });

  it('--end-date and --days are checked', async () => {
    const [date, days] = await Promise.all([
      run('seed', 'sample', '--end-date', '2026-13-01'),
      run('seed', 'sample', '--days', 'many', '--json'),
    ]);
    expect(date.status).toBe(2);
    expect(date.stdout).toBe('');
    expect(date.stderr).toMatch(/^mds: .*2026-13-01/);
    expect(days.status).toBe(2);
    expect(days.errorJson()).toEqual({ error: { message: '--days: must be a whole number' } });
  });
});
