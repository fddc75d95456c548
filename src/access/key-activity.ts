/**
 * `key.lastUsedAt` (decisions §3): remembered in memory on every use and written
 * to the store at most once a minute per key, in batches off the request path.
 */
import type { Store } from '../storage/store.js';

const WRITE_EVERY_MS = 60_000;

/** A key's last use here, and when that was last queued for the store. */
interface Use {
  at: number;
  written: number;
}

export class KeyActivity {
  private readonly uses = new Map<string, Use>();
  /** The last key used and its entry: a client sends the same key again and again (no map lookup then). */
  private lastKey: string | undefined;
  private lastEntry: Use | undefined;
  private dirty = new Map<string, number>();

  constructor(private readonly store: Store) {}

  use(publicId: string, now: number): void {
    let use = publicId === this.lastKey ? this.lastEntry : this.uses.get(publicId);
    if (use === undefined) {
      use = { at: now, written: Number.NEGATIVE_INFINITY };
      this.uses.set(publicId, use);
    }
    this.lastKey = publicId;
    this.lastEntry = use;
    use.at = now;
    if (now - use.written >= WRITE_EVERY_MS) {
      use.written = now;
      this.dirty.set(publicId, now);
    }
  }

  /** The freshest known use: this instance's memory, else the store's value. */
  lastUsedAt(publicId: string, stored: number | null): number | null {
    const mine = this.uses.get(publicId)?.at;
    if (mine === undefined) return stored;
    return stored === null ? mine : Math.max(mine, stored);
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = [...this.dirty].map(([publicId, at]) => ({ publicId, at }));
    this.dirty = new Map();
    await this.store.access.touchKeys(batch);
  }
}
