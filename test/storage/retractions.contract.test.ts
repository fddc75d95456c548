/**
 * Retractions in the import repository (docs/decisions.md, 105 and 106), on
 * every backend: the observation leaves what the market repository reads,
 * what it published is kept with the reason, audited, a `data.retracted`
 * event and a new data version in the same transaction; a dry run changes
 * nothing; a later import leaves the record out unless it reinstates it.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../src/storage/admin-records.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 20, 9);
const HOUR = 3_600_000;
const ACTOR = { id: 'adm_contract0001', label: 'desk', requestId: 'req_1' };
const eur = (at: number, buy: number) => ({
  currency: 'EUR',
  source: 'parallel' as const,
  buy: buy * 1_000_000,
  sell: (buy + 2) * 1_000_000,
  updatedAt: at,
});
const key = (updatedAt: number) => ({
  kind: 'rates' as const,
  currency: 'EUR',
  source: 'parallel' as const,
  updatedAt,
});

describe.each(backends())('retractions on $name', ({ name }) => {
  const store = migratedStore(name);
  const history = () =>
    store.market.rateHistory({
      currency: 'EUR',
      source: 'parallel',
      from: 0,
      to: T0 + 100 * HOUR,
      limit: 100,
    });
  const latestEur = async () =>
    (await store.market.latestRates()).find((r) => r.currency === 'EUR' && r.source === 'parallel');

  it('removes the observation, keeps what it published, audits it, writes its event and moves the version', async () => {
    await store.imports.import({
      kind: 'assets',
      records: [
        { code: 'EUR', symbol: '€', names: { en: 'Euro', fr: 'Euro', ar: 'يورو' }, type: 'currency' },
      ],
    });
    await store.imports.import({ kind: 'rates', records: [eur(T0, 250), eur(T0 + HOUR, 290)] });
    await store.webhooks.createSubscription({
      id: 'whk_retracted',
      url: 'https://hooks.example/r',
      eventTypes: ['data.retracted'],
      accountId: null,
      filter: null,
      description: null,
      status: 'enabled',
      disabledReason: null,
      secret: 'whsec_r',
      previousSecret: null,
      previousSecretExpiresAt: null,
      alertActive: false,
      createdAt: T0,
      updatedAt: T0,
    });
    const version = (await store.versions()).data;

    const dry = await store.imports.retract({
      key: key(T0 + HOUR),
      reason: 'typo',
      actor: ACTOR,
      now: T0 + 2 * HOUR,
      dryRun: true,
    });
    expect(dry).toMatchObject({
      status: 'retracted',
      dryRun: true,
      latest: { updatedAt: T0, buy: 250_000_000 },
    });
    expect(await latestEur()).toEqual(eur(T0 + HOUR, 290));
    expect((await store.versions()).data).toBe(version);

    const done = await store.imports.retract({
      key: key(T0 + HOUR),
      reason: 'typo',
      actor: ACTOR,
      now: T0 + 2 * HOUR,
    });
    expect(done).toMatchObject({
      status: 'retracted',
      dryRun: false,
      latest: { updatedAt: T0, buy: 250_000_000, sell: 252_000_000 },
      retraction: {
        id: expect.stringMatching(/^ret_/),
        kind: 'rates',
        code: 'EUR',
        source: 'parallel',
        updatedAt: T0 + HOUR,
        buy: 290_000_000,
        sell: 292_000_000,
        reason: 'typo',
        actor: { id: ACTOR.id, label: 'desk' },
        retractedAt: T0 + 2 * HOUR,
        reinstatedBy: null,
      },
    });
    expect(await latestEur()).toEqual(eur(T0, 250));
    expect(await history()).toEqual([eur(T0, 250)]);
    expect((await store.versions()).data).toBeGreaterThan(version);
    const id = done.status === 'retracted' ? done.retraction.id : '';
    const [audit] = await store.operator.listAudit({ action: 'data.retract' }, { limit: 10 });
    expect(audit).toMatchObject({ actorId: ACTOR.id, actorLabel: 'desk', targetId: id, requestId: 'req_1' });
    expect(audit!.changes).toMatchObject({ buy: { before: null, after: 290 }, reason: { after: 'typo' } });
    const [delivery] = await store.webhooks.listDeliveries('whk_retracted', { limit: 10 });
    expect(delivery).toMatchObject({ eventType: 'data.retracted', status: 'pending' });
  });

  it('tells a missing observation and a retracted one apart, and retracts gold alike', async () => {
    expect(
      await store.imports.retract({ key: key(T0 + 5 * HOUR), reason: 'x', actor: SYSTEM_ACTOR, now: T0 }),
    ).toEqual({
      status: 'not_found',
    });
    expect(
      await store.imports.retract({ key: key(T0 + HOUR), reason: 'again', actor: SYSTEM_ACTOR, now: T0 }),
    ).toMatchObject({
      status: 'already_retracted',
      retraction: { reason: 'typo', actor: { label: 'desk' } },
    });
    const gold = { purity: '21K' as const, buy: 18_000_000_000, sell: 18_500_000_000, updatedAt: T0 };
    await store.imports.import({ kind: 'gold', records: [gold] });
    const done = await store.imports.retract({
      key: { kind: 'gold', purity: '21K', updatedAt: T0 },
      reason: 'wrong purity',
      actor: SYSTEM_ACTOR,
      now: T0,
    });
    expect(done).toMatchObject({
      status: 'retracted',
      latest: null,
      retraction: { code: '21K', source: 'gold' },
    });
    expect(await store.market.latestGold()).toEqual([]);
  });

  it('leaves a retracted record out of a later import, counted, unless the import reinstates it', async () => {
    expect(await store.imports.standingRetractions('rates')).toEqual([
      { id: expect.stringMatching(/^ret_/), code: 'EUR', source: 'parallel', updated_at: expect.anything() },
    ]);
    const again = await store.imports.import({ kind: 'rates', records: [eur(T0, 250), eur(T0 + HOUR, 291)] });
    expect(again).toMatchObject({
      received: 2,
      inserted: 0,
      updated: 0,
      unchanged: 1,
      retracted: 1,
      reinstated: 0,
    });
    expect(await latestEur()).toEqual(eur(T0, 250));

    const dry = await store.imports.import(
      { kind: 'rates', records: [eur(T0 + HOUR, 291)] },
      { reinstate: true, dryRun: true },
    );
    expect(dry).toMatchObject({ inserted: 1, retracted: 0, reinstated: 1 });
    expect(await latestEur()).toEqual(eur(T0, 250));

    const back = await store.imports.import(
      { kind: 'rates', records: [eur(T0 + HOUR, 291)] },
      { reinstate: true },
    );
    expect(back).toMatchObject({ received: 1, inserted: 1, retracted: 0, reinstated: 1 });
    expect(await latestEur()).toEqual(eur(T0 + HOUR, 291));
    expect(await store.imports.standingRetractions('rates')).toEqual([]);
    const [listed] = await store.imports.listRetractions({ kind: 'rates', code: 'EUR', limit: 10 });
    expect(listed).toMatchObject({
      reason: 'typo',
      reinstatedBy: back.importId,
      reinstatedAt: expect.any(Number),
    });
    expect(await store.imports.listRetractions({ kind: 'gold', limit: 10 })).toMatchObject([{ code: '21K' }]);
    expect(await store.imports.listRetractions({ since: T0 + 3 * HOUR, limit: 10 })).toEqual([]);
    // Lifted for good: the next import is an ordinary one, and the observation can be retracted anew.
    expect(await store.imports.import({ kind: 'rates', records: [eur(T0 + HOUR, 291)] })).toMatchObject({
      unchanged: 1,
      retracted: 0,
    });
    expect(
      await store.imports.retract({ key: key(T0 + HOUR), reason: 'again', actor: SYSTEM_ACTOR, now: T0 }),
    ).toMatchObject({
      status: 'retracted',
    });
  });
});
