/** The sample's assets: codes, names, symbols and the levels each series is anchored on. */
import type { Asset, AssetType } from '../domain/types.js';

// ---------------------------------------------------------------------------
// Asset catalogue
// ---------------------------------------------------------------------------

export interface Spec {
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

export const SPECS: readonly Spec[] = [
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

export const SORTED_SPECS: readonly Spec[] = [...SPECS].sort((a, b) =>
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
