/**
 * Organisations, reporters, their states and tokens, and their quotes, as
 * Kysely writes them for either dialect (docs/decisions.md 108). Changes to
 * organisations, reporters and tokens append their audit record in their own
 * transaction, as kysely/access.ts does; tokens are audited without digests.
 */
import { type AuditActor, DuplicateError, type KeysetPage } from '../admin-records.js';
import type {
  MarketId,
  OrganisationRecord,
  QuoteRecord,
  ReporterPatch,
  ReporterRecord,
  ReporterState,
  ReporterStatus,
  ReporterTokenRecord,
} from '../reporter-records.js';
import type { ReporterRepository } from '../repositories/reporters.js';
import { appendAudit, changesOf, isUniqueViolation } from './audit.js';
import { createdAfter, type Db, type Runner } from './database.js';
import { latestQuotes } from './quote-reads.js';
import { reporterFields, toOrganisation, toQuote, toReporter, toToken } from './reporter-rows.js';

async function appendState(trx: Runner, r: ReporterRecord, at: number): Promise<void> {
  const { n } = await trx
    .selectFrom('reporter_states')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('reporter_id', '=', r.id)
    .where('at', '=', at)
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('reporter_states')
    .values({ reporter_id: r.id, at, seq: Number(n), status: r.status, organisation_id: r.organisationId })
    .execute();
}

/** The reporters repository as both backends run it. */
export class KyselyReporters implements ReporterRepository {
  constructor(protected readonly db: Db) {}

  async createOrganisation(o: OrganisationRecord, actor?: AuditActor): Promise<void> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('organisations')
          .values({ id: o.id, name: o.name, created_at: o.createdAt, updated_at: o.updatedAt })
          .execute();
        await appendAudit(
          trx,
          actor,
          'organisation.create',
          o.id,
          changesOf(null, { name: o.name }),
          o.createdAt,
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateError('name');
      throw err;
    }
  }

  async getOrganisation(id: string): Promise<OrganisationRecord | undefined> {
    const r = await this.db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toOrganisation(r);
  }

  async listOrganisations(page: KeysetPage): Promise<OrganisationRecord[]> {
    let q = this.db.selectFrom('organisations').selectAll();
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toOrganisation);
  }

  async createReporter(r: ReporterRecord, token: ReporterTokenRecord, actor?: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('reporters')
        .values({
          id: r.id,
          label: r.label,
          organisation_id: r.organisationId,
          markets: r.markets.join(','),
          status: r.status,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
        })
        .execute();
      await appendState(trx, r, r.createdAt);
      await insertToken(trx, token);
      await appendAudit(trx, actor, 'reporter.create', r.id, changesOf(null, reporterFields(r)), r.createdAt);
    });
  }

  async getReporter(id: string): Promise<ReporterRecord | undefined> {
    const r = await this.db.selectFrom('reporters').selectAll().where('id', '=', id).executeTakeFirst();
    return r && toReporter(r);
  }

  async listReporters(filter: { organisationId?: string }, page: KeysetPage): Promise<ReporterRecord[]> {
    let q = this.db.selectFrom('reporters').selectAll();
    if (filter.organisationId !== undefined) q = q.where('organisation_id', '=', filter.organisationId);
    if (page.after) q = q.where(createdAfter(page.after));
    const rows = await q.orderBy('created_at').orderBy('id').limit(page.limit).execute();
    return rows.map(toReporter);
  }

  async updateReporter(
    id: string,
    patch: ReporterPatch,
    now: number,
    actor?: AuditActor,
  ): Promise<ReporterRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('reporters').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      const before = toReporter(row);
      const after: ReporterRecord = { ...before, ...definedOf(patch), updatedAt: now };
      const changes = changesOf(reporterFields(before), reporterFields(after));
      if (Object.keys(changes).length === 0) return before;
      await trx
        .updateTable('reporters')
        .set({
          label: after.label,
          organisation_id: after.organisationId,
          markets: after.markets.join(','),
          status: after.status,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      if (after.status !== before.status || after.organisationId !== before.organisationId) {
        await appendState(trx, after, now);
      }
      await appendAudit(trx, actor, 'reporter.update', id, changes, now);
      return after;
    });
  }

  async reporterStatesAt(at: number): Promise<ReporterState[]> {
    const rows = await this.db
      .selectFrom('reporter_states')
      .selectAll()
      .where('at', '<=', at)
      .orderBy('reporter_id')
      .orderBy('at')
      .orderBy('seq')
      .execute();
    // The last state of each reporter at or before `at` (rows are in order).
    const last = new Map<string, ReporterState>();
    for (const r of rows) {
      last.set(r.reporter_id, {
        reporterId: r.reporter_id,
        status: r.status as ReporterStatus,
        organisationId: r.organisation_id,
        at: Number(r.at),
      });
    }
    return [...last.values()];
  }

  async findReporterToken(digest: string): Promise<ReporterTokenRecord | undefined> {
    const r = await this.db
      .selectFrom('reporter_tokens')
      .selectAll()
      .where('digest', '=', digest)
      .executeTakeFirst();
    return r && toToken(r);
  }

  async rollReporterToken(
    reporterId: string,
    next: ReporterTokenRecord,
    graceUntil: number,
    now: number,
    actor?: AuditActor,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('reporter_tokens')
        .set({ expires_at: graceUntil })
        .where('reporter_id', '=', reporterId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', graceUntil)]))
        .execute();
      await insertToken(trx, next);
      await appendAudit(
        trx,
        actor,
        'reporter.token.roll',
        reporterId,
        changesOf(null, { token: next.publicId }),
        now,
      );
    });
  }

  async addQuotes(quotes: readonly QuoteRecord[]): Promise<void> {
    if (quotes.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      // 500 rows × 10 columns stays under SQLite's 32,766 bound parameters.
      for (let i = 0; i < quotes.length; i += 500) {
        await trx
          .insertInto('quotes')
          .values(
            quotes.slice(i, i + 500).map((q) => ({
              id: q.id,
              reporter_id: q.reporterId,
              organisation_id: q.organisationId,
              market: q.market,
              buy: q.buy,
              sell: q.sell,
              observed_at: q.observedAt,
              received_at: q.receivedAt,
              effective_at: Math.min(q.observedAt, q.receivedAt),
              place: q.place,
            })),
          )
          .execute();
      }
    });
  }

  latestQuotes(market: MarketId, from: number, to: number): Promise<QuoteRecord[]> {
    return latestQuotes(this.db, market, from, to);
  }

  async quotesByIds(ids: readonly string[]): Promise<QuoteRecord[]> {
    const rows: QuoteRecord[] = [];
    // Chunks keep each statement under SQLite's bound-parameter limit.
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const found = await this.db.selectFrom('quotes').selectAll().where('id', 'in', chunk).execute();
      rows.push(...found.map(toQuote));
    }
    return rows;
  }

  async recentQuotes(reporterId: string, limit: number): Promise<QuoteRecord[]> {
    const rows = await this.db
      .selectFrom('quotes')
      .selectAll()
      .where('reporter_id', '=', reporterId)
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toQuote);
  }

  async quotesReceivedSince(reporterId: string, since: number): Promise<QuoteRecord[]> {
    const rows = await this.db
      .selectFrom('quotes')
      .selectAll()
      .where('reporter_id', '=', reporterId)
      .where('received_at', '>', since)
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toQuote);
  }

  async reportersQuotingSince(since: number): Promise<{ reporterId: string; lastReceivedAt: number }[]> {
    const rows = await this.db
      .selectFrom('quotes')
      .select((eb) => ['reporter_id', eb.fn.max('received_at').as('last')])
      .where('received_at', '>', since)
      .groupBy('reporter_id')
      .orderBy('reporter_id')
      .execute();
    return rows.map((r) => ({ reporterId: r.reporter_id, lastReceivedAt: Number(r.last) }));
  }
}

async function insertToken(trx: Runner, t: ReporterTokenRecord): Promise<void> {
  await trx
    .insertInto('reporter_tokens')
    .values({
      id: t.publicId,
      reporter_id: t.reporterId,
      digest: t.digest,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      revoked_at: t.revokedAt,
    })
    .execute();
}

function definedOf(patch: ReporterPatch): ReporterPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ReporterPatch;
}
