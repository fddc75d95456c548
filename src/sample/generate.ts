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
import type { Asset, AssetType, GoldObservation, Purity, RateObservation, Source } from '../domain/types.js';

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

const SEED = 'dzd-sample-v1';
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

// ---------------------------------------------------------------------------
// Asset catalogue
// ---------------------------------------------------------------------------

interface Spec {
  code: string;
  symbol: string;
  type: AssetType;
  names: readonly [en: string, fr: string, ar: string];
  /** Official mid in DZD per unit at endDate (ignored when pegged). */
  level: number;
  /** Official mid follows another asset × factor (hard pegs, stablecoins). */
  peg?: { to: string; factor: number; parallelToo?: boolean };
  /** Log drift per year of the official level (positive: cheaper in the past). */
  growth: number;
  /** Parallel-market premium over official at endDate (0.70 = +70 %). */
  premium: number;
  /** Daily noise (standard deviation) and mean reversion of the official level. */
  offVol: number;
  offRevert: number;
  /** Daily noise and mean reversion of the parallel premium. */
  parVol: number;
  parRevert: number;
  /** Decimals quoted (2 ⇒ multiples of 10_000 micros). */
  dp: number;
  /** Relative sell − buy spreads. */
  offSpread: number;
  parSpread: number;
  /** Quoted by money-transfer operators. */
  transfer: boolean;
}

type Names = readonly [string, string, string];

function currency(
  code: string,
  symbol: string,
  names: Names,
  level: number,
  growth: number,
  premium: number,
  extra: Partial<Spec> = {},
): Spec {
  const small = level < 10;
  return {
    code,
    symbol,
    type: 'currency',
    names,
    level,
    growth,
    premium,
    offVol: 0.0015,
    offRevert: 0.01,
    parVol: 0.004,
    parRevert: 0.03,
    dp: small ? 4 : 2,
    offSpread: 0.002,
    parSpread: 0.015,
    transfer: false,
    ...extra,
  };
}

const MAJOR = { offSpread: 0.0015, parSpread: 0.012, transfer: true } as const;

const SPECS: readonly Spec[] = [
  currency('EUR', '€', ['Euro', 'Euro', 'يورو'], 153, 0.035, 0.7, MAJOR),
  currency('USD', '$', ['US Dollar', 'Dollar américain', 'دولار أمريكي'], 133, 0.015, 0.745, MAJOR),
  currency('GBP', '£', ['British Pound', 'Livre sterling', 'جنيه إسترليني'], 178.2, 0.03, 0.7, MAJOR),
  currency('CAD', 'C$', ['Canadian Dollar', 'Dollar canadien', 'دولار كندي'], 95.8, 0.01, 0.66, MAJOR),
  currency('CHF', 'CHF', ['Swiss Franc', 'Franc suisse', 'فرنك سويسري'], 166.3, 0.04, 0.68, MAJOR),
  currency('CNY', 'CN¥', ['Chinese Yuan', 'Yuan chinois', 'يوان صيني'], 18.62, 0.02, 0.72),
  currency('TRY', '₺', ['Turkish Lira', 'Livre turque', 'ليرة تركية'], 3.19, -0.22, 0.75),
  currency('SAR', '﷼', ['Saudi Riyal', 'Riyal saoudien', 'ريال سعودي'], 35.47, 0, 0.72, {
    peg: { to: 'USD', factor: 1 / 3.75 },
  }),
  currency('AED', 'د.إ', ['UAE Dirham', 'Dirham des Émirats arabes unis', 'درهم إماراتي'], 36.22, 0, 0.72, {
    peg: { to: 'USD', factor: 1 / 3.6725 },
  }),
  currency('TND', 'DT', ['Tunisian Dinar', 'Dinar tunisien', 'دينار تونسي'], 45.1, 0.02, 0.62),
  currency('MAD', 'DH', ['Moroccan Dirham', 'Dirham marocain', 'درهم مغربي'], 14.42, 0.025, 0.64),
  currency('JPY', '¥', ['Japanese Yen', 'Yen japonais', 'ين ياباني'], 0.891, 0, 0.7),
  currency('QAR', 'QR', ['Qatari Riyal', 'Riyal qatarien', 'ريال قطري'], 36.54, 0, 0.72, {
    peg: { to: 'USD', factor: 1 / 3.64 },
  }),
  currency('KWD', 'KD', ['Kuwaiti Dinar', 'Dinar koweïtien', 'دينار كويتي'], 433.6, 0.015, 0.7),
  currency('EGP', 'E£', ['Egyptian Pound', 'Livre égyptienne', 'جنيه مصري'], 2.73, -0.12, 0.78),
  currency('RUB', '₽', ['Russian Ruble', 'Rouble russe', 'روبل روسي'], 1.66, 0.03, 0.74),
  currency('AUD', 'A$', ['Australian Dollar', 'Dollar australien', 'دولار أسترالي'], 87.8, 0.01, 0.68),
  currency('SEK', 'kr', ['Swedish Krona', 'Couronne suédoise', 'كرونة سويدية'], 14.03, 0.04, 0.66),
  currency('NOK', 'kr', ['Norwegian Krone', 'Couronne norvégienne', 'كرونة نرويجية'], 13.17, 0.02, 0.66),
  currency('DKK', 'kr.', ['Danish Krone', 'Couronne danoise', 'كرونة دنماركية'], 20.51, 0, 0.69, {
    peg: { to: 'EUR', factor: 1 / 7.46 },
  }),
  currency('LYD', 'LD', ['Libyan Dinar', 'Dinar libyen', 'دينار ليبي'], 24.6, -0.05, 0.8),
  currency('BHD', 'BD', ['Bahraini Dinar', 'Dinar bahreïni', 'دينار بحريني'], 353.7, 0, 0.71, {
    peg: { to: 'USD', factor: 2.659 },
  }),
  {
    ...currency('XAU', 'Au', ['Gold (troy ounce)', 'Or (once troy)', 'ذهب (أونصة)'], 558_600, 0.2, 0.12),
    type: 'metal',
    offVol: 0.009,
    parVol: 0.003,
    parRevert: 0.05,
    dp: 0,
    offSpread: 0.003,
    parSpread: 0.015,
  },
  {
    ...currency('XAG', 'Ag', ['Silver (troy ounce)', 'Argent (once troy)', 'فضة (أونصة)'], 6_650, 0.25, 0.15),
    type: 'metal',
    offVol: 0.014,
    parVol: 0.004,
    parRevert: 0.05,
    dp: 2,
    offSpread: 0.004,
    parSpread: 0.02,
  },
  {
    ...currency('BTC', '₿', ['Bitcoin', 'Bitcoin', 'بيتكوين'], 14_630_000, 0.08, 0.14),
    type: 'crypto',
    offVol: 0.025,
    parVol: 0.005,
    parRevert: 0.05,
    dp: 0,
    offSpread: 0.003,
    parSpread: 0.015,
  },
  {
    ...currency('ETH', 'Ξ', ['Ethereum', 'Ethereum', 'إيثريوم'], 532_000, 0.05, 0.16),
    type: 'crypto',
    offVol: 0.03,
    parVol: 0.005,
    parRevert: 0.05,
    dp: 0,
    offSpread: 0.003,
    parSpread: 0.018,
  },
  {
    // A stablecoin: quoted like the dollar on both markets.
    ...currency('USDT', '₮', ['Tether (USDT)', 'Tether (USDT)', 'تيثر (USDT)'], 133, 0, 0, {
      peg: { to: 'USD', factor: 1, parallelToo: true },
    }),
    type: 'crypto',
    offSpread: 0.003,
    parSpread: 0.015,
  },
];

const SORTED_SPECS: readonly Spec[] = [...SPECS].sort((a, b) =>
  a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
);

/** Asset records, sorted by code (fresh objects on every call). */
export function sampleAssets(): Asset[] {
  return SORTED_SPECS.map((s) => ({
    code: s.code,
    symbol: s.symbol,
    names: { en: s.names[0], fr: s.names[1], ar: s.names[2] },
    type: s.type,
  }));
}

// ---------------------------------------------------------------------------
// Randomness (deterministic)
// ---------------------------------------------------------------------------

type Rng = () => number;

/** FNV-1a 32-bit over UTF-16 code units. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mulberry32(seed: number): Rng {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stream(code: string, series: string): Rng {
  return mulberry32(hash32(`${SEED}:${code}:${series}`));
}

/** Approximately standard normal (Irwin–Hall, n = 3): arithmetic only. */
function gauss(rng: Rng): number {
  return (rng() + rng() + rng() - 1.5) * 2;
}

/**
 * Mean-reverting walk generated backwards from 0 at the last day (an OU process
 * is time-reversible, so this is statistically the same as running it forward).
 */
function revertingWalk(rng: Rng, n: number, sigma: number, theta: number): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i > 0; i--) x[i - 1] = x[i]! * (1 - theta) + sigma * gauss(rng);
  return x;
}

/** Smooth drift: `end` on the last day, divided by (1 + g/365) per day before. */
function trend(end: number, n: number, growthPerYear: number): Float64Array {
  const t = new Float64Array(n);
  const step = 1 + growthPerYear / 365;
  t[n - 1] = end;
  for (let i = n - 1; i > 0; i--) t[i - 1] = t[i]! / step;
  return t;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}

/** A factor 1 + x kept away from zero and from absurd values. */
function factor(x: number, lo: number, hi: number): number {
  return clamp(1 + x, lo, hi);
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
