/**
 * The reporters repository's contract (docs/decisions.md 108) on every
 * backend: organisation names unique, reporters' states kept over time and
 * read back as they were at an instant, token rolls that give the old token a
 * grace period, quotes stored all or none and selected by their effective
 * instant (min of observed and received) in (from, to], and read back per
 * reporter by their receipt (decisions 116).
 */
import { describe, expect, it } from 'vitest';
import type { AuditActor } from '../../src/storage/admin-records.js';
import type { QuoteRecord, ReporterRecord, ReporterTokenRecord } from '../../src/storage/reporter-records.js';
import { DuplicateError } from '../../src/storage/store.js';
import { backends } from '../support/backends.js';
import { migratedStore } from '../support/contract.js';

const T0 = Date.UTC(2026, 10, 28, 9);
const ALICE: AuditActor = { id: 'cli', label: 'alice', requestId: null };

const reporter = (
  id: string,
  organisationId: string,
  extra: Partial<ReporterRecord> = {},
): ReporterRecord => ({
  id,
  label: `field ${id}`,
  organisationId,
  markets: ['EUR', 'USD'],
  status: 'active',
  createdAt: T0,
  updatedAt: T0,
  ...extra,
});

const token = (publicId: string, reporterId: string, createdAt = T0): ReporterTokenRecord => ({
  publicId,
  reporterId,
  digest: publicId.padEnd(64, '0'),
  createdAt,
  expiresAt: null,
  revokedAt: null,
});

const quote = (id: string, extra: Partial<QuoteRecord> = {}): QuoteRecord => ({
  id,
  reporterId: 'rep_a',
  organisationId: 'org_a',
  market: 'EUR',
  buy: 260_000_000,
  sell: 262_000_000,
  observedAt: T0,
  receivedAt: T0,
  place: null,
  ...extra,
});

describe.each(backends())('reporters repository on $name', ({ name }) => {
  const store = migratedStore(name);

  it('organisations have unique names, listed oldest first', async () => {
    await store.reporters.createOrganisation(
      { id: 'org_a', name: 'Square A', createdAt: T0, updatedAt: T0 },
      ALICE,
    );
    await store.reporters.createOrganisation(
      { id: 'org_b', name: 'Square B', createdAt: T0 + 1, updatedAt: T0 + 1 },
      ALICE,
    );
    await expect(
      store.reporters.createOrganisation({ id: 'org_c', name: 'Square A', createdAt: T0, updatedAt: T0 }),
    ).rejects.toBeInstanceOf(DuplicateError);
    expect((await store.reporters.listOrganisations({ limit: 10 })).map((o) => o.id)).toEqual([
      'org_a',
      'org_b',
    ]);
    expect(
      (await store.reporters.listOrganisations({ limit: 10, after: { at: T0, id: 'org_a' } })).map(
        (o) => o.id,
      ),
    ).toEqual(['org_b']);
    const audit = await store.operator.listAudit({ targetId: 'org_a' }, { limit: 5 });
    expect(audit.map((a) => a.action)).toEqual(['organisation.create']);
  });

  it('a reporter is created with its token; its states are read back as they were', async () => {
    await store.reporters.createReporter(reporter('rep_a', 'org_a'), token('rtk_a1', 'rep_a'), ALICE);
    await store.reporters.createReporter(reporter('rep_b', 'org_b'), token('rtk_b1', 'rep_b'), ALICE);
    const suspended = await store.reporters.updateReporter(
      'rep_a',
      { status: 'suspended' },
      T0 + 1000,
      ALICE,
    );
    expect(suspended?.status).toBe('suspended');
    await store.reporters.updateReporter('rep_b', { organisationId: 'org_a' }, T0 + 2000, ALICE);
    // A label change is audited but is not a state.
    await store.reporters.updateReporter('rep_b', { label: 'renamed' }, T0 + 3000, ALICE);

    const at = async (t: number) =>
      Object.fromEntries(
        (await store.reporters.reporterStatesAt(t)).map((s) => [
          s.reporterId,
          `${s.status}@${s.organisationId}`,
        ]),
      );
    expect(await at(T0 - 1)).toEqual({});
    expect(await at(T0)).toEqual({ rep_a: 'active@org_a', rep_b: 'active@org_b' });
    expect(await at(T0 + 1000)).toEqual({ rep_a: 'suspended@org_a', rep_b: 'active@org_b' });
    expect(await at(T0 + 5000)).toEqual({ rep_a: 'suspended@org_a', rep_b: 'active@org_a' });
    expect((await store.reporters.getReporter('rep_b'))?.label).toBe('renamed');
    expect(await store.reporters.updateReporter('rep_x', { status: 'active' }, T0, ALICE)).toBeUndefined();
    expect(
      (await store.reporters.listReporters({ organisationId: 'org_a' }, { limit: 10 })).map((r) => r.id),
    ).toEqual(['rep_a', 'rep_b']);
    const audit = await store.operator.listAudit({ targetId: 'rep_b' }, { limit: 5 });
    expect(audit.map((a) => a.action)).toEqual(['reporter.update', 'reporter.update', 'reporter.create']);
  });

  it('a roll gives the old token a grace period, never a longer one', async () => {
    await store.reporters.rollReporterToken(
      'rep_b',
      token('rtk_b2', 'rep_b', T0 + 10),
      T0 + 60_000,
      T0 + 10,
      ALICE,
    );
    expect((await store.reporters.findReporterToken('rtk_b1'.padEnd(64, '0')))?.expiresAt).toBe(T0 + 60_000);
    await store.reporters.rollReporterToken(
      'rep_b',
      token('rtk_b3', 'rep_b', T0 + 20),
      T0 + 120_000,
      T0 + 20,
      ALICE,
    );
    expect((await store.reporters.findReporterToken('rtk_b1'.padEnd(64, '0')))?.expiresAt).toBe(T0 + 60_000);
    expect((await store.reporters.findReporterToken('rtk_b2'.padEnd(64, '0')))?.expiresAt).toBe(T0 + 120_000);
    expect((await store.reporters.findReporterToken('rtk_b3'.padEnd(64, '0')))?.expiresAt).toBeNull();
    expect(await store.reporters.findReporterToken('f'.repeat(64))).toBeUndefined();
  });

  it('quotes are stored all or none; each reporter’s latest received by `to`, effective in (from, to], is selected', async () => {
    const H = 3_600_000;
    await store.reporters.addQuotes([
      quote('quo_edge', { reporterId: 'rep_e', observedAt: T0 - 6 * H, receivedAt: T0 - 6 * H }),
      quote('quo_in', { reporterId: 'rep_b', observedAt: T0 - H, receivedAt: T0 - H + 5 }),
      quote('quo_ahead', { observedAt: T0 + 90_000, receivedAt: T0 - 1 }),
      quote('quo_late', { observedAt: T0 + 90_000, receivedAt: T0 + 1 }),
      quote('quo_usd', { market: 'USD', observedAt: T0 - H, receivedAt: T0 - H }),
      // rep_c: of one instant the later received wins, then the later observed (dated ahead), then the greater id.
      quote('quo_c1', { reporterId: 'rep_c', observedAt: T0 - 2 * H, receivedAt: T0 - 2 * H }),
      quote('quo_c2', { reporterId: 'rep_c', observedAt: T0 - 2 * H, receivedAt: T0 - 2 * H + 1 }),
      quote('quo_c0', { reporterId: 'rep_c', observedAt: T0 - 3 * H, receivedAt: T0 - 3 * H }),
      quote('quo_d1', { reporterId: 'rep_d', observedAt: T0 - H, receivedAt: T0 - H }),
      quote('quo_d2', { reporterId: 'rep_d', observedAt: T0 - H, receivedAt: T0 - H }),
      quote('quo_f1', { reporterId: 'rep_f', observedAt: T0 - H + 60_000, receivedAt: T0 - H }),
      quote('quo_f0', { reporterId: 'rep_f', observedAt: T0 - H, receivedAt: T0 - H }),
    ]);
    const ids = (await store.reporters.latestQuotes('EUR', T0 - 6 * H, T0)).map((q) => q.id);
    // Oldest observation first: quo_late (received after T0) never counts, quo_edge is at T − W, out.
    expect(ids).toEqual(['quo_c2', 'quo_d2', 'quo_in', 'quo_f1', 'quo_ahead']);
    // A window ending after its receipt sees rep_a's later quote instead.
    expect((await store.reporters.latestQuotes('EUR', T0 - 6 * H, T0 + H)).map((q) => q.id)).toContain(
      'quo_late',
    );
    // A batch with a quote whose sell is below its buy writes nothing.
    await expect(
      store.reporters.addQuotes([
        quote('quo_ok', { reporterId: 'rep_g' }),
        quote('quo_bad', { reporterId: 'rep_g', buy: 262_000_000, sell: 260_000_000 }),
      ]),
    ).rejects.toThrow();
    expect((await store.reporters.latestQuotes('EUR', T0 - 6 * H, T0 + H)).map((q) => q.id)).not.toContain(
      'quo_ok',
    );
    const recent = await store.reporters.recentQuotes('rep_a', 2);
    expect(recent.map((q) => q.id)).toEqual(['quo_late', 'quo_ahead']);
    expect(recent[0]).toMatchObject({
      buy: 260_000_000,
      sell: 262_000_000,
      organisationId: 'org_a',
      place: null,
    });
  });

  it('quotesByIds finds the stored quotes of those ids, and ignores the unknown ones', async () => {
    const found = await store.reporters.quotesByIds(['quo_in', 'quo_usd', 'quo_nowhere']);
    expect(found.map((q) => q.id).sort()).toEqual(['quo_in', 'quo_usd']);
    expect(found.find((q) => q.id === 'quo_usd')).toMatchObject({ market: 'USD', reporterId: 'rep_a' });
    expect(await store.reporters.quotesByIds([])).toEqual([]);
  });

  it('a reporter’s quotes received after an instant, newest first, and who quoted since then', async () => {
    const T = T0 + 100 * 3_600_000;
    const mine = (id: string, receivedAt: number, reporterId = 'rep_w') =>
      quote(id, { reporterId, organisationId: 'org_w', observedAt: receivedAt, receivedAt });
    await store.reporters.addQuotes([
      mine('quo_w_old', T - 10),
      mine('quo_w_at', T),
      mine('quo_w_new', T + 10),
      mine('quo_x', T + 5, 'rep_x'),
      mine('quo_y', T - 5, 'rep_y'),
    ]);
    const since = await store.reporters.quotesReceivedSince('rep_w', T - 10);
    expect(since.map((q) => q.id)).toEqual(['quo_w_new', 'quo_w_at']);
    expect(await store.reporters.reportersQuotingSince(T - 5)).toEqual([
      { reporterId: 'rep_w', lastReceivedAt: T + 10 },
      { reporterId: 'rep_x', lastReceivedAt: T + 5 },
    ]);
    expect(await store.reporters.reportersQuotingSince(T + 10)).toEqual([]);
  });
});
