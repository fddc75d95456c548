/**
 * The log of a store's space (storage/space.ts): one line when a write is
 * refused for lack of space, with the driver's words, and one when writes go
 * through again; never one per refused request (docs/decisions.md 97).
 */
import type { Logger } from 'pino';
import type { StoreSpace } from '../storage/space.js';

export function logStoreSpace(space: StoreSpace, logger: Logger): void {
  space.onChange((full) => {
    if (full)
      logger.error(
        { reason: full.reason, detail: full.detail },
        `${full.reason}: /readyz answers not ready, /v1 503 and admin writes 507 until a write goes through again`,
      );
    else logger.info('the store takes writes again: /readyz answers ready');
  });
}
