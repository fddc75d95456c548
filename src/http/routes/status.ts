/**
 * `GET /status` (docs/decisions.md 53): how old the newest data of each family
 * is, against MDS_STALE_AFTER, and the state of each consensus market
 * (decisions 107). Outside /v1: no key, no quota; the families come from the
 * instance's snapshot, the markets' states from the store at most once every
 * few seconds (a state changes without a publication, which the snapshot
 * would not see), so a flood of /status costs the store nothing more.
 *
 * 200 whether the data is fresh or stale: the answer is information, and
 * alerts are on its `status` or on the `mds_data_age_seconds` gauges.
 * `/readyz` does not look at freshness: old data on every instance would take
 * them all out of the load balancer, turning stale data into no data.
 */
import type { FastifyInstance } from 'fastify';
import { PURITIES } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import { StatusResponses } from '../../schemas/health.js';
import type { MarketState } from '../../storage/reporter-records.js';
import { envelopeOf } from '../respond.js';

/** How long the consensus markets' states read from the store are served. */
const STATES_FOR_MS = 5_000;

/** The markets' states, read once per STATES_FOR_MS whatever the requests; the last read kept if one fails. */
function marketStates(services: Services): () => Promise<MarketState[]> {
  let held: { states: MarketState[]; until: number } = { states: [], until: 0 };
  let reading: Promise<void> | null = null;
  return async () => {
    if (services.now() >= held.until) {
      reading ??= services.store.consensus
        .marketStates()
        .then((states) => {
          held = { states, until: services.now() + STATES_FOR_MS };
        })
        .catch(() => {
          // The store is unavailable: /readyz says so; /status keeps the last states it read.
        })
        .finally(() => {
          reading = null;
        });
      await reading;
    }
    return held.states;
  };
}

export function statusRoutes(app: FastifyInstance, services: Services): void {
  const states = marketStates(services);
  app.get(
    '/status',
    {
      schema: {
        tags: ['Health'],
        // No key: the document's default security (a key) does not apply here.
        security: [],
        operationId: 'getStatus',
        summary: 'Data freshness',
        description:
          'How old the newest observation of each family (parallel, official and transfer rates, gold) is, and ' +
          'whether it is past its threshold (`MDS_STALE_AFTER`). A family the operator does not publish ' +
          '(`MDS_PUBLISHED_FAMILIES`) is listed with `published: false` and is never stale. Answers 200 whether the data is fresh or stale; ' +
          '`/readyz` does not depend on it. Consumes nothing.',
        response: StatusResponses,
      },
    },
    async (request, reply) => {
      const report = services.freshness.report();
      const families = Object.fromEntries(
        Object.entries(report.families).map(([family, f]) => [
          family,
          {
            updatedAt: f.updatedAt === null ? null : new Date(f.updatedAt).toISOString(),
            ageSeconds: f.ageSeconds,
            thresholdSeconds: f.thresholdSeconds,
            published: f.published,
            stale: f.stale,
          },
        ]),
      );
      const now = services.now();
      const consensus = (await states())
        .map((m) => {
          const family = (PURITIES as readonly string[]).includes(m.market) ? 'gold' : 'parallel';
          const at = m.last?.at ?? null;
          const ageSeconds = at === null ? null : Math.floor((now - at) / 1000);
          const old = ageSeconds === null || ageSeconds > report.families[family].thresholdSeconds;
          const state = m.state !== 'ok' ? m.state : old ? 'stale' : 'ok';
          return {
            market: m.market,
            state,
            lastPublishedAt: at === null ? null : new Date(at).toISOString(),
            ageSeconds,
          };
        })
        .sort((a, b) => (a.market < b.market ? -1 : 1));
      reply.header('cache-control', 'no-store');
      return envelopeOf(request, reply, { status: report.stale ? 'stale' : 'ok', families, consensus });
    },
  );
}
