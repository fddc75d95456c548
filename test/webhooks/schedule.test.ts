/**
 * The retry schedule: the default (Standard Webhooks' eight attempts over
 * more than a day), MDS_WEBHOOK_RETRY_SCHEDULE's syntax and its refusals, and
 * the ±10 % jitter around each delay.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DELAYS_MS,
  DEFAULT_RETRY_SCHEDULE,
  nextAttemptAt,
  parseSchedule,
} from '../../src/webhooks/schedule.js';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;

describe('the default schedule', () => {
  it('is at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over more than a day', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toBe('0,5s,5m,30m,2h,5h,10h,10h');
    expect(DEFAULT_DELAYS_MS).toEqual([0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(DEFAULT_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * H);
  });
});

describe('parseSchedule', () => {
  it.each([
    ['0,50ms,100ms', [0, 50, 100]],
    ['0', [0]],
    [' 0 , 1s ,2m,3h ', [0, S, 2 * M, 3 * H]],
    ['0ms,0,0s', [0, 0, 0]],
  ])('reads %j', (text, delays) => {
    expect(parseSchedule(text)).toEqual({ ok: true, delaysMs: delays });
  });

  it.each([
    ['', 'entry 1 ""'],
    ['0,5x', 'entry 2 "5x"'],
    ['0,5', 'entry 2 "5"'],
    ['0,-5s', 'entry 2 "-5s"'],
    ['0,1.5h', 'entry 2 "1.5h"'],
    ['0,,5s', 'entry 2 ""'],
    ['0,5 s', 'entry 2 "5 s"'],
    ['0,99999999999999999h', 'entry 2 "99999999999999999h"'],
    ['5s,10s', 'starts with 5s, not 0'],
  ])('refuses %j, naming the entry and the expected form', (text, named) => {
    const parsed = parseSchedule(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem).toContain(named);
    expect(parsed.problem).toContain('such as 0,5s,5m,30m,2h,5h,10h,10h');
  });
});

describe('nextAttemptAt', () => {
  const T = 1_700_000_000_000;
  const middle = () => 0.5;

  it('counts each delay from the previous attempt, and ends with the schedule', () => {
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 0, T, middle)).toBe(T);
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 1, T, middle)).toBe(T + 5 * S);
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 7, T, middle)).toBe(T + 10 * H);
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 8, T, middle)).toBeNull();
    expect(nextAttemptAt([0, 50, 100], 3, T)).toBeNull();
  });

  it('moves a delay by at most ±10 %, never before the previous attempt', () => {
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 4, T, () => 0)).toBe(T + 2 * H - 12 * M);
    expect(nextAttemptAt(DEFAULT_DELAYS_MS, 4, T, () => 0.999_999_999)).toBe(T + 2 * H + 12 * M);
    for (let i = 0; i < 200; i++) {
      const at = nextAttemptAt([0, 1000], 1, T)!;
      expect(at).toBeGreaterThanOrEqual(T + 900);
      expect(at).toBeLessThanOrEqual(T + 1100);
      expect(nextAttemptAt([0, 1000], 0, T)).toBe(T);
    }
  });
});
