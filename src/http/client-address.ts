/**
 * Who the client is (decisions 18a; docs/deployment.md, "Behind a reverse
 * proxy"): the peer of the connection, or, with MDS_TRUST_PROXY, the address
 * the trusted proxies forwarded in X-Forwarded-For.
 *
 * One trust function is built here and given to Fastify (its request.ip), to
 * the /v1 entrance (the pipeline's throttle) and to the access log, which
 * compute the address with @fastify/proxy-addr, the package Fastify computes
 * request.ip with: the throttle and the log cannot disagree on an address.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Fastify's `trustProxy` forms: everything, nothing, a hop count, or addresses and CIDRs. */
export type TrustProxy = boolean | number | string | readonly string[];
export type TrustFunction = (address: string, hop: number) => boolean;

export const MAX_HOPS = 999;

/**
 * The trust function, or undefined when nothing is trusted (X-Forwarded-For is
 * then ignored). Throws a TypeError naming a bad address, range or hop count.
 */
export function trustFunction(trust: TrustProxy | undefined): TrustFunction | undefined {
  if (trust === undefined || trust === false || trust === 0) return undefined;
  if (trust === true) return () => true;
  if (typeof trust === 'number') {
    if (!Number.isInteger(trust) || trust < 0 || trust > MAX_HOPS) {
      throw new TypeError(`a hop count must be 0 to ${MAX_HOPS}`);
    }
    // Fastify 5.12 turns a bare number into "trust nothing" (it cannot check the
    // peer, so a client reaching the instance directly could claim any address).
    // Passing it through would silently ignore the setting; this is proxy-addr's
    // own hop rule instead, for proxies without fixed addresses, with the same
    // caveat (docs/deployment.md).
    return (_address, hop) => hop < trust;
  }
  const list = typeof trust === 'string' ? trust.split(',').map((entry) => entry.trim()) : [...trust];
  if (list.some((entry) => entry === '')) throw new TypeError('an empty entry in the list');
  return proxyAddr.compile(list);
}

/** The client address of a request: what Fastify's request.ip gives with the same trust. */
export function clientAddress(trust: TrustFunction | undefined): (req: IncomingMessage) => string {
  return trust ? (req) => proxyAddr(req, trust) : (req) => req.socket.remoteAddress ?? '';
}

/**
 * MDS_TRUST_PROXY: `true`, `false`, a hop count, or a comma-separated list of
 * addresses, CIDRs and proxy-addr's names (`loopback`, `linklocal`,
 * `uniquelocal`). Unset or empty: nothing is trusted. Throws a TypeError
 * naming the problem.
 */
export function parseTrustProxy(text: string | undefined): TrustProxy | undefined {
  const value = text?.trim();
  if (value === undefined || value === '') return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  const trust = /^\d+$/.test(value) ? Number(value) : value;
  trustFunction(trust);
  return trust;
}
