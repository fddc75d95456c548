/**
 * What a running instance is made of. `buildApp` receives it; the server and the
 * tests assemble it (runtime/assemble.ts) from a store URL and a limiter choice.
 */

import type { Authenticator } from '../access/authenticator.js';
import type { KeyActivity } from '../access/key-activity.js';
import type { ConsensusPublisher } from '../consensus/publisher.js';
import type { ConsensusSettings } from '../domain/consensus.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { ImportThreads } from '../import/threads.js';
import type { Limiter } from '../limits/limiter.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../storage/store.js';
import type { WebhookSettings } from '../webhooks/settings.js';
import type { Freshness } from './freshness.js';
import type { MarketData } from './market-data.js';

export interface Services {
  store: Store;
  limiter: Limiter;
  authenticator: Authenticator;
  market: MarketData;
  /** How old each family's newest observation is, against MDS_STALE_AFTER (GET /status, the gauges). */
  freshness: Freshness;
  cursors: CursorCodec;
  activity: KeyActivity;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => number;
  metrics: Metrics;
  /** Set when the process is stopping: answer, but close each connection after. */
  lifecycle: { draining: boolean };
  /** Webhook targets, retries and polling (MDS_WEBHOOK_*). */
  webhooks: WebhookSettings;
  /** MDS_CONSENSUS_WINDOW and MDS_CONSENSUS_QUORUM (docs/decisions.md 107). */
  consensusSettings: ConsensusSettings;
  /** The street markets' consensus: recomputed as quotes arrive and by a periodic pass (docs/decisions.md 109). */
  consensus: ConsensusPublisher;
  /** The admin API's imports, each on a thread of its own, at most MDS_ADMIN_IMPORTS at once. */
  imports: ImportThreads;
}
