/**
 * Entitlements (decisions §4). Canonical entitlements are the only values ever
 * shown; legacy umbrellas may sit in the store and are expanded when read.
 */
import { SOURCES, type Source } from './types.js';

export const ENTITLEMENTS = [
  'assets:read',
  'gold:history:read',
  'gold:latest:read',
  'market:premium:history:read',
  'market:premium:read',
  'rates:official:history:read',
  'rates:official:latest:read',
  'rates:parallel:history:read',
  'rates:parallel:latest:read',
  'rates:transfer:history:read',
  'rates:transfer:latest:read',
  'usage:read',
] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

const CANONICAL = new Set<string>(ENTITLEMENTS);

export const LEGACY_UMBRELLAS: Readonly<Record<string, readonly Entitlement[]>> = {
  read: ENTITLEMENTS,
  'rates:read': ENTITLEMENTS.filter((e) => e.startsWith('rates:')),
  'rates:latest:read': ENTITLEMENTS.filter((e) => e.startsWith('rates:') && e.endsWith(':latest:read')),
  'rates:history:read': ENTITLEMENTS.filter((e) => e.startsWith('rates:') && e.endsWith(':history:read')),
  'gold:read': ['gold:history:read', 'gold:latest:read'],
  'market:read': ENTITLEMENTS.filter((e) => e.startsWith('market:')),
};

/** True for a value the admin CLI may store: canonical or legacy umbrella. */
export function isKnownScope(scope: string): boolean {
  return CANONICAL.has(scope) || Object.hasOwn(LEGACY_UMBRELLAS, scope);
}

/**
 * Expands stored scopes to the sorted canonical set. Unknown strings found in the
 * store are ignored rather than failing the request (decisions §4).
 */
export function expandScopes(stored: readonly string[]): Entitlement[] {
  const out = new Set<Entitlement>();
  for (const s of stored) {
    if (CANONICAL.has(s)) out.add(s as Entitlement);
    else if (Object.hasOwn(LEGACY_UMBRELLAS, s)) for (const e of LEGACY_UMBRELLAS[s]!) out.add(e);
  }
  return ENTITLEMENTS.filter((e) => out.has(e));
}

/** Built once: looked up on every rates request. */
const RATES_ENTITLEMENTS = Object.fromEntries(
  SOURCES.map((source) => [
    source,
    {
      latest: `rates:${source}:latest:read` as Entitlement,
      history: `rates:${source}:history:read` as Entitlement,
    },
  ]),
) as Record<Source, Record<'latest' | 'history', Entitlement>>;

export function ratesEntitlement(source: Source, kind: 'latest' | 'history'): Entitlement {
  return RATES_ENTITLEMENTS[source][kind];
}
