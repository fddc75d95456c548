/** Deterministic randomness for the sample: seeded streams and the walks built on them. */

/** Changing it changes every generated value. */
const SEED = 'dzd-sample-v1';

// ---------------------------------------------------------------------------
// Randomness (deterministic)
// ---------------------------------------------------------------------------

export type Rng = () => number;

/** FNV-1a 32-bit over UTF-16 code units. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function mulberry32(seed: number): Rng {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function stream(code: string, series: string): Rng {
  return mulberry32(hash32(`${SEED}:${code}:${series}`));
}

/** Approximately standard normal (Irwin–Hall, n = 3): arithmetic only. */
export function gauss(rng: Rng): number {
  return (rng() + rng() + rng() - 1.5) * 2;
}

/**
 * Mean-reverting walk generated backwards from 0 at the last day (an OU process
 * is time-reversible, so this is statistically the same as running it forward).
 */
export function revertingWalk(rng: Rng, n: number, sigma: number, theta: number): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i > 0; i--) x[i - 1] = x[i]! * (1 - theta) + sigma * gauss(rng);
  return x;
}

/** Smooth drift: `end` on the last day, divided by (1 + g/365) per day before. */
export function trend(end: number, n: number, growthPerYear: number): Float64Array {
  const t = new Float64Array(n);
  const step = 1 + growthPerYear / 365;
  t[n - 1] = end;
  for (let i = n - 1; i > 0; i--) t[i - 1] = t[i]! / step;
  return t;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}

/** A factor 1 + x kept away from zero and from absurd values. */
export function factor(x: number, lo: number, hi: number): number {
  return clamp(1 + x, lo, hi);
}
