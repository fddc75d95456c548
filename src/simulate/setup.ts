/**
 * What the simulator needs from the store (docs/decisions.md 118): its
 * organisations `sim-1`… and reporters `sim-1-r1`…, made or brought back
 * through the same operations as `mds reporters` (so they are audited), each
 * given a fresh token; each market's latest published price as the base; and
 * the publications made while it runs.
 */
import { microsToNumber } from '../domain/decimal.js';
import { PURITIES } from '../domain/types.js';
import type { Store } from '../storage/store.js';
import type { Actor, Result } from '../use-cases/contract.js';
import {
  createOrganisation,
  createReporter,
  listOrganisations,
  listReporters,
  rollReporterToken,
  updateReporter,
} from '../use-cases/reporters.js';
import type { Publication } from './run.js';

/**
 * Tokens of `reporters` reporters in each of `organisations` organisations
 * quoting `markets`. A reporter left by an earlier run is set to these markets,
 * made active and given a new token at once (no grace: the earlier run is over).
 */
export async function prepareReporters(
  store: Store,
  actor: Actor,
  spec: { organisations: number; reportersPerOrganisation: number; markets: string[] },
  /** An operation's value, or its refusal thrown as the caller says it (the CLI names the option). */
  must: <T>(result: Result<T>) => T,
): Promise<string[][]> {
  const existing = must(await listOrganisations(store, actor, { limit: 1000 })).items;
  const tokens: string[][] = [];
  for (let i = 1; i <= spec.organisations; i++) {
    const name = `sim-${i}`;
    const organisation =
      existing.find((o) => o.name === name) ?? must(await createOrganisation(store, actor, { name }));
    const reporters = must(
      await listReporters(store, actor, { organisationId: organisation.id, limit: 1000 }),
    ).items.filter((r) => r.status !== 'removed');
    const row: string[] = [];
    for (let k = 1; k <= spec.reportersPerOrganisation; k++) {
      const label = `${name}-r${k}`;
      const found = reporters.find((r) => r.label === label);
      if (!found) {
        const created = must(
          await createReporter(store, actor, {
            organisationId: organisation.id,
            label,
            markets: spec.markets,
          }),
        );
        row.push(created.token);
        continue;
      }
      must(await updateReporter(store, actor, { id: found.id, markets: spec.markets, status: 'active' }));
      row.push(must(await rollReporterToken(store, actor, { id: found.id, gracePeriodSeconds: 0 })).token);
    }
    tokens.push(row);
  }
  return tokens;
}

/** Each market's latest published buy and sell in DZD: the parallel rate, or the gold price of that purity. */
export async function latestBases(store: Store): Promise<Record<string, { buy: number; sell: number }>> {
  const base: Record<string, { buy: number; sell: number }> = {};
  for (const r of await store.market.latestRates())
    if (r.source === 'parallel')
      base[r.currency] = { buy: microsToNumber(r.buy), sell: microsToNumber(r.sell) };
  for (const g of await store.market.latestGold())
    if ((PURITIES as readonly string[]).includes(g.purity))
      base[g.purity] = { buy: microsToNumber(g.buy), sell: microsToNumber(g.sell) };
  return base;
}

/** Reads the markets' states and tells each publication made since the last call, once. */
export function publicationWatcher(store: Store, markets: string[]): () => Promise<Publication[]> {
  const seen = new Map<string, number>();
  let first = true;
  return async () => {
    const found: Publication[] = [];
    for (const market of markets) {
      const state = await store.consensus.marketState(market);
      const at = state?.last?.at;
      if (at === undefined || seen.get(market) === at) continue;
      seen.set(market, at);
      // What was published before the run is the starting point, not news.
      if (first) continue;
      const point = await store.consensus.pointAt(market, at);
      if (!point) continue;
      found.push({
        market,
        at,
        buy: microsToNumber(point.buy),
        sell: microsToNumber(point.sell),
        organisations: point.organisations,
        excluded: point.excluded,
        confidence: point.confidence,
      });
    }
    first = false;
    return found;
  };
}
