/**
 * After a usage commit failed without saying whether it was applied (a lost
 * reply: docs/decisions.md, 59), the store is asked, again and again until it
 * answers; the requests waiting on that commit wait for the answer up to a
 * deadline, then are answered 503 while the asking goes on in the background.
 */

import type { UsageRepository } from '../storage/store.js';
import { type BatchOutcome, USAGE_LOOKUP_GIVE_UP_MS } from '../storage/usage-records.js';

/** How long requests wait for the answer about their commit before a 503. */
export const ANSWER_DEADLINE_MS = 3_000;
/** Pause between two questions the store did not answer. */
const ASK_AGAIN_MS = 200;

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * The store's answer about `batchId`, asked until it comes; rejects with the
 * last failure once USAGE_LOOKUP_GIVE_UP_MS have passed since `since` (the
 * instance's clock, performance.now()): after that the id may have been pruned.
 */
export async function askOutcome(
  store: Pick<UsageRepository, 'usageBatchOutcome'>,
  batchId: string,
  now: () => number,
  since: number,
): Promise<BatchOutcome> {
  for (;;) {
    try {
      return await store.usageBatchOutcome(batchId, now());
    } catch (err) {
      if (performance.now() - since > USAGE_LOOKUP_GIVE_UP_MS) throw err;
      await pause(ASK_AGAIN_MS);
    }
  }
}

/** Resolves with `answer`'s value, or `late` once `ms` have passed without one. */
export function within<T, L>(answer: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([answer, deadline]).finally(() => clearTimeout(timer));
}
