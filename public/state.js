/*
 * What the charts page holds in memory, and what the key may read.
 *
 * The entitlements come from /v1/me (those both the key and its grant hold, as
 * src/http/v1/decide.ts requires), so that the page asks only for what it may
 * read. When /v1/me itself is refused (a key without `usage:read`), every panel
 * is tried and a 403 `insufficient_scope` folds it (docs/decisions.md, 66).
 */

export const SOURCES = ['parallel', 'official', 'transfer'];

/** The service publishes `family` (a source or `gold`): true until /status says otherwise. */
export const published = (family) => state.published === null || state.published.has(family);
/** The source families the service publishes. */
export const sources = () => SOURCES.filter(published);

export const latestEntitlement = (source) => `rates:${source}:latest:read`;
export const historyEntitlement = (source) => `rates:${source}:history:read`;

/**
 * What the page reads, each with the entitlements it needs; the order of the
 * "not shown" line. Only what the service publishes: a family it does not
 * publish is nothing the key misses.
 */
const features = () => [
  ...sources().map((s) => ({ what: `what.latest.${s}`, entitlements: [latestEntitlement(s)] })),
  { what: 'what.history', entitlements: sources().map(historyEntitlement) },
  { what: 'what.premium', entitlements: ['market:premium:read'] },
  { what: 'what.premiumHistory', entitlements: ['market:premium:history:read'] },
  ...(published('gold')
    ? [
        { what: 'what.goldLatest', entitlements: ['gold:latest:read'] },
        { what: 'what.goldHistory', entitlements: ['gold:history:read'] },
      ]
    : []),
  { what: 'what.assets', entitlements: ['assets:read'] },
  { what: 'what.me', entitlements: ['usage:read'] },
];

export const state = {
  key: '',
  /** The families the service publishes (GET /status); null: all of them. */
  published: null,
  /** Bumped on every new key and every reload: answers to older requests are dropped. */
  keyRun: 0,
  dataRun: 0,
  /** Smallest X-Monthly-Quota-Remaining seen for the current period. */
  quota: null,
  me: null,
  /** The key's entitlements from /v1/me; null while unknown. */
  entitlements: null,
  /** Entitlements a 403 `insufficient_scope` named. */
  denied: new Set(),
  /** The answer of each request, by endpoint, for "What this page read with the key". */
  access: new Map(),
  assets: null,
  /** Currency and window of the last load. */
  choice: '',
  latest: null,
  rates: null,
  premiumHistory: null,
  premium: null,
  goldLatest: null,
  goldHistory: null,
};

/** True unless the key is known not to hold `entitlement`. */
export const may = (entitlement) =>
  !state.denied.has(entitlement) && (state.entitlements === null || state.entitlements.has(entitlement));

/** The features the key may not read, each with the entitlements it lacks. */
export function lacking() {
  return features()
    .map((f) => ({ what: f.what, entitlements: f.entitlements.filter((e) => !may(e)) }))
    .filter((f) => f.entitlements.length > 0);
}

export function resetKeyState() {
  state.quota = null;
  state.me = null;
  state.entitlements = null;
  state.denied = new Set();
  state.access = new Map();
  state.assets = null;
  state.choice = '';
  state.latest = null;
  state.rates = null;
  state.premiumHistory = null;
  state.premium = null;
  state.goldLatest = null;
  state.goldHistory = null;
}
