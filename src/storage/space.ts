/**
 * A full disk is a state of the store (docs/decisions.md 97): the first write
 * refused for lack of space (StoreFullError) marks the store full, `/readyz`
 * then answers not ready with the reason, and a probe retries a write every
 * PROBE_EVERY_MS until it succeeds, which marks the store writable again:
 * service resumes without a restart, within a second or two of space being
 * freed. Each backend gives the probe (sqlite-space.ts, postgres.ts).
 */
import { StoreFullError } from './errors.js';

/** Between two probes while the store is full: space freed is seen within this. */
export const PROBE_EVERY_MS = 1_000;

export interface DiskFull {
  /** `disk full (SQLITE_FULL)`, `disk full (SQLSTATE 53100)`: what /readyz and the log say. */
  reason: string;
  /** The driver's message (the log's, never an answer's: it may name a file). */
  detail: string;
  /** When the first refused write was seen (epoch ms). */
  since: number;
}

/** Whether the store is full now, for readiness and the log. */
export interface StoreSpace {
  /** The refusal that made the store full, or null while writes succeed. */
  readonly full: DiskFull | null;
  /** Told of each change: full (with why) and writable again (null). */
  onChange(listener: (full: DiskFull | null) => void): void;
}

export class SpaceMonitor implements StoreSpace {
  full: DiskFull | null = null;
  private readonly listeners: Array<(full: DiskFull | null) => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;

  constructor(
    /** A write that needs space and keeps nothing: resolves when it went through. */
    private readonly probe: () => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  onChange(listener: (full: DiskFull | null) => void): void {
    this.listeners.push(listener);
  }

  /** Every failure of the store's operations passes here; only a full disk changes the state. */
  observe = (err: unknown): void => {
    if (!(err instanceof StoreFullError) || this.full !== null || this.closed) return;
    this.set({ reason: err.reason, detail: err.message, since: this.now() });
    this.timer = setInterval(() => void this.retry(), PROBE_EVERY_MS);
    // A probe must never keep the process alive on its own.
    this.timer.unref();
  };

  private async retry(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await this.probe();
      if (this.closed) return;
      this.stopProbing();
      this.set(null);
    } catch {
      // Still full (or the store is away, which /readyz reports by itself): the next tick retries.
    } finally {
      this.probing = false;
    }
  }

  private set(full: DiskFull | null): void {
    this.full = full;
    for (const listener of this.listeners) listener(full);
  }

  private stopProbing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The store is closing: no probe after its connections are gone. */
  close(): void {
    this.closed = true;
    this.stopProbing();
  }
}
