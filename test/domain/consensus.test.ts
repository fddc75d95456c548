/**
 * The consensus method (docs/decisions.md 107) on hand-computed cases: every
 * expected value below is worked out in the comment beside it.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConsensusQuote,
  consensusAt,
  consensusOf,
  goldOrderHolds,
  publicationDecision,
  quotesInWindow,
} from '../../src/domain/consensus.js';

const T = Date.parse('2026-11-28T12:00:00Z');
const HOUR = 3_600_000;
const settings = { windowMs: 6 * HOUR, quorum: 3 };
const micros = (v: number) => Math.round(v * 1_000_000);

let seq = 0;
function quote(org: string, buy: number, sell: number, extra: Partial<ConsensusQuote> = {}): ConsensusQuote {
  seq += 1;
  return {
    id: `q${seq}`,
    reporterId: extra.reporterId ?? `r${seq}`,
    organisationId: org,
    buy: micros(buy),
    sell: micros(sell),
    observedAt: T - 60_000,
    receivedAt: T - 60_000,
    ...extra,
  };
}

const decimal = (m: number | null) => (m === null ? null : m / 1_000_000);

describe('consensus of organisations', () => {
  it('seven organisations around 260: the median, high confidence', () => {
    const buys = [259.5, 259.8, 260.0, 260.1, 260.3, 259.9, 260.2];
    const c = consensusOf(
      buys.map((b, i) => quote(`o${i}`, b, b + 2)),
      settings,
    );
    // Sorted buys 259.5 259.8 259.9 260.0 260.1 260.2 260.3: median 260.0; sells +2.
    expect(c.state).toBe('ok');
    expect(decimal(c.buy)).toBe(260);
    expect(decimal(c.sell)).toBe(262);
    // Mids = buy + 1, m = 261.0, |mid − m| sorted 0 .1 .1 .2 .2 .3 .5: MAD 0.2;
    // 1.4826 × 0.2 / 261 × 100 = 0.1136… → 0.11.
    expect(c.dispersionPercent).toBe(0.11);
    expect(c.confidence).toBe('high');
    expect([c.organisations, c.excluded, c.reporters]).toEqual([7, 0, 7]);
  });

  it('one organisation 10 % off is excluded on its mid; the others give the median', () => {
    const buys = [259.5, 259.8, 260.0, 260.1, 260.3, 259.9];
    const quotes = [...buys.map((b, i) => quote(`o${i}`, b, b + 2)), quote('rogue', 286, 288)];
    const c = consensusOf(quotes, settings);
    // Kept buys 259.5 259.8 259.9 260.0 260.1 260.3: (259.9 + 260.0) / 2 = 259.95.
    expect(decimal(c.buy)).toBe(259.95);
    expect(decimal(c.sell)).toBe(261.95);
    expect(c.verdicts.find((v) => v.organisationId === 'rogue')?.excluded).toBe('mid');
    expect([c.organisations, c.excluded]).toEqual([6, 1]);
  });

  it('an organisation counts once however many of its reporters quote', () => {
    const quotes = [
      quote('a', 230, 232),
      quote('b', 230, 232),
      quote('c', 230, 232),
      quote('d', 232.3, 234.3),
      quote('d', 232.3, 234.3),
      quote('d', 232.3, 234.3),
    ];
    const c = consensusOf(quotes, settings);
    // Organisations' buys 230 230 230 232.3: median 230 (the six quotes alone would give 231.15).
    // Mids 231 231 231 233.3, MAD 0: the floor 1.5 % × 231 = 3.465 keeps d (2.3).
    expect(decimal(c.buy)).toBe(230);
    expect(c.excluded).toBe(0);
    expect(c.reporters).toBe(6);
  });

  it('an even count takes the mean of the two middle values', () => {
    const c = consensusOf(
      [quote('a', 100, 110), quote('b', 101, 111), quote('c', 102, 112), quote('d', 103, 113)],
      settings,
    );
    expect(decimal(c.buy)).toBe(101.5);
    expect(decimal(c.sell)).toBe(111.5);
  });

  it('with MAD = 0 only the floor applies, and a value exactly at it stays', () => {
    // Buy = sell, so mid, buy and sell are judged on the same values: 200 200 200 203,
    // m = 200, MAD = 0, floor 1.5 % × 200 = 3: 203 is not further than 3.
    const at = consensusOf(
      [quote('a', 200, 200), quote('b', 200, 200), quote('c', 200, 200), quote('d', 203, 203)],
      settings,
    );
    expect(at.excluded).toBe(0);
    // One micro-unit beyond the floor is excluded.
    const past = consensusOf(
      [quote('a', 200, 200), quote('b', 200, 200), quote('c', 200, 200), quote('d', 203.000001, 203.000001)],
      settings,
    );
    expect(past.verdicts.find((v) => v.organisationId === 'd')?.excluded).toBe('mid');
  });

  it('the MAD term decides when it is above the floor', () => {
    // Mids 100.5 … 104.5 and 130.5: m = 103, deviations .5 .5 1.5 1.5 2.5 27.5: MAD 1.5;
    // 5.1891 × 1.5 = 7.78365 > floor 1.545: only the last is out.
    const quotes = [100, 101, 102, 103, 104, 130].map((b, i) => quote(`o${i}`, b, b + 1));
    const c = consensusOf(quotes, settings);
    expect(c.verdicts.filter((v) => v.excluded).map((v) => v.organisationId)).toEqual(['o5']);
    expect(decimal(c.buy)).toBe(102);
  });

  it('a buy or a sell alone far from its own median excludes the organisation', () => {
    // Mids all 105; buys 100 100 100 95: MAD 0, floor 1.5: |95 − 100| = 5 fails on the buy.
    const c = consensusOf(
      [quote('a', 100, 110), quote('b', 100, 110), quote('c', 100, 110), quote('d', 95, 115)],
      settings,
    );
    expect(c.verdicts.find((v) => v.organisationId === 'd')?.excluded).toBe('buy');
    expect(decimal(c.buy)).toBe(100);
  });

  it('rounds once to 4 decimals, half away from zero', () => {
    const up = consensusOf(
      [quote('a', 100.00004, 101), quote('b', 100.00005, 101), quote('c', 100.00006, 101)],
      settings,
    );
    expect(decimal(up.buy)).toBe(100.0001);
    const down = consensusOf(
      [quote('a', 100.000049, 101), quote('b', 100.000049, 101), quote('c', 100.00006, 101)],
      settings,
    );
    expect(decimal(down.buy)).toBe(100);
  });

  it('disagreement when quotes reach the quorum but exclusions leave fewer; low_quorum otherwise', () => {
    const disagree = consensusOf(
      [quote('a', 100, 101), quote('b', 100, 101), quote('c', 120, 121)],
      settings,
    );
    expect(disagree.state).toBe('disagreement');
    expect(disagree.buy).toBeNull();
    const few = consensusOf([quote('a', 100, 101), quote('b', 100, 101)], settings);
    expect(few.state).toBe('low_quorum');
    // A quorum set below 3 is read as 3.
    expect(consensusOf([quote('a', 100, 101), quote('b', 100, 101)], { ...settings, quorum: 1 }).state).toBe(
      'low_quorum',
    );
  });

  it('medium and low confidence follow the dispersion and the count', () => {
    // Three organisations: never high. Mids 100.5 101.5 102.5: MAD 1, 1.4826 / 101.5 = 1.46 %.
    const medium = consensusOf([quote('a', 100, 101), quote('b', 101, 102), quote('c', 102, 103)], settings);
    expect([medium.dispersionPercent, medium.confidence]).toEqual([1.46, 'medium']);
    // Mids 100.5 102.5 104.5: MAD 2, 2.9652 / 102.5 = 2.89 %: low.
    const low = consensusOf([quote('a', 100, 101), quote('b', 102, 103), quote('c', 104, 105)], settings);
    expect([low.dispersionPercent, low.confidence]).toEqual([2.89, 'low']);
  });
});

describe('the window and the reporters', () => {
  const active = new Set(['r1', 'r2', 'r3', 'r4']);

  it('(T − W, T]: a quote exactly at T − W is out, one at T is in', () => {
    const edge = quote('a', 100, 101, {
      reporterId: 'r1',
      observedAt: T - 6 * HOUR,
      receivedAt: T - 6 * HOUR,
    });
    const now = quote('b', 100, 101, { reporterId: 'r2', observedAt: T, receivedAt: T });
    expect(quotesInWindow([edge, now], active, T, settings.windowMs).map((q) => q.id)).toEqual([now.id]);
  });

  it("each reporter's latest quote; at the same instant the later received wins", () => {
    const old = quote('a', 100, 101, { reporterId: 'r1', observedAt: T - HOUR, receivedAt: T - HOUR });
    const first = quote('a', 101, 102, { reporterId: 'r1', observedAt: T - 1000, receivedAt: T - 900 });
    const second = quote('a', 102, 103, { reporterId: 'r1', observedAt: T - 1000, receivedAt: T - 800 });
    expect(quotesInWindow([old, second, first], active, T, settings.windowMs).map((q) => q.id)).toEqual([
      second.id,
    ]);
  });

  it('a quote dated ahead counts from its receipt', () => {
    const ahead = quote('a', 100, 101, { reporterId: 'r1', observedAt: T + 90_000, receivedAt: T - 1000 });
    expect(quotesInWindow([ahead], active, T, settings.windowMs)).toHaveLength(1);
    const later = quote('a', 100, 101, { reporterId: 'r1', observedAt: T + 90_000, receivedAt: T + 1000 });
    expect(quotesInWindow([later], active, T, settings.windowMs)).toHaveLength(0);
  });

  it('a suspended reporter stops counting', () => {
    const quotes = [
      quote('a', 100, 101, { reporterId: 'r1' }),
      quote('b', 100, 101, { reporterId: 'r2' }),
      quote('c', 100, 101, { reporterId: 'r3' }),
    ];
    expect(consensusAt(quotes, active, T, settings).state).toBe('ok');
    expect(consensusAt(quotes, new Set(['r1', 'r2']), T, settings).state).toBe('low_quorum');
  });
});

describe('publication', () => {
  const ok = { state: 'ok' as const, buy: micros(260), sell: micros(262) };
  const last = { buy: micros(260), sell: micros(262), at: T - 5 * 60_000 };

  it('the first publication goes out at once', () => {
    expect(publicationDecision(ok, null, false, T)).toEqual({ publish: true });
  });

  it('a move of 0.1 % on either side publishes; less waits for the heartbeat', () => {
    expect(publicationDecision({ ...ok, sell: micros(262.262) }, last, false, T)).toEqual({ publish: true });
    expect(publicationDecision({ ...ok, sell: micros(262.261) }, last, false, T)).toEqual({
      publish: false,
      retryAt: null,
    });
    expect(publicationDecision(ok, { ...last, at: T - 60 * 60_000 }, false, T)).toEqual({ publish: true });
  });

  it('at most one a minute, except the first after the quorum returns', () => {
    const recent = { ...last, at: T - 20_000 };
    expect(publicationDecision({ ...ok, buy: micros(270) }, recent, false, T)).toEqual({
      publish: false,
      retryAt: recent.at + 60_000,
    });
    expect(publicationDecision({ ...ok, buy: micros(270) }, recent, true, T)).toEqual({ publish: true });
  });

  it('nothing without the quorum', () => {
    expect(publicationDecision({ state: 'low_quorum', buy: null, sell: null }, null, false, T)).toEqual({
      publish: false,
      retryAt: null,
    });
  });

  it('gold must keep 18K < 21K < 24K', () => {
    const v = (b: number) => ({ buy: micros(b), sell: micros(b + 100) });
    expect(goldOrderHolds({ '18': v(9000), '21': v(10500), '24': v(12000) })).toBe(true);
    expect(goldOrderHolds({ '18': v(9000), '21': null, '24': v(12000) })).toBe(true);
    expect(goldOrderHolds({ '18': v(11000), '21': v(10500), '24': v(12000) })).toBe(false);
  });
});
