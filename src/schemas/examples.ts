/**
 * Example bodies for the reference at /docs (one per endpoint). Figures are in
 * the style of the synthetic sample data set; request ids are illustrative.
 */
const names = { en: 'Euro', fr: 'Euro', ar: 'يورو' };
const RID = 'req_3f9k2m1x_1a';
/** A parallel rate published from reporters' quotes, and an imported record (decisions 114). */
const consensusQuality = {
  method: 'consensus',
  organisations: 7,
  reporters: 9,
  excluded: 1,
  dispersionPercent: 0.31,
  confidence: 'high',
} as const;
const importQuality = {
  method: 'import',
  organisations: null,
  reporters: null,
  excluded: null,
  dispersionPercent: null,
  confidence: null,
} as const;

export const examples = {
  assets: {
    data: [{ code: 'EUR', symbol: '€', names, type: 'currency' }],
    meta: { requestId: RID, count: 1, type: 'currency' },
  },
  ratesLatest: {
    data: [
      {
        currency: 'EUR',
        names,
        type: 'currency',
        source: 'parallel',
        quote: 'DZD',
        buy: 258.45,
        sell: 261.79,
        updatedAt: '2026-11-21T09:00:00.000Z',
        quality: consensusQuality,
        change: {
          since: '2026-11-20T15:00:00.000Z',
          buy: { amount: 0.55, percent: 0.2133 },
          sell: { amount: 0.59, percent: 0.2259 },
        },
      },
    ],
    meta: { requestId: RID, count: 1, source: 'parallel', quote: 'DZD', currencies: ['EUR'] },
  },
  ratesHistory: {
    data: [
      {
        currency: 'EUR',
        source: 'official',
        quote: 'DZD',
        buy: 153.32,
        sell: 153.55,
        updatedAt: '2026-11-21T10:00:00.000Z',
        quality: importQuality,
      },
    ],
    meta: {
      requestId: RID,
      count: 1,
      currency: 'EUR',
      source: 'official',
      quote: 'DZD',
      from: '2026-11-21T00:00:00.000Z',
      to: '2026-11-21T23:59:59.999Z',
      limit: 1,
      nextCursor: 'mvk7e2o0.mwsi1hbz.mwq6g800~aveO7iyylean1gRzyFLrAQ',
    },
  },
  premium: {
    data: [
      {
        currency: 'EUR',
        quote: 'DZD',
        parallel: { buy: 258.45, sell: 261.79, updatedAt: '2026-11-21T09:00:00.000Z' },
        official: { buy: 153.32, sell: 153.55, updatedAt: '2026-11-21T10:00:00.000Z' },
        premium: { buy: { amount: 105.13, percent: 68.569 }, sell: { amount: 108.24, percent: 70.4917 } },
        change: {
          since: '2026-11-20T15:00:00.000Z',
          buy: { percentPoints: 0.3587 },
          sell: { percentPoints: 0.3842 },
        },
      },
    ],
    meta: { requestId: RID, count: 1, quote: 'DZD', currencies: ['EUR', 'XYZ'], missingCurrencies: ['XYZ'] },
  },
  premiumHistory: {
    data: [
      {
        date: '2026-11-23',
        currency: 'EUR',
        quote: 'DZD',
        parallel: { buy: 259.1, sell: 262.4, updatedAt: '2026-11-23T09:00:00.000Z' },
        official: { buy: 153.32, sell: 153.55, updatedAt: '2026-11-21T10:00:00.000Z' },
        premium: { buy: { amount: 105.78, percent: 68.993 }, sell: { amount: 108.85, percent: 70.889 } },
      },
    ],
    meta: {
      requestId: RID,
      count: 1,
      currency: 'EUR',
      quote: 'DZD',
      from: '2026-10-24T00:00:00.000Z',
      to: '2026-11-23T23:59:59.999Z',
      limit: 1,
      nextCursor: 'mvjxqn40.mwttd7bz.mwrx3k00~Q2hBYmMxMjM0NTY3ODkwYQ',
      summary: {
        days: 22,
        buy: {
          min: { percent: 67.2113, date: '2026-10-30' },
          max: { percent: 69.4021, date: '2026-11-17' },
          mean: 68.3377,
        },
        sell: {
          min: { percent: 69.0542, date: '2026-10-30' },
          max: { percent: 71.3378, date: '2026-11-17' },
          mean: 70.1624,
        },
      },
    },
  },
  goldLatest: {
    data: [
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        buy: 29592,
        sell: 30767,
        updatedAt: '2026-11-21T09:30:00.000Z',
        quality: importQuality,
        change: {
          since: '2026-11-20T09:30:00.000Z',
          buy: { amount: 112, percent: 0.3799 },
          sell: { amount: 117, percent: 0.3817 },
        },
      },
      {
        purity: '21K',
        quote: 'DZD',
        unit: 'gram',
        buy: 35035,
        sell: 35947,
        updatedAt: '2026-11-21T09:30:00.000Z',
        quality: importQuality,
        change: null,
      },
      {
        purity: '24K',
        quote: 'DZD',
        unit: 'gram',
        buy: 40354,
        sell: 41333,
        updatedAt: '2026-11-21T09:30:00.000Z',
        quality: importQuality,
        change: null,
      },
    ],
    meta: { requestId: RID, count: 3, quote: 'DZD', unit: 'gram' },
  },
  goldHistory: {
    data: [
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        buy: 29592,
        sell: 30767,
        updatedAt: '2026-11-21T09:30:00.000Z',
        quality: importQuality,
      },
    ],
    meta: {
      requestId: RID,
      count: 1,
      quote: 'DZD',
      unit: 'gram',
      from: '2026-10-22T00:00:00.000Z',
      to: '2026-11-21T23:59:59.999Z',
      limit: 1,
      nextCursor: 'mvk5x1a0.mwsi1hbz.mwq6g800.1~Q2hBYmMxMjM0NTY3ODkwYQ',
    },
  },
  me: {
    data: {
      account: { id: 'acc_6uyhxunryj0s' },
      grant: {
        id: 'grt_faf4lqzjgd4q',
        provider: 'manual',
        plan: 'pro',
        status: 'active',
        scopes: ['assets:read', 'market:premium:read', 'rates:parallel:latest:read', 'usage:read'],
        validFrom: '2026-01-01T00:00:00.000Z',
        validUntil: '9999-12-31T23:59:59.999Z',
        monthlyRequestLimit: 1000000,
        requestsPerMinute: 300,
      },
      key: {
        publicId: 'aj0tishsygtj',
        prefix: 'mds_live_aj0tishsygtj',
        label: 'production',
        environment: 'live',
        scopes: ['assets:read', 'market:premium:read', 'rates:parallel:latest:read', 'usage:read'],
        status: 'active',
        expiresAt: null,
        lastUsedAt: '2026-11-22T03:25:56.111Z',
      },
      usage: {
        periodStart: '2026-11-01T00:00:00.000Z',
        resetAt: '2026-12-01T00:00:00.000Z',
        requestsUsed: 5,
        requestsRemaining: 999995,
        requestLimit: 1000000,
        requestsPerMinute: 300,
        minuteRemaining: 295,
        minuteResetAt: '2026-11-22T03:26:00.000Z',
      },
    },
    meta: { requestId: RID },
  },
} as const;
