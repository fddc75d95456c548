/**
 * Deterministic synthetic sample data: the product's demo and test data set.
 *
 * Every series is anchored on a "late 2026" level at `endDate` and generated
 * backwards with a slow drift plus a mean-reverting random walk, so the end
 * levels are stable whatever the seed does, and earlier history looks plausible.
 *
 * Determinism: one mulberry32 stream per (asset, series), seeded from a fixed
 * constant and the asset code. Only IEEE-754 basic operations (+ − × ÷) are used
 * on the random numbers (no Math.exp/log/sin, whose last bit may differ between
 * engines), so the same options give byte-identical output anywhere.
 */

import { SCALE } from '../domain/decimal.js';
import type { Asset, GoldObservation, Purity, RateObservation, Source } from '../domain/types.js';
import { SORTED_SPECS, type Spec, sampleAssets } from './catalogue.js';
import { clamp, factor, type Rng, revertingWalk, stream, trend } from './random.js';

export { sampleAssets };

export interface SampleOptions {
  /** Last day included, `YYYY-MM-DD`, UTC. */
  endDate: string;
  /** Number of days, ending at `endDate` (default 731). */
  days?: number;
}

export interface SampleData {
  assets: Asset[];
  rates: RateObservation[];
  gold: GoldObservation[];
}

export const SAMPLE_NOTICE = 'SYNTHETIC SAMPLE DATA – generated, not real market quotes';

export const DEFAULT_SAMPLE_DAYS = 731;
/** Upper bound on `days` (ten years) keeps every drifted level sane. */
export const MAX_SAMPLE_DAYS = 3660;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Time of day of each series; the emission order of sources follows it. */
const SOURCE_OFFSET_MS: Record<Source, number> = {
  parallel: 9 * HOUR_MS,
  official: 10 * HOUR_MS,
  transfer: 11 * HOUR_MS,
};
const EMIT_ORDER: readonly Source[] = ['parallel', 'official', 'transfer'];
const GOLD_OFFSET_MS = 9 * HOUR_MS + 30 * 60_000;

/**
 * The last UTC day whose every observation is already in the past at `now`:
 * today once its last series (transfer, 11:00) is, else yesterday. A sample
 * ending there has no time in the future, and its newest parallel quote is at
 * most 26 hours old, inside the default freshness threshold (decisions 53).
 */
export function lastCompleteDay(now: number = Date.now()): string {
  const today = now - (now % DAY_MS);
  const last = Math.max(...Object.values(SOURCE_OFFSET_MS), GOLD_OFFSET_MS);
  return new Date(now >= today + last ? today : today - DAY_MS).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------
// Price paths
// ---------------------------------------------------------------------------

interface Paths {
  official: Float64Array;
  parallel: Float64Array;
}

function pathsFor(spec: Spec, n: number, done: ReadonlyMap<string, Paths>): Paths {
  const offRng = stream(spec.code, 'official');
  const parRng = stream(spec.code, 'parallel');
  const official = new Float64Array(n);
  const parallel = new Float64Array(n);

  if (spec.peg) {
    const base = done.get(spec.peg.to);
    if (!base) throw new Error(`sample: ${spec.code} pegged to unknown ${spec.peg.to}`);
    // Cross-rate noise of a few basis points around the peg.
    const jitter = revertingWalk(offRng, n, 0.0002, 0.2);
    for (let i = 0; i < n; i++) official[i] = base.official[i]! * spec.peg.factor * (1 + jitter[i]!);
    if (spec.peg.parallelToo) {
      const pj = revertingWalk(parRng, n, 0.001, 0.2);
      for (let i = 0; i < n; i++) parallel[i] = base.parallel[i]! * spec.peg.factor * (1 + pj[i]!);
      return { official, parallel };
    }
  } else {
    // End level within ±0.5 % of the catalogue value, so seeds do not all land on round numbers.
    const anchor = spec.level * (1 + (offRng() - 0.5) * 0.01);
    const drift = trend(anchor, n, spec.growth);
    const walk = revertingWalk(offRng, n, spec.offVol, spec.offRevert);
    for (let i = 0; i < n; i++) official[i] = drift[i]! * factor(walk[i]!, 0.3, 3);
  }

  // Parallel: official × (1 + premium), the premium a little thinner in the past
  // (−2.5 % of itself per year, at most −50 %) and noisy day to day.
  const premiumEnd = spec.premium * (1 + (parRng() - 0.5) * 0.02);
  const noise = revertingWalk(parRng, n, spec.parVol, spec.parRevert);
  for (let i = 0; i < n; i++) {
    const yearsBefore = (n - 1 - i) / 365;
    const thin = Math.max(0.5, 1 - yearsBefore * 0.025);
    parallel[i] = official[i]! * (1 + premiumEnd * thin) * factor(noise[i]!, 0.7, 1.3);
  }
  return { official, parallel };
}

// ---------------------------------------------------------------------------
// Quotes
// ---------------------------------------------------------------------------

const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000] as const;

/** Integer micro-DZD rounded to `dp` decimals, never below one quoted unit. */
function toMicros(value: number, dp: number): number {
  const per = POW10[dp]!;
  const unit = SCALE / per;
  const units = Math.round(value * per);
  return Math.max(units, 1) * unit;
}

interface Quotes {
  buy: Float64Array;
  sell: Float64Array;
}

/** Buy/sell around `mid` with a relative spread jittered ±15 % day to day; sell > buy always. */
function quote(mid: Float64Array, spread: number, dp: number, rng: Rng): Quotes {
  const n = mid.length;
  const buy = new Float64Array(n);
  const sell = new Float64Array(n);
  const unit = SCALE / POW10[dp]!;
  for (let i = 0; i < n; i++) {
    const half = (spread * (0.85 + 0.3 * rng())) / 2;
    const b = toMicros(mid[i]! * (1 - half), dp);
    let s = toMicros(mid[i]! * (1 + half), dp);
    if (s <= b) s = b + unit;
    buy[i] = b;
    sell[i] = s;
  }
  return { buy, sell };
}

const TRANSFER_WEIGHT = 0.86;

function transferMid(paths: Paths, rng: Rng): Float64Array {
  const n = paths.official.length;
  const w = revertingWalk(rng, n, 0.004, 0.05);
  const mid = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const weight = clamp(TRANSFER_WEIGHT + w[i]!, 0.7, 0.95);
    const off = paths.official[i]!;
    mid[i] = off + (paths.parallel[i]! - off) * weight;
  }
  return mid;
}

// ---------------------------------------------------------------------------
// Gold (Algerian street price per gram)
// ---------------------------------------------------------------------------

interface GoldSpec {
  purity: Purity;
  ratio: number;
  premium: number;
  spread: number;
}

const GOLD_18K_END = 30_000;
const GOLD_SPECS: readonly GoldSpec[] = [
  { purity: '18K', ratio: 1, premium: 0, spread: 0.035 },
  { purity: '21K', ratio: 21 / 18, premium: 0.008, spread: 0.03 },
  { purity: '24K', ratio: 24 / 18, premium: 0.015, spread: 0.025 },
];

function goldQuotes(xau: Paths, n: number): Quotes[] {
  const rng = stream('GOLD', '18K');
  const anchor = GOLD_18K_END * (1 + (rng() - 0.5) * 0.02);
  // Street gold follows world gold at the parallel rate, with its own local noise.
  const local = revertingWalk(rng, n, 0.003, 0.05);
  const lastXau = xau.parallel[n - 1]!;
  const base = new Float64Array(n);
  for (let i = 0; i < n; i++) base[i] = ((anchor * xau.parallel[i]!) / lastXau) * (1 + local[i]!);

  return GOLD_SPECS.map((g) => {
    const r = stream('GOLD', g.purity);
    const jitter = revertingWalk(r, n, 0.001, 0.1);
    const mid = new Float64Array(n);
    for (let i = 0; i < n; i++) mid[i] = base[i]! * g.ratio * (1 + g.premium + jitter[i]!);
    return quote(mid, g.spread, 0, stream('GOLD', `${g.purity}:spread`));
  });
}

// ---------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseEndDate(text: string): number {
  const m = typeof text === 'string' ? DATE.exec(text) : null;
  if (!m) throw new RangeError(`endDate must be YYYY-MM-DD, got ${JSON.stringify(text)}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) {
    throw new RangeError(`endDate is not a calendar date: ${text}`);
  }
  return ms;
}

export function generateSample(opts: SampleOptions): SampleData {
  const endMs = parseEndDate(opts.endDate);
  const n = opts.days ?? DEFAULT_SAMPLE_DAYS;
  if (!Number.isInteger(n) || n < 1 || n > MAX_SAMPLE_DAYS) {
    throw new RangeError(`days must be an integer between 1 and ${MAX_SAMPLE_DAYS}, got ${n}`);
  }
  const firstMs = endMs - (n - 1) * DAY_MS;

  // Paths: free-floating assets first, then those pegged to them.
  const paths = new Map<string, Paths>();
  for (const s of SORTED_SPECS) if (!s.peg) paths.set(s.code, pathsFor(s, n, paths));
  for (const s of SORTED_SPECS) if (s.peg) paths.set(s.code, pathsFor(s, n, paths));

  const bySource: Record<Source, Array<{ code: string; q: Quotes }>> = {
    parallel: [],
    official: [],
    transfer: [],
  };
  for (const s of SORTED_SPECS) {
    const p = paths.get(s.code)!;
    bySource.official.push({
      code: s.code,
      q: quote(p.official, s.offSpread, s.dp, stream(s.code, 'official:spread')),
    });
    bySource.parallel.push({
      code: s.code,
      q: quote(p.parallel, s.parSpread, s.dp, stream(s.code, 'parallel:spread')),
    });
    if (s.transfer) {
      const mid = transferMid(p, stream(s.code, 'transfer'));
      bySource.transfer.push({ code: s.code, q: quote(mid, 0.01, s.dp, stream(s.code, 'transfer:spread')) });
    }
  }

  const perDay = bySource.parallel.length + bySource.official.length + bySource.transfer.length;
  const rates: RateObservation[] = new Array(n * perDay);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const dayMs = firstMs + i * DAY_MS;
    for (const source of EMIT_ORDER) {
      const updatedAt = dayMs + SOURCE_OFFSET_MS[source];
      for (const { code, q } of bySource[source]) {
        rates[k++] = { currency: code, source, buy: q.buy[i]!, sell: q.sell[i]!, updatedAt };
      }
    }
  }

  const goldQ = goldQuotes(paths.get('XAU')!, n);
  const gold: GoldObservation[] = new Array(n * GOLD_SPECS.length);
  k = 0;
  for (let i = 0; i < n; i++) {
    const updatedAt = firstMs + i * DAY_MS + GOLD_OFFSET_MS;
    for (let g = 0; g < GOLD_SPECS.length; g++) {
      const q = goldQ[g]!;
      gold[k++] = { purity: GOLD_SPECS[g]!.purity, buy: q.buy[i]!, sell: q.sell[i]!, updatedAt };
    }
  }

  return { assets: sampleAssets(), rates, gold };
}
