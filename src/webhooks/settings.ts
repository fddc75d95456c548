/**
 * How the serving process delivers webhooks (docs/decisions.md, 68): the
 * target policy, the retry schedule, how often it looks for due deliveries,
 * and how long a claim on one holds.
 */
import { defaultOf } from '../config/environment.js';
import type { ClaimLimits } from '../storage/webhook-records.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './attempt.js';
import { DEFAULT_DELAYS_MS } from './schedule.js';
import type { TargetPolicy } from './targets.js';

export interface WebhookSettings {
  /** MDS_WEBHOOK_ALLOW_HTTP, MDS_WEBHOOK_ALLOW_PRIVATE. */
  policy: TargetPolicy;
  /** MDS_WEBHOOK_RETRY_SCHEDULE: the delay before each attempt, the first 0. */
  delaysMs: readonly number[];
  /** MDS_WEBHOOK_POLL_MS: how often the outbox and the state behind derived events are read. */
  pollMs: number;
  attemptTimeoutMs: number;
  /**
   * A claim outlives its attempt (the timeout) with room to record it; a claim
   * whose holder died lapses after this, and another process attempts again.
   */
  leaseMs: number;
  /**
   * Attempts in flight in one process, at most: to receivers in good standing,
   * and to receivers whose last attempt failed (docs/decisions.md, 95).
   */
  lanes: ClaimLimits;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  policy: { allowHttp: false, allowPrivate: false },
  delaysMs: DEFAULT_DELAYS_MS,
  pollMs: Number(defaultOf('MDS_WEBHOOK_POLL_MS')),
  attemptTimeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS,
  leaseMs: DEFAULT_ATTEMPT_TIMEOUT_MS + 20_000,
  lanes: { healthy: 16, failing: 48 },
};
