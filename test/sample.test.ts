import { describe, expect, it } from 'vitest';
import { PURITIES, type RateObservation } from '../src/domain/types.js';
import { generateSample, lastCompleteDay, SAMPLE_NOTICE } from '../src/sample/generate.js';

const END = '2026-12-15';
const END_MS = Date.UTC(2026, 11, 15);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const M = 1_000_000;

const data = generateSample({ endDate: END });

const CURRENCIES = [
  'EUR',
  'USD',
  'GBP',
  'CAD',
  'CHF',
  'CNY',
  'TRY',
  'SAR',
  'AED',
  'TND',
  'MAD',
  'JPY',
  'QAR',
  'KWD',
  'EGP',
  'RUB',
  'AUD',
  'SEK',
  'NOK',
  'DKK',
  'LYD',
  'BHD',
];
const METALS = ['XAU', 'XAG'];
const CRYPTO = ['BTC', 'ETH', 'USDT'];
const TRANSFER = ['CAD', 'CHF', 'EUR', 'GBP', 'USD'];

const HOUR_OF = { parallel: 9, official: 10, transfer: 11 } as const;
const index = new Map(data.rates.map((r) => [`${r.currency}|${r.source}|${r.updatedAt}`, r]));

function at(currency: string, source: RateObservation['source'], dayMs = END_MS): RateObservation {
  const r = index.get(`${currency}|${source}|${dayMs + HOUR_OF[source] * HOUR_MS}`);
  if (!r) throw new Error(`no ${currency}/${source} on ${new Date(dayMs).toISOString()}`);
  return r;
}

const mid = (r: RateObservation) => (r.buy + r.sell) / 2 / M;

describe('generateSample', () => {
  it('exposes a notice saying the data is synthetic', () => {
    expect(SAMPLE_NOTICE).toMatch(/synthetic/i);
  });

  it('is deterministic: same options give byte-identical output', () => {
    const again = generateSample({ endDate: END });
    expect(JSON.stringify(again)).toBe(JSON.stringify(data));
    const short1 = generateSample({ endDate: '2025-03-01', days: 30 });
    const short2 = generateSample({ endDate: '2025-03-01', days: 30 });
    expect(JSON.stringify(short1)).toBe(JSON.stringify(short2));
  });

  it('lists the required assets with types, symbols and names, sorted by code', () => {
    const codes = data.assets.map((a) => a.code);
    expect(codes).toEqual([...codes].sort());
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of CURRENCIES) expect(data.assets.find((a) => a.code === c)?.type, c).toBe('currency');
    for (const c of METALS) expect(data.assets.find((a) => a.code === c)?.type, c).toBe('metal');
    for (const c of CRYPTO) expect(data.assets.find((a) => a.code === c)?.type, c).toBe('crypto');
    expect(data.assets.filter((a) => a.type === 'currency').length).toBeGreaterThanOrEqual(22);
    for (const a of data.assets) {
      expect(a.code).toMatch(/^[A-Z0-9]{2,10}$/);
      expect(a.symbol.length).toBeGreaterThan(0);
      expect(a.names.en.length).toBeGreaterThan(0);
      expect(a.names.fr.length).toBeGreaterThan(0);
      expect(a.names.ar, a.code).toMatch(/[\u0600-\u06FF]/);
    }
    const byCode = new Map(data.assets.map((a) => [a.code, a]));
    expect(byCode.get('EUR')).toEqual({
      code: 'EUR',
      symbol: '€',
      names: { en: 'Euro', fr: 'Euro', ar: 'يورو' },
      type: 'currency',
    });
    expect(byCode.get('USD')?.names).toEqual({ en: 'US Dollar', fr: 'Dollar américain', ar: 'دولار أمريكي' });
    expect(byCode.get('USD')?.symbol).toBe('$');
    expect(byCode.get('GBP')?.symbol).toBe('£');
    expect(byCode.get('TRY')?.symbol).toBe('₺');
  });

  it('has one observation per day per (asset, source), and transfer only for the main currencies', () => {
    const days = 731;
    const nAssets = data.assets.length;
    expect(data.rates.length).toBe(days * (2 * nAssets + TRANSFER.length));
    expect(data.gold.length).toBe(days * PURITIES.length);

    const transferCodes = [
      ...new Set(data.rates.filter((r) => r.source === 'transfer').map((r) => r.currency)),
    ];
    expect(transferCodes.sort()).toEqual(TRANSFER);

    expect(index.size).toBe(data.rates.length); // (currency, source, updatedAt) is unique
    const perSeries = new Map<string, number>();
    for (const r of data.rates) {
      const key = `${r.currency}|${r.source}`;
      perSeries.set(key, (perSeries.get(key) ?? 0) + 1);
    }
    for (const a of data.assets) {
      expect(perSeries.get(`${a.code}|official`), a.code).toBe(days);
      expect(perSeries.get(`${a.code}|parallel`), a.code).toBe(days);
    }

    const short = generateSample({ endDate: END, days: 10 });
    expect(short.rates.length).toBe(10 * (2 * nAssets + TRANSFER.length));
    expect(short.gold.length).toBe(30);
  });

  it('places timestamps at fixed times of day over the requested range', () => {
    const first = END_MS - 730 * DAY_MS;
    const bad: string[] = [];
    for (const r of data.rates) {
      const off = r.updatedAt - HOUR_OF[r.source] * HOUR_MS;
      if (off % DAY_MS !== 0 || off < first || off > END_MS)
        bad.push(`${r.currency}/${r.source}@${r.updatedAt}`);
    }
    for (const g of data.gold) {
      const off = g.updatedAt - 9.5 * HOUR_MS;
      if (off % DAY_MS !== 0 || off < first || off > END_MS) bad.push(`${g.purity}@${g.updatedAt}`);
    }
    expect(bad).toEqual([]);
    expect(data.rates[0]?.updatedAt).toBe(first + 9 * HOUR_MS);
    expect(data.rates.at(-1)?.updatedAt).toBe(END_MS + 11 * HOUR_MS);
    expect(data.gold.at(-1)?.updatedAt).toBe(END_MS + 9.5 * HOUR_MS);
  });

  it('orders rates by updatedAt, currency, source and gold by updatedAt, purity', () => {
    const bad: number[] = [];
    for (let i = 1; i < data.rates.length; i++) {
      const a = data.rates[i - 1]!;
      const b = data.rates[i]!;
      const cmp =
        a.updatedAt - b.updatedAt ||
        (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0) ||
        (a.source < b.source ? -1 : a.source > b.source ? 1 : 0);
      if (cmp >= 0) bad.push(i);
    }
    expect(bad).toEqual([]);
    for (let i = 1; i < data.gold.length; i++) {
      const a = data.gold[i - 1]!;
      const b = data.gold[i]!;
      const cmp = a.updatedAt - b.updatedAt || PURITIES.indexOf(a.purity) - PURITIES.indexOf(b.purity);
      if (cmp >= 0) bad.push(-i);
    }
    expect(bad).toEqual([]);
  });

  it('quotes integer micro-units, rounded, positive, bounded, with sell > buy', () => {
    const unitOf = (code: string) =>
      ['BTC', 'ETH', 'XAU'].includes(code) ? M : ['JPY', 'TRY', 'EGP', 'RUB'].includes(code) ? 100 : 10_000;
    const bad: string[] = [];
    for (const r of data.rates) {
      const unit = unitOf(r.currency);
      const ok =
        Number.isSafeInteger(r.buy) &&
        Number.isSafeInteger(r.sell) &&
        r.buy > 0 &&
        r.sell > r.buy &&
        r.sell < 1e9 * M &&
        r.buy % unit === 0 &&
        r.sell % unit === 0;
      if (!ok) bad.push(`${r.currency}/${r.source}@${r.updatedAt}: ${r.buy}/${r.sell}`);
    }
    for (const g of data.gold) {
      const spread = (g.sell - g.buy) / g.buy;
      const ok =
        Number.isSafeInteger(g.buy) &&
        Number.isSafeInteger(g.sell) &&
        g.buy > 0 &&
        g.buy % M === 0 &&
        g.sell % M === 0 &&
        spread > 0.015 &&
        spread < 0.045;
      if (!ok) bad.push(`${g.purity}@${g.updatedAt}: ${g.buy}/${g.sell}`);
    }
    expect(bad).toEqual([]);
  });

  it('uses realistic spreads per source', () => {
    const bounds: Record<RateObservation['source'], [number, number]> = {
      official: [0.0005, 0.005],
      parallel: [0.005, 0.03],
      transfer: [0.005, 0.015],
    };
    const bad: string[] = [];
    for (const r of data.rates) {
      const spread = (r.sell - r.buy) / r.buy;
      const [lo, hi] = bounds[r.source];
      if (!(spread > lo * 0.5 && spread < hi))
        bad.push(`${r.currency}/${r.source}@${r.updatedAt}: ${spread}`);
    }
    expect(bad).toEqual([]);
  });

  it('ends at late-2026 levels', () => {
    const eurOff = at('EUR', 'official');
    const eurPar = at('EUR', 'parallel');
    for (const v of [eurOff.buy, eurOff.sell]) expect(v / M).toSatisfy((x: number) => x >= 150 && x <= 156);
    for (const v of [eurPar.buy, eurPar.sell]) expect(v / M).toSatisfy((x: number) => x >= 250 && x <= 270);
    expect(mid(at('USD', 'official'))).toSatisfy((x: number) => x >= 130 && x <= 136);
    expect(mid(at('USD', 'parallel'))).toSatisfy((x: number) => x >= 225 && x <= 240);
    expect(mid(at('JPY', 'official'))).toSatisfy((x: number) => x >= 0.85 && x <= 0.95);
    expect(mid(at('BTC', 'official'))).toBeGreaterThan(1_000_000);
    expect(mid(at('USDT', 'official')) / mid(at('USD', 'official'))).toBeCloseTo(1, 1);
    // Cross rates: GBP above EUR above USD, CAD below USD.
    expect(mid(at('GBP', 'official'))).toBeGreaterThan(mid(at('EUR', 'official')));
    expect(mid(at('CAD', 'official'))).toBeLessThan(mid(at('USD', 'official')));

    const gold18 = data.gold.find((g) => g.purity === '18K' && g.updatedAt === END_MS + 9.5 * HOUR_MS)!;
    for (const v of [gold18.buy, gold18.sell])
      expect(v / M).toSatisfy((x: number) => x >= 25_000 && x <= 40_000);
    const last = data.gold.slice(-3);
    const g = Object.fromEntries(last.map((x) => [x.purity, (x.buy + x.sell) / 2]));
    expect(g['21K']! / g['18K']!).toBeCloseTo(21 / 18, 1);
    expect(g['24K']! / g['18K']!).toBeCloseTo(24 / 18, 1);
  });

  it('keeps a premium near 70 % on currencies and puts transfer between official and parallel', () => {
    for (const c of CURRENCIES) {
      const premium = mid(at(c, 'parallel')) / mid(at(c, 'official')) - 1;
      expect(premium, c).toBeGreaterThan(0.55);
      expect(premium, c).toBeLessThan(0.9);
    }
    for (const c of [...METALS, 'BTC', 'ETH']) {
      const premium = mid(at(c, 'parallel')) / mid(at(c, 'official')) - 1;
      expect(premium, c).toBeGreaterThan(0.03);
      expect(premium, c).toBeLessThan(0.25);
    }
    const bad: string[] = [];
    for (const r of data.rates.filter((x) => x.source === 'transfer')) {
      const day = r.updatedAt - 11 * HOUR_MS;
      const off = mid(at(r.currency, 'official', day));
      const par = mid(at(r.currency, 'parallel', day));
      const t = mid(r);
      if (!(t > (off + par) / 2 && t < par)) bad.push(`${r.currency}@${r.updatedAt}: ${off} ${t} ${par}`);
    }
    expect(bad).toEqual([]);
  });

  it('drifts slowly: lower two years earlier, small daily moves on the official rate', () => {
    const first = END_MS - 730 * DAY_MS;
    expect(mid(at('EUR', 'official', first))).toBeLessThan(mid(at('EUR', 'official')));
    expect(mid(at('EUR', 'official', first))).toBeGreaterThan(130);
    const eur = data.rates.filter((r) => r.currency === 'EUR' && r.source === 'official').map(mid);
    const maxMove = Math.max(...eur.slice(1).map((v, i) => Math.abs(v / eur[i]! - 1)));
    expect(maxMove).toBeLessThan(0.01);
  });

  it('rejects bad options', () => {
    expect(() => generateSample({ endDate: '2026-13-01' })).toThrow(RangeError);
    expect(() => generateSample({ endDate: '2026-02-30' })).toThrow(RangeError);
    expect(() => generateSample({ endDate: '15/12/2026' })).toThrow(RangeError);
    expect(() => generateSample({ endDate: END, days: 0 })).toThrow(RangeError);
    expect(() => generateSample({ endDate: END, days: 1.5 })).toThrow(RangeError);
  });
});

describe('lastCompleteDay: where a --first-run sample ends', () => {
  it('is today once the day’s last observation (transfer, 11:00 UTC) is past, else yesterday', () => {
    expect(lastCompleteDay(Date.parse('2026-11-25T10:59:59.999Z'))).toBe('2026-11-24');
    expect(lastCompleteDay(Date.parse('2026-11-25T11:00:00.000Z'))).toBe('2026-11-25');
    expect(lastCompleteDay(Date.parse('2026-11-25T23:59:59.999Z'))).toBe('2026-11-25');
    expect(lastCompleteDay(Date.parse('2026-01-01T00:00:00.000Z'))).toBe('2025-12-31');
  });
});
