/** The quota headers' numbers: countText writes every count exactly as String() does. */
import { describe, expect, it } from 'vitest';
import { countText } from '../../../src/http/pipeline/quota.js';

describe('countText', () => {
  it('writes small and large counts as String() does, across the 2^30 and 10^9 boundaries', () => {
    const counts = [
      0,
      1,
      999_999_999,
      1_000_000_000,
      1_073_741_823,
      1_073_741_824,
      1_999_999_999,
      2_000_000_000,
      4_999_999_999,
      5_000_000_000,
      5_000_000_001,
      10_000_000_009,
      2 ** 53 - 1,
      2 ** 53,
      1_000,
      1_001,
      999_000,
      1_000_000,
      -1,
      0.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (let i = 0; i < 2_000; i++) counts.push(Math.floor(Math.random() * 2 ** 53));
    for (let i = 0; i < 2_000; i++) counts.push(Math.floor(Math.random() * 10 ** (1 + (i % 12))));
    for (const n of counts) expect(countText(n)).toBe(String(n));
  });
});
