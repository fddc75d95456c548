/**
 * Keeps an instance's caches fresh (decisions §3, §11: changes visible within 2
 * seconds). One cheap query per poll reads the change counters; only a moved
 * counter triggers a reload. The same tick writes pending `lastUsedAt` values.
 */
import type { Authenticator } from '../access/authenticator.js';
import type { KeyActivity } from '../access/key-activity.js';
import type { Store } from '../storage/store.js';
import type { MarketData } from './market-data.js';

export class Watcher {
  private timer: NodeJS.Timeout | null = null;
  private access = -1;
  private running = false;

  constructor(
    private readonly store: Store,
    private readonly market: MarketData,
    private readonly authenticator: Authenticator,
    private readonly activity: KeyActivity,
    private readonly intervalMs: number,
  ) {}

  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll; errors are swallowed (the store may be down: /readyz reports it). */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const v = await this.store.versions();
      // Invalidate only after the read that saw the change: a key read before that
      // change committed was started before this call, and the authenticator keeps
      // nothing a call overtook (its generations), so no stale record survives it.
      if (v.access !== this.access) {
        this.access = v.access;
        this.authenticator.invalidate();
      }
      await this.market.refresh(v.data);
      await this.activity.flush();
    } catch {
      // Keep serving the last good snapshot; the next tick retries.
    } finally {
      this.running = false;
    }
  }
}
