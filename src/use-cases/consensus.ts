/**
 * Explaining and recomputing published consensus points (docs/decisions.md
 * 107, 112, 113), one set of operations behind `mds consensus explain|verify`
 * and /admin/v1/consensus/explain|verify.
 *
 * Explain reads the point and the quotes it names by id: what was published
 * and from what. Verify trusts neither: it re-selects each point's window of
 * quotes (those received by the point's instant) with the reporters as they
 * were then, recomputes with the method (domain/consensus.ts), and compares.
 */
import { type ConsensusSettings, consensusAt, effectiveInstant } from '../domain/consensus.js';
import { microsToNumber } from '../domain/decimal.js';
import { PURITIES } from '../domain/types.js';
import { ExplainQuery, VerifyQuery } from '../schemas/admin-consensus.js';
import type { ConsensusPoint, QuoteRecord } from '../storage/reporter-records.js';
import type { Store } from '../storage/store.js';
import type { Actor, Result } from './contract.js';
import { checked, invalid, notFound, refusing } from './rules.js';
import { iso } from './views.js';

/** The method this service computes; a point made by another is reported, not recomputed. */
const METHOD_VERSION = 1;
/** Points are at most an hour apart while the quorum holds (the heartbeat): look there first. */
const NEAR_MS = 2 * 3_600_000;

type Reason = 'mid' | 'buy' | 'sell';

const REASONS: Record<Reason, string> = {
  mid: 'its mid, (buy + sell) / 2, was further from the median mid of the organisations than max(3.5 × 1.4826 × MAD, 1.5 % of that median)',
  buy: 'its buy was further from the median buy of the organisations than max(3.5 × 1.4826 × MAD, 1.5 % of that median)',
  sell: 'its sell was further from the median sell of the organisations than max(3.5 × 1.4826 × MAD, 1.5 % of that median)',
};
const reasonOf = (r: Reason | null) => (r === null ? null : REASONS[r]);

export interface ExplainedQuote {
  id: string;
  reporterId: string;
  organisationId: string;
  organisation: string | null;
  buy: number;
  sell: number;
  observedAt: string;
  receivedAt: string;
  ageSeconds: number;
  used: boolean;
  excluded: Reason | null;
  reason: string | null;
}

export interface ExplanationView {
  market: string;
  at: string;
  methodVersion: number;
  buy: number;
  sell: number;
  quality: {
    organisations: number;
    reporters: number;
    excluded: number;
    dispersionPercent: number | null;
    confidence: ConsensusPoint['confidence'];
  };
  organisations: {
    organisationId: string;
    organisation: string | null;
    buy: number;
    sell: number;
    excluded: Reason | null;
    reason: string | null;
  }[];
  quotes: ExplainedQuote[];
}

function marketOf(input: { currency?: string; purity?: string }): string {
  if (input.currency !== undefined && input.purity !== undefined)
    throw invalid(
      'purity',
      'names a gold market, which has no currency: give --currency or --purity, not both',
    );
  const market = input.currency ?? input.purity;
  if (market === undefined)
    throw invalid('currency', `is required: give a currency (EUR) or a purity (${PURITIES.join(', ')})`);
  return market;
}

/** The point in force at `at`: the latest at or before it. */
async function pointInForce(store: Store, market: string, at: number): Promise<ConsensusPoint | undefined> {
  const near = await store.consensus.points(market, at - NEAR_MS, at);
  const points = near.length > 0 ? near : await store.consensus.points(market, 0, at);
  return points.at(-1);
}

export function explainPoint(
  store: Store,
  _actor: Actor,
  input: ExplainQuery,
  options: { now?: number } = {},
): Promise<Result<ExplanationView>> {
  return refusing(async () => {
    const query = checked(ExplainQuery, input);
    const market = marketOf(query);
    let point: ConsensusPoint | undefined;
    let when: string;
    if (query.at === undefined) {
      const last = (await store.consensus.marketState(market))?.last;
      point = last ? await store.consensus.pointAt(market, last.at) : undefined;
      when = `now (${iso(options.now ?? Date.now())})`;
    } else {
      const at = Date.parse(query.at);
      point = await pointInForce(store, market, at);
      when = `at or before ${iso(at)}`;
    }
    if (!point) throw notFound(`no consensus point of ${market} was published ${when}`);

    const ids = point.inputs.flatMap((i) => i.quoteIds);
    const quotes = new Map((await store.reporters.quotesByIds(ids)).map((q) => [q.id, q]));
    const names = new Map<string, string | null>();
    for (const i of point.inputs)
      names.set(i.organisationId, (await store.reporters.getOrganisation(i.organisationId))?.name ?? null);
    const explained: ExplainedQuote[] = [];
    for (const input of point.inputs) {
      const excluded = input.excluded as Reason | null;
      for (const id of input.quoteIds) {
        const q = quotes.get(id);
        if (q) explained.push(quoteOf(q, point.at, names.get(q.organisationId) ?? null, excluded));
      }
    }
    explained.sort(
      (a, b) => Number(a.excluded !== null) - Number(b.excluded !== null) || a.ageSeconds - b.ageSeconds,
    );
    return {
      market,
      at: iso(point.at)!,
      methodVersion: point.methodVersion,
      buy: microsToNumber(point.buy),
      sell: microsToNumber(point.sell),
      quality: {
        organisations: point.organisations,
        reporters: point.reporters,
        excluded: point.excluded,
        dispersionPercent: point.dispersionPercent,
        confidence: point.confidence,
      },
      organisations: point.inputs.map((i) => ({
        organisationId: i.organisationId,
        organisation: names.get(i.organisationId) ?? null,
        buy: microsToNumber(i.buy),
        sell: microsToNumber(i.sell),
        excluded: i.excluded as Reason | null,
        reason: reasonOf(i.excluded as Reason | null),
      })),
      quotes: explained,
    };
  });
}

function quoteOf(
  q: QuoteRecord,
  at: number,
  organisation: string | null,
  excluded: Reason | null,
): ExplainedQuote {
  return {
    id: q.id,
    reporterId: q.reporterId,
    organisationId: q.organisationId,
    organisation,
    buy: microsToNumber(q.buy),
    sell: microsToNumber(q.sell),
    observedAt: iso(q.observedAt)!,
    receivedAt: iso(q.receivedAt)!,
    ageSeconds: Math.round((at - effectiveInstant(q)) / 1000),
    used: excluded === null,
    excluded,
    reason: reasonOf(excluded),
  };
}

export interface Difference {
  market: string;
  at: string;
  field: string;
  stored: string;
  recomputed: string;
}

export interface VerificationView {
  since: string | null;
  checked: number;
  differences: Difference[];
}

/** A point's members as the recomputation compares them. */
function comparable(p: Omit<ConsensusPoint, 'market' | 'at' | 'methodVersion'>): Record<string, unknown> {
  const inputs = [...p.inputs].sort((a, b) => (a.organisationId < b.organisationId ? -1 : 1));
  return {
    buy: p.buy,
    sell: p.sell,
    organisations: p.organisations,
    reporters: p.reporters,
    excluded: p.excluded,
    dispersionPercent: p.dispersionPercent,
    confidence: p.confidence,
    'organisations used': inputs.filter((i) => i.excluded === null).map((i) => i.organisationId),
    'organisations excluded': inputs
      .filter((i) => i.excluded !== null)
      .map((i) => `${i.organisationId}:${i.excluded}`),
    'quotes used': inputs.flatMap((i) => (i.excluded === null ? [...i.quoteIds].sort() : [])),
    'quotes of excluded organisations': inputs.flatMap((i) =>
      i.excluded !== null ? [...i.quoteIds].sort() : [],
    ),
  };
}

/** `point` recomputed at its instant from the store: the quotes received by then, the reporters as they were. */
async function recompute(store: Store, point: ConsensusPoint, settings: ConsensusSettings) {
  const [quotes, states] = await Promise.all([
    store.reporters.latestQuotes(point.market, point.at - settings.windowMs, point.at),
    store.reporters.reporterStatesAt(point.at),
  ]);
  const active = new Set(states.filter((s) => s.status === 'active').map((s) => s.reporterId));
  const c = consensusAt(quotes, active, point.at, settings);
  return {
    buy: c.buy ?? Number.NaN,
    sell: c.sell ?? Number.NaN,
    organisations: c.organisations,
    reporters: c.reporters,
    excluded: c.excluded,
    dispersionPercent: c.dispersionPercent,
    confidence: c.confidence ?? 'low',
    inputs: c.verdicts.map((v) => ({ ...v })),
  } as const;
}

const shown = (v: unknown, money: boolean) =>
  JSON.stringify(money && typeof v === 'number' ? (Number.isNaN(v) ? null : microsToNumber(v)) : v);

export function verifyPoints(
  store: Store,
  _actor: Actor,
  input: VerifyQuery,
  settings: ConsensusSettings,
): Promise<Result<VerificationView>> {
  return refusing(async () => {
    const query = checked(VerifyQuery, input);
    const since = query.since === undefined ? 0 : Date.parse(query.since);
    const differences: Difference[] = [];
    let count = 0;
    const markets = (await store.consensus.marketStates()).map((s) => s.market).sort();
    for (const market of markets) {
      for (const point of await store.consensus.points(market, since, Number.MAX_SAFE_INTEGER)) {
        count += 1;
        const at = iso(point.at)!;
        if (point.methodVersion !== METHOD_VERSION) {
          differences.push({
            market,
            at,
            field: 'methodVersion',
            stored: String(point.methodVersion),
            recomputed: String(METHOD_VERSION),
          });
          continue;
        }
        const stored = comparable(point);
        const again = comparable(await recompute(store, point, settings));
        for (const field of Object.keys(stored)) {
          const money = field === 'buy' || field === 'sell';
          const a = shown(stored[field], money);
          const b = shown(again[field], money);
          if (a !== b) differences.push({ market, at, field, stored: a, recomputed: b });
        }
      }
    }
    return { since: query.since === undefined ? null : iso(since), checked: count, differences };
  });
}
