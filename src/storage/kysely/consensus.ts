/**
 * Consensus publication as Kysely writes it for either dialect
 * (docs/decisions.md 109): one transaction per publication, guarded by a
 * compare-and-set on the market's version, so that of several instances
 * computing one market at once exactly one writes its point.
 */
import { newImportId } from '../import-records.js';
import type { ConsensusPoint, MarketId, MarketState, PointQuality } from '../reporter-records.js';
import type { ConsensusRepository } from '../repositories/consensus.js';
import type { Database } from '../schema.js';
import { isUniqueViolation } from './audit.js';
import { bump, type Db, type Runner } from './database.js';

/** The compare-and-set failed: roll the transaction back. */
class LostRace extends Error {}

const num = (v: number | null) => (v === null ? null : Number(v));

function toState(r: Database['consensus_markets']): MarketState {
  return {
    market: r.market,
    version: Number(r.version),
    state: r.state as MarketState['state'],
    quorumLost: Number(r.quorum_lost) === 1,
    last:
      r.last_at === null
        ? null
        : { at: Number(r.last_at), buy: Number(r.last_buy), sell: Number(r.last_sell) },
    retryAt: num(r.retry_at),
    heldReason: r.held_reason,
    computedAt: Number(r.computed_at),
  };
}

type QualityRow = Omit<Database['consensus_points'], 'method_version' | 'inputs'>;

function toQuality(r: QualityRow): PointQuality {
  const dispersion = num(r.dispersion);
  return {
    market: r.market,
    at: Number(r.at),
    buy: Number(r.buy),
    sell: Number(r.sell),
    organisations: Number(r.organisations),
    reporters: Number(r.reporters),
    excluded: Number(r.excluded),
    dispersionPercent: dispersion === null ? null : dispersion / 100,
    confidence: r.confidence as ConsensusPoint['confidence'],
  };
}

const QUALITY_COLUMNS = [
  'market',
  'at',
  'buy',
  'sell',
  'organisations',
  'reporters',
  'excluded',
  'dispersion',
  'confidence',
] as const;

function toPoint(r: Database['consensus_points']): ConsensusPoint {
  return {
    ...toQuality(r),
    methodVersion: Number(r.method_version),
    inputs: JSON.parse(r.inputs) as ConsensusPoint['inputs'],
  };
}

const stateColumns = (s: Omit<MarketState, 'version'>) => ({
  state: s.state,
  quorum_lost: s.quorumLost ? 1 : 0,
  last_at: s.last?.at ?? null,
  last_buy: s.last?.buy ?? null,
  last_sell: s.last?.sell ?? null,
  retry_at: s.retryAt,
  held_reason: s.heldReason,
  computed_at: s.computedAt,
});

/** The state row moved from `expected` to `expected + 1`, or LostRace. */
async function compareAndSet(
  trx: Runner,
  next: Omit<MarketState, 'version'>,
  expected: number,
): Promise<void> {
  if (expected === 0) {
    // A unique violation here is the race lost to another instance's first computation.
    await trx
      .insertInto('consensus_markets')
      .values({ market: next.market, version: 1, ...stateColumns(next) })
      .execute();
    return;
  }
  const result = await trx
    .updateTable('consensus_markets')
    .set({ ...stateColumns(next), version: expected + 1 })
    .where('market', '=', next.market)
    .where('version', '=', expected)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new LostRace();
}

export class KyselyConsensus implements ConsensusRepository {
  constructor(protected readonly db: Db) {}

  async marketState(market: MarketId): Promise<MarketState | undefined> {
    const r = await this.db
      .selectFrom('consensus_markets')
      .selectAll()
      .where('market', '=', market)
      .executeTakeFirst();
    return r && toState(r);
  }

  async marketStates(): Promise<MarketState[]> {
    const rows = await this.db.selectFrom('consensus_markets').selectAll().orderBy('market').execute();
    return rows.map(toState);
  }

  async activeMarkets(since: number): Promise<MarketId[]> {
    const quoted = await this.db
      .selectFrom('quotes')
      .select('market')
      .distinct()
      .where('received_at', '>', since)
      .execute();
    const known = await this.db.selectFrom('consensus_markets').select('market').execute();
    return [...new Set([...quoted, ...known].map((r) => r.market))].sort();
  }

  async publish(
    kind: 'rates' | 'gold',
    point: ConsensusPoint,
    next: Omit<MarketState, 'version'>,
    expectedVersion: number,
  ): Promise<boolean> {
    return this.guard(async (trx) => {
      await compareAndSet(trx, next, expectedVersion);
      if (kind === 'rates') {
        await trx
          .insertInto('rates')
          .values({
            currency: point.market,
            source: 'parallel',
            updated_at: point.at,
            buy: point.buy,
            sell: point.sell,
          })
          .execute();
      } else {
        await trx
          .insertInto('gold')
          .values({ purity: point.market, updated_at: point.at, buy: point.buy, sell: point.sell })
          .execute();
      }
      // The import record is the outbox entry of data.imported and of the rate alerts' evaluation.
      await trx
        .insertInto('imports')
        .values({
          id: newImportId(),
          kind,
          source_name: 'consensus',
          format: null,
          actor: 'system',
          created_at: point.at,
          received: 1,
          inserted: 1,
          updated: 0,
          unchanged: 0,
          accepted_outliers: 0,
          outliers: 0,
          max_change_percent: null,
          sources: JSON.stringify([kind === 'rates' ? 'parallel' : 'gold']),
          newest_updated_at: point.at,
        })
        .execute();
      await trx
        .insertInto('consensus_points')
        .values({
          market: point.market,
          at: point.at,
          method_version: point.methodVersion,
          buy: point.buy,
          sell: point.sell,
          organisations: point.organisations,
          reporters: point.reporters,
          excluded: point.excluded,
          dispersion: point.dispersionPercent === null ? null : Math.round(point.dispersionPercent * 100),
          confidence: point.confidence,
          inputs: JSON.stringify(point.inputs),
        })
        .execute();
      await bump(trx, 'data');
    });
  }

  saveState(next: Omit<MarketState, 'version'>, expectedVersion: number): Promise<boolean> {
    return this.guard((trx) => compareAndSet(trx, next, expectedVersion));
  }

  async pointAt(market: MarketId, at: number): Promise<ConsensusPoint | undefined> {
    const r = await this.db
      .selectFrom('consensus_points')
      .selectAll()
      .where('market', '=', market)
      .where('at', '=', at)
      .executeTakeFirst();
    return r && toPoint(r);
  }

  async points(market: MarketId, from: number, to: number): Promise<ConsensusPoint[]> {
    const rows = await this.db
      .selectFrom('consensus_points')
      .selectAll()
      .where('market', '=', market)
      .where('at', '>=', from)
      .where('at', '<=', to)
      .orderBy('at')
      .execute();
    return rows.map(toPoint);
  }

  async qualities(markets: readonly MarketId[], instants: readonly number[]): Promise<PointQuality[]> {
    if (markets.length === 0 || instants.length === 0) return [];
    const rows = await this.db
      .selectFrom('consensus_points')
      .select(QUALITY_COLUMNS)
      .where('market', 'in', [...new Set(markets)])
      .where('at', 'in', [...new Set(instants)])
      .execute();
    return rows.map(toQuality);
  }

  /** True when `write` committed; false when it lost the compare-and-set or met the same instant stored. */
  private async guard(write: (trx: Runner) => Promise<void>): Promise<boolean> {
    try {
      await this.db.transaction().execute(write);
      return true;
    } catch (err) {
      if (err instanceof LostRace || isUniqueViolation(err)) return false;
      throw err;
    }
  }
}
