/**
 * Per-address throttle on failed authentication (decisions 18a): once
 * an address has presented `limit` invalid keys in a UTC minute, its further
 * invalid keys are answered 429 until the minute ends. It counts and refuses
 * only keys that fail: a key that verifies is served from any address, so a
 * shared address (a NAT, a proxy that is not trusted) cannot lock out its
 * honest users.
 */
import { minuteWindow, secondsUntil } from '../domain/dates.js';

const MAX_TRACKED = 100_000;
/**
 * Longer addresses are counted by their first characters: with MDS_TRUST_PROXY=true
 * a client names its own address, and a count must not hold kilobytes of header.
 */
const MAX_ADDRESS = 64;
const bounded = (address: string) => (address.length > MAX_ADDRESS ? address.slice(0, MAX_ADDRESS) : address);

export class FailedAttempts {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(readonly limit = 30) {}

  private roll(now: number): void {
    const start = minuteWindow(now).start;
    if (start !== this.window || this.counts.size > MAX_TRACKED) {
      this.window = start;
      this.counts = new Map();
    }
  }

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  blockedFor(address: string, now: number): number {
    this.roll(now);
    return (this.counts.get(bounded(address)) ?? 0) >= this.limit
      ? secondsUntil(minuteWindow(now).end, now)
      : 0;
  }

  fail(address: string, now: number): void {
    this.roll(now);
    const key = bounded(address);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
