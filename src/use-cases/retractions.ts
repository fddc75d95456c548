/**
 * Retracting a published observation (docs/decisions.md, 105 and 106): a rate
 * (currency and source) or a gold price (purity) at its exact instant leaves
 * everything /v1 serves, kept with its reason as a retraction that later
 * imports respect unless they reinstate it. A dry run says what the series'
 * latest would become.
 */
import { microsToNumber } from '../domain/decimal.js';
import type { Purity, Source } from '../domain/types.js';
import { RetractionCreate } from '../schemas/admin-retractions.js';
import type { ObservationKey, RetractionRecord } from '../storage/retraction-records.js';
import type { Store } from '../storage/store.js';
import type { Actor, Result } from './contract.js';
import { checked, conflict, invalid, notFound, type OperationOptions, refusing } from './rules.js';

export type RetractInput = RetractionCreate;

const iso = (ms: number) => new Date(ms).toISOString();
const amounts = (p: { buy: number; sell: number }) => ({
  buy: microsToNumber(p.buy),
  sell: microsToNumber(p.sell),
});

/** A retraction as both callers show it: amounts in DZD, instants in ISO 8601. */
export interface RetractionView {
  retraction: {
    id: string | null;
    kind: 'rates' | 'gold';
    code: string;
    source: string;
    updatedAt: string;
    buy: number;
    sell: number;
    reason: string;
    actor: { id: string; label: string };
    retractedAt: string;
  };
  latest: { updatedAt: string; buy: number; sell: number } | null;
  dryRun: boolean;
}

/** The observation the input names, or a refusal naming the field that is missing or extra. */
function keyOf(input: RetractInput, at: number): ObservationKey {
  const rate = input.currency !== undefined || input.source !== undefined;
  if (input.purity !== undefined) {
    if (rate) {
      throw invalid('purity', 'names a gold price, which has no currency or source: give purity alone');
    }
    return { kind: 'gold', purity: input.purity as Purity, updatedAt: at };
  }
  if (input.currency === undefined) {
    throw invalid('currency', 'is required for a rate (with source); for a gold price give purity');
  }
  if (input.source === undefined) throw invalid('source', 'is required with currency');
  return { kind: 'rates', currency: input.currency, source: input.source as Source, updatedAt: at };
}

const seriesName = (k: ObservationKey) =>
  k.kind === 'rates' ? `${k.currency} ${k.source}` : `gold ${k.purity}`;

function view(r: RetractionRecord, latest: RetractionView['latest'], dryRun: boolean): RetractionView {
  return {
    retraction: {
      id: dryRun ? null : r.id,
      kind: r.kind,
      code: r.code,
      source: r.source,
      updatedAt: iso(r.updatedAt),
      ...amounts(r),
      reason: r.reason,
      actor: r.actor,
      retractedAt: iso(r.retractedAt),
    },
    latest,
    dryRun,
  };
}

export async function retractObservation(
  store: Store,
  actor: Actor,
  input: RetractInput,
  options: OperationOptions = {},
): Promise<Result<RetractionView>> {
  return refusing(async () => {
    const given = checked(RetractionCreate, input);
    const at = Date.parse(given.at);
    const key = keyOf(given, at);
    const outcome = await store.imports.retract({
      key,
      reason: given.reason,
      actor,
      now: options.now ?? Date.now(),
      dryRun: given.dryRun === true,
    });
    if (outcome.status === 'not_found') {
      throw notFound(
        `no ${seriesName(key)} observation at ${iso(at)}: give its updatedAt to the millisecond, ` +
          'as the history shows it',
      );
    }
    if (outcome.status === 'already_retracted') {
      const r = outcome.retraction;
      throw conflict(
        `${seriesName(key)} at ${iso(at)} was already retracted (${r.id}, ${iso(r.retractedAt)}, ` +
          `by ${r.actor.label}: ${r.reason}); an import with reinstate brings it back`,
      );
    }
    const latest =
      outcome.latest === null
        ? null
        : { updatedAt: iso(outcome.latest.updatedAt), ...amounts(outcome.latest) };
    return view(outcome.retraction, latest, outcome.dryRun);
  });
}
