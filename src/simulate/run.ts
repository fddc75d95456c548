/**
 * The simulator's run in real time (docs/decisions.md 118): each quote of
 * simulatedQuotes() is posted to the reporter API when its instant comes, as
 * the reporter's program would, with an Idempotency-Key; the store is read
 * once a second for new publications. A slow answer never delays the next
 * quote: posts run side by side, and the run ends by waiting for them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimulatedQuote } from './quotes.js';

export interface Publication {
  market: string;
  at: number;
  buy: number;
  sell: number;
  organisations: number;
  excluded: number;
  confidence: string;
}

export interface RunOptions {
  /** The reporter API's base, e.g. http://127.0.0.1:9090 (its /report/v1 is appended). */
  url: string;
  quotes: Iterable<SimulatedQuote>;
  /** Each simulated reporter's token: tokens[organisation - 1][reporter]. */
  tokens: string[][];
  /** Names this run's Idempotency-Keys, so that a second run never replays the first one's answers. */
  runId: string;
  /** The publications made since the last call, per market. */
  observe: () => Promise<Publication[]>;
  onPublication: (publication: Publication) => void;
  onRefusal: (quote: SimulatedQuote, status: number, message: string) => void;
  signal: AbortSignal;
  /** How often the store is read for publications. */
  observeEveryMs?: number;
}

export interface RunSummary {
  sent: number;
  accepted: number;
  refused: number;
  publications: number;
}

export async function runSimulation(options: RunOptions): Promise<RunSummary> {
  const summary: RunSummary = { sent: 0, accepted: 0, refused: 0, publications: 0 };
  const start = Date.now();
  const inFlight = new Set<Promise<void>>();
  const endpoint = `${options.url.replace(/\/+$/, '')}/report/v1/quotes`;

  const post = async (quote: SimulatedQuote, n: number) => {
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.tokens[quote.organisation - 1]![quote.reporter]!}`,
          'content-type': 'application/json',
          'idempotency-key': `sim-${options.runId}-${n}`,
        },
        body: JSON.stringify({ market: quote.market, buy: quote.buy, sell: quote.sell, place: 'simulation' }),
      });
      const text = await res.text();
      if (res.status === 201) summary.accepted++;
      else {
        summary.refused++;
        options.onRefusal(quote, res.status, refusalText(text));
      }
    } catch (err) {
      summary.refused++;
      options.onRefusal(quote, 0, (err as Error).message);
    }
  };

  let observing = true;
  const observer = (async () => {
    while (observing) {
      for (const p of await options.observe()) {
        summary.publications++;
        options.onPublication(p);
      }
      await sleep(options.observeEveryMs ?? 1_000, undefined, { signal: options.signal }).catch(() => {});
      if (options.signal.aborted) break;
    }
  })();

  for (const quote of options.quotes) {
    const wait = start + quote.atMs - Date.now();
    if (wait > 0) await sleep(wait, undefined, { signal: options.signal }).catch(() => {});
    if (options.signal.aborted) break;
    const n = summary.sent++;
    const p = post(quote, n).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  observing = false;
  await observer;
  // The publications of the last quotes, once they are all answered.
  for (const p of await options.observe()) {
    summary.publications++;
    options.onPublication(p);
  }
  return summary;
}

/** The refusal's first detail, or its message. */
function refusalText(body: string): string {
  try {
    const error = (JSON.parse(body) as { error?: { message?: string; details?: { message?: string }[] } })
      .error;
    return error?.details?.[0]?.message ?? error?.message ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}
