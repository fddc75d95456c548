/**
 * Core records as the domain sees them. Money is held in integer micro-units
 * (1 DZD = 1_000_000) and instants in epoch milliseconds, so that what comes out
 * of a response is exactly what went into the store: no binary float noise, no
 * sub-millisecond drift.
 */

export const SOURCES = ['parallel', 'official', 'transfer'] as const;
export type Source = (typeof SOURCES)[number];

export const ASSET_TYPES = ['currency', 'metal', 'crypto'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** Purity order is also the presentation order (decisions §9). */
export const PURITIES = ['18K', '21K', '24K'] as const;
export type Purity = (typeof PURITIES)[number];

export const QUOTE = 'DZD' as const;
export const GOLD_UNIT = 'gram' as const;

export interface LocalizedNames {
  en: string;
  fr: string;
  ar: string;
}

export interface Asset {
  code: string;
  symbol: string;
  names: LocalizedNames;
  type: AssetType;
}

/** A rate observation. `buy`/`sell` in micro-DZD, `updatedAt` in epoch ms. */
export interface RateObservation {
  currency: string;
  source: Source;
  buy: number;
  sell: number;
  updatedAt: number;
}

/** A gold reference per gram. `buy`/`sell` in micro-DZD, `updatedAt` in epoch ms. */
export interface GoldObservation {
  purity: Purity;
  buy: number;
  sell: number;
  updatedAt: number;
}

export interface ImportSummary {
  kind: 'assets' | 'rates' | 'gold';
  received: number;
  inserted: number;
  updated: number;
  unchanged: number;
}
