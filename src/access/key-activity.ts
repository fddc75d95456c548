/**
 * `key.lastUsedAt` (decisions §3): remembered in memory on every use and written
 * to the store at most once a minute per key, in batches off the request path.
 */
import type { Store } from '../storage/store.js';

const WRITE_EVERY_MS = 60_000;

export class KeyActivity {
  private readonly lastUse = new Map<string, number>();
  private readonly lastWrite = new Map<string, number>();
  private dirty = new Map<string, number>();

  constructor(private readonly store: Store) {}

  use(publicId: string, now: number): void {
    this.lastUse.set(publicId, now);
    const written = this.lastWrite.get(publicId);
    if (written === undefined || now - written >= WRITE_EVERY_MS) {
      this.lastWrite.set(publicId, now);
      this.dirty.set(publicId, now);
    }
  }

  /** The freshest known use: this instance's memory, else the store's value. */
  lastUsedAt(publicId: string, stored: number | null): number | null {
    const mine = this.lastUse.get(publicId);
    if (mine === undefined) return stored;
    return stored === null ? mine : Math.max(mine, stored);
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = [...this.dirty].map(([publicId, at]) => ({ publicId, at }));
    this.dirty = new Map();
    await this.store.touchKeys(batch);
  }
}
