/**
 * How old the data this instance serves is (docs/decisions.md 53), for
 * `GET /status` and the `mds_data_age_seconds` gauges: per family (the three
 * rate sources and gold), the newest observation's time, which the snapshot
 * finds once per version of the data, and its age at the instance's clock when
 * asked. Nothing here reads the store: the snapshot is refreshed within 2 s of
 * an import on every instance (runtime/watcher.ts).
 *
 * A family the operator does not publish (MDS_PUBLISHED_FAMILIES,
 * docs/decisions.md 99) is still reported, but never stale: no data of it is
 * expected, so its absence is no alarm.
 */
import { STALE_FAMILIES, type StaleAfter, type StaleFamily, staleAfterSeconds } from '../config.js';
import type { MarketData } from './market-data.js';

export interface FamilyFreshness {
  /** The newest observation's `updatedAt` (epoch ms); null when the family has none. */
  updatedAt: number | null;
  /** Whole seconds since `updatedAt` at the time of asking; null without an observation. */
  ageSeconds: number | null;
  thresholdSeconds: number;
  /** The operator publishes it (MDS_PUBLISHED_FAMILIES): watched for freshness. */
  published: boolean;
  /** Published, and older than the threshold or without any observation. */
  stale: boolean;
}

export interface FreshnessReport {
  /** Any family stale. */
  stale: boolean;
  families: Record<StaleFamily, FamilyFreshness>;
}

export class Freshness {
  readonly thresholds: StaleAfter;
  private readonly published: ReadonlySet<StaleFamily>;

  constructor(
    private readonly market: MarketData,
    private readonly now: () => number,
    thresholds?: StaleAfter,
    published: readonly StaleFamily[] = STALE_FAMILIES,
  ) {
    this.thresholds = thresholds ?? staleAfterSeconds();
    this.published = new Set(published);
  }

  report(): FreshnessReport {
    const { newest } = this.market.snapshot;
    const now = this.now();
    const families = {} as Record<StaleFamily, FamilyFreshness>;
    let stale = false;
    for (const family of STALE_FAMILIES) {
      const updatedAt = newest[family];
      const thresholdSeconds = this.thresholds[family];
      const published = this.published.has(family);
      // Negative when the newest observation is dated ahead of this instance's clock.
      const ageSeconds = updatedAt === null ? null : Math.floor((now - updatedAt) / 1000);
      const old = published && (ageSeconds === null || ageSeconds > thresholdSeconds);
      families[family] = { updatedAt, ageSeconds, thresholdSeconds, published, stale: old };
      stale ||= old;
    }
    return { stale, families };
  }
}
