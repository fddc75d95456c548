/**
 * Daily usage and the month's statement (docs/decisions.md, 59), on every
 * backend: units recorded through the usage recorder (the one writer of usage
 * on the request path) are counted per UTC day and key in the same commit as
 * the month, give-backs come off the day they were taken on, and the days of
 * a month add up to its monthly usage.
 */
import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/domain/dates.js';
import { UsageRecorder } from '../../src/limits/usage-recorder.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';
import { keyOnNewGrant } from '../support/keys.js';

const at = (iso: string) => Date.parse(iso);

describe.each(backends())('usage records on $name', ({ name }) => {
  const store = migratedStore(name);

  it('names the UTC day of an instant', () => {
    expect(utcDay(at('2026-11-30T23:59:59.999Z'))).toBe('2026-11-30');
    expect(utcDay(at('2026-12-01T00:00:00.000Z'))).toBe('2026-12-01');
    expect(utcDay(at('2026-11-30T12:00:00.000Z'))).toBe('2026-11-30');
    expect(utcDay(at('2024-02-29T00:00:00.000+01:00'))).toBe('2024-02-28');
  });

  it('counts per day and key in the month’s commit; the days add up to the month', async () => {
    const a = await keyOnNewGrant(store);
    const recorder = new UsageRecorder(store);
    const rec = (iso: string, key: string, n = 1) =>
      recorder.record(a.grantId, iso.slice(0, 7), utcDay(at(iso)), key, n);
    await Promise.all([
      rec('2026-11-01T00:00:00Z', 'k1', 3),
      rec('2026-11-01T23:59:59Z', 'k2', 2),
      rec('2026-11-02T10:00:00Z', 'k1', 5),
      rec('2026-11-30T23:59:59.999Z', 'k2', 1),
      rec('2026-12-01T00:00:00Z', 'k1', 7),
    ]);
    // A give-back comes off the day (and key) the unit was taken on.
    await recorder.giveBack(a.grantId, '2026-11', '2026-11-02', 'k1', 2);
    await recorder.flush();

    expect(await store.usage.getUsage(a.grantId, '2026-11')).toBe(9);
    expect(await store.usage.getUsage(a.grantId, '2026-12')).toBe(7);
    const november = await store.usage.dailyUsage(a.grantId, '2026-11-01', '2026-11-30');
    expect(november).toEqual([
      {
        day: '2026-11-01',
        total: 5,
        keys: [
          { keyId: 'k1', used: 3 },
          { keyId: 'k2', used: 2 },
        ],
      },
      { day: '2026-11-02', total: 3, keys: [{ keyId: 'k1', used: 3 }] },
      { day: '2026-11-30', total: 1, keys: [{ keyId: 'k2', used: 1 }] },
    ]);
    expect(november.reduce((n, d) => n + d.total, 0)).toBe(await store.usage.getUsage(a.grantId, '2026-11'));
    expect(await store.usage.dailyUsage(a.grantId, '2026-11-02', '2026-12-01')).toMatchObject([
      { day: '2026-11-02', total: 3 },
      { day: '2026-11-30', total: 1 },
      { day: '2026-12-01', total: 7 },
    ]);
    expect(await store.usage.dailyUsage(a.grantId, '2026-10-01', '2026-10-31')).toEqual([]);
  });

  it('counts a run of one key’s units, and each unit that breaks the run, where it belongs', async () => {
    // The recorder adds a unit like the one before it without looking it up (usage-recorder.ts).
    const a = await keyOnNewGrant(store);
    const b = await keyOnNewGrant(store);
    const recorder = new UsageRecorder(store);
    const units: Array<[string, string, string]> = [
      [a.grantId, '2026-11-03', 'k1'],
      [a.grantId, '2026-11-03', 'k1'],
      [a.grantId, '2026-11-03', 'k2'],
      [a.grantId, '2026-11-03', 'k1'],
      [a.grantId, '2026-11-04', 'k1'],
      [b.grantId, '2026-11-04', 'k1'],
      [a.grantId, '2026-11-04', 'k1'],
      [a.grantId, '2026-11-04', 'k1'],
    ];
    await Promise.all(units.map(([grant, day, key]) => recorder.record(grant, '2026-11', day, key)));
    // And again in a later commit, after the run was cut by the commit itself.
    await recorder.record(a.grantId, '2026-11', '2026-11-04', 'k1');
    await recorder.flush();
    expect(await store.usage.getUsage(a.grantId, '2026-11')).toBe(8);
    expect(await store.usage.getUsage(b.grantId, '2026-11')).toBe(1);
    expect(await store.usage.dailyUsage(a.grantId, '2026-11-01', '2026-11-30')).toEqual([
      {
        day: '2026-11-03',
        total: 4,
        keys: [
          { keyId: 'k1', used: 3 },
          { keyId: 'k2', used: 1 },
        ],
      },
      { day: '2026-11-04', total: 4, keys: [{ keyId: 'k1', used: 4 }] },
    ]);
  });

  it('states every grant of a month with its account, plan, provider, limit and use', async () => {
    const a = await keyOnNewGrant(store, { monthly: 500 });
    const idle = await keyOnNewGrant(store, { monthly: 40 });
    const recorder = new UsageRecorder(store);
    await recorder.record(a.grantId, '2026-11', '2026-11-05', a.publicId, 4);
    await recorder.flush();
    const lines = await store.usage.monthlyStatement('2026-11');
    const line = lines.find((l) => l.grantId === a.grantId);
    expect(line).toEqual({
      grantId: a.grantId,
      accountId: a.accountId,
      accountExternalId: null,
      grantExternalId: null,
      plan: 'test',
      provider: expect.any(String),
      monthlyRequestLimit: 500,
      used: 4,
      status: 'active',
      cancelledAt: null,
    });
    expect(lines.find((l) => l.grantId === idle.grantId)).toMatchObject({ used: 0, monthlyRequestLimit: 40 });
    // A grant created after the month ended is not on its statement.
    expect(await store.usage.monthlyStatement('2000-01')).toEqual([]);
  });

  it('tells whether a failed usage commit was applied, decisively', async () => {
    const a = await keyOnNewGrant(store);
    const id = `test.${name}.${Date.now()}`;
    if (name === 'postgres') {
      await store.usage.addUsage([{ grantId: a.grantId, period: '2026-11', count: 1 }], Date.now(), {
        batchId: id,
      });
      expect(await store.usage.usageBatchOutcome(id, Date.now())).toEqual({ applied: true, detail: null });
    }
    const never = `${id}.never`;
    expect(await store.usage.usageBatchOutcome(never, Date.now())).toEqual({ applied: false, detail: null });
    // Asked again (its first answer lost): still not applied, and a commit arriving late is refused.
    expect(await store.usage.usageBatchOutcome(never, Date.now())).toEqual({ applied: false, detail: null });
    if (name === 'postgres') {
      await expect(
        store.usage.addUsage([{ grantId: a.grantId, period: '2026-11', count: 1 }], Date.now(), {
          batchId: never,
        }),
      ).rejects.toThrow();
      expect(await store.usage.getUsage(a.grantId, '2026-11')).toBe(1);
    }
  });
});
