/**
 * The reporter API's operations under /report/v1 (docs/decisions.md 110),
 * thin over src/use-cases/quotes.ts: send one quote or a batch, read back
 * one's own quotes, the current consensus of one's markets, and who the token
 * is. plugins/report.ts mounts them behind the reporter's token, its limit
 * and, on a POST, its Idempotency-Key.
 */

import type { TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import {
  ConsensusAnswer,
  MAX_BATCH,
  QuoteAnswer,
  QuoteBatch,
  QuoteBatchAnswer,
  QuoteInput,
  QuoteListAnswer,
  QuoteListQuery,
  reportResponses,
  SelfAnswer,
} from '../../schemas/report.js';
import type { ReporterRecord } from '../../storage/reporter-records.js';
import { currentConsensus, recentQuotes, submitQuotes } from '../../use-cases/quotes.js';
import { ApiError } from '../errors.js';

export interface ReportRoute {
  method: 'GET' | 'POST';
  /** The path under /report/v1. */
  url: string;
  schema: {
    tags: string[];
    operationId: string;
    summary: string;
    description: string;
    querystring?: TSchema;
    body?: TSchema;
    response: Record<number, TSchema>;
  };
  handler: (request: FastifyRequest, reply: FastifyReply, context: ReportContext) => Promise<unknown>;
}

export interface ReportContext {
  services: Services;
  reporter: ReporterRecord;
}

const answer = (request: FastifyRequest, reply: FastifyReply, data: unknown, status = 200) => {
  reply.code(status);
  return { data, meta: { requestId: request.id } };
};

/**
 * What a quote's typo guard compares with (docs/decisions.md 107): the
 * market's latest parallel rate or gold as this instance serves it, read
 * from the snapshot, so a quote costs no read of the market.
 */
function lastServed(snapshot: MarketSnapshot, market: string) {
  const rate = snapshot.latest('parallel', market);
  if (rate) return { buy: rate.buy, sell: rate.sell, at: rate.updatedAt };
  const gold = snapshot.gold.find((g) => g.purity === market);
  // The gold record holds decimals of at most 6 places: back to exact micro-units.
  return (
    gold && {
      buy: Math.round(gold.buy * 1e6),
      sell: Math.round(gold.sell * 1e6),
      at: Date.parse(gold.updatedAt),
    }
  );
}

/** Stores the quotes, or refuses them all naming each problem; then tells the consensus their markets. */
async function take(
  request: FastifyRequest,
  { services, reporter }: ReportContext,
  inputs: readonly QuoteInput[],
  prefix: (index: number) => string,
) {
  const outcome = await submitQuotes(services.store, reporter, inputs, {
    now: services.now(),
    windowMs: services.consensusSettings.windowMs,
    prefix,
    published: (market) => lastServed(services.market.snapshot, market),
  });
  if (!outcome.ok) {
    throw new ApiError(
      400,
      'invalid_request',
      outcome.problems.map((p) => ({ parameter: p.field, message: p.message })),
      undefined,
      'Nothing was stored: correct the quotes named in details and send them again.',
    );
  }
  try {
    await services.consensus.quotesArrived(outcome.markets);
  } catch (err) {
    // The quotes are stored: the consensus recomputes them on its next pass.
    request.log.error({ err }, 'the consensus could not be told of new quotes');
  }
  return outcome.quotes;
}

const tags = ['Quotes'];

export const reportRoutes: ReportRoute[] = [
  {
    method: 'POST',
    url: '/quotes',
    schema: {
      tags,
      operationId: 'submitQuote',
      summary: 'Send a quote',
      description:
        'One quote of a market you may quote. Refused, with the value and the fix, when sell is below buy, ' +
        'the market is not yours, it is dated more than 2 minutes ahead or before the consensus window, or a ' +
        'side is more than 50 % from the market’s last published value (a typo, not a move).',
      body: QuoteInput,
      response: reportResponses({ status: 201, schema: QuoteAnswer }, true),
    },
    handler: async (request, reply, context) => {
      const [quote] = await take(request, context, [request.body as QuoteInput], () => '');
      return answer(request, reply, quote, 201);
    },
  },
  {
    method: 'POST',
    url: '/quotes/batch',
    schema: {
      tags,
      operationId: 'submitQuotes',
      summary: 'Send several quotes',
      description:
        `1 to ${MAX_BATCH} quotes, stored all together or not at all: every refused quote is named by its ` +
        'index (`quotes.3.sell`) with the value and the fix. A phone that kept quotes while offline sends ' +
        'them here, with an Idempotency-Key, so a retry never counts them twice.',
      body: QuoteBatch,
      response: reportResponses({ status: 201, schema: QuoteBatchAnswer }, true),
    },
    handler: async (request, reply, context) => {
      const { quotes } = request.body as QuoteBatch;
      return answer(request, reply, await take(request, context, quotes, (i) => `quotes.${i}.`), 201);
    },
  },
  {
    method: 'GET',
    url: '/quotes',
    schema: {
      tags,
      operationId: 'listOwnQuotes',
      summary: 'Your recent quotes',
      description: 'The quotes sent with this reporter’s tokens, newest received first.',
      querystring: QuoteListQuery,
      response: reportResponses({ status: 200, schema: QuoteListAnswer }, false),
    },
    handler: async (request, reply, { services, reporter }) =>
      answer(
        request,
        reply,
        await recentQuotes(services.store, reporter, (request.query as { limit: number }).limit),
      ),
  },
  {
    method: 'GET',
    url: '/consensus',
    schema: {
      tags: ['Consensus'],
      operationId: 'getConsensus',
      summary: 'The consensus of your markets',
      description:
        'For each market you may quote, the consensus now, computed from every active reporter’s latest ' +
        'quote in the window: its state, buy and sell, how many organisations and quotes it rests on, how ' +
        'many organisations were excluded, its dispersion and confidence. It names no reporter.',
      response: reportResponses({ status: 200, schema: ConsensusAnswer }, false),
    },
    handler: async (request, reply, { services, reporter }) =>
      answer(
        request,
        reply,
        await currentConsensus(services.store, reporter.markets, services.consensusSettings, services.now()),
      ),
  },
  {
    method: 'GET',
    url: '/me',
    schema: {
      tags: ['Consensus'],
      operationId: 'getReporter',
      summary: 'Who the token is',
      description: 'Your pseudonym and the markets you may quote.',
      response: reportResponses({ status: 200, schema: SelfAnswer }, false),
    },
    handler: async (request, reply, { reporter }) =>
      answer(request, reply, { id: reporter.id, markets: reporter.markets }),
  },
];
