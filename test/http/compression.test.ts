/**
 * Content negotiation of gzip/brotli (RFC 9110 §12.5.3): quality values,
 * `*`, explicit refusals, `identity`, and the server's preference (br, then
 * gzip) on ties. Unit cases for the parser, then the same rules over HTTP.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiate } from '../../src/http/compression.js';
import { sqliteOnly } from '../support/backends.js';
import { type Harness, startHarness } from '../support/harness.js';

describe('negotiate(Accept-Encoding)', () => {
  it.each([
    // No header, an empty one, or nothing we support: the body as it is.
    [undefined, null],
    ['', null],
    ['   ', null],
    ['identity', null],
    ['deflate', null],
    ['zstd, deflate', null],
    // Plain lists: br is preferred when both are acceptable at the same weight.
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br, gzip', 'br'],
    ['gzip, br', 'br'],
    ['identity, gzip', 'gzip'],
    // Tokens are case-insensitive; x-gzip is gzip (RFC 9110 §8.4.1.3).
    ['GZIP', 'gzip'],
    ['Br', 'br'],
    ['x-gzip', 'gzip'],
    ['X-GZIP;q=0.5, br;q=0.4', 'gzip'],
    // Quality values: the highest wins.
    ['br;q=0.1, gzip;q=1', 'gzip'],
    ['br;q=0.1, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.6', 'br'],
    ['gzip;q=0.5, br;q=0.5', 'br'],
    ['br;q=0.001', 'br'],
    ['br;q=1.000', 'br'],
    ['br;q=1.', 'br'],
    ['Br;Q=0.9, gZip;q=0.8', 'br'],
    // Explicit refusals.
    ['br;q=0, gzip;q=0', null],
    ['gzip;q=0', null],
    ['gzip;q=0.000', null],
    ['gzip;q=0.', null],
    ['br;q=0, gzip', 'gzip'],
    // `*` stands for every coding not listed; an explicit q=0 still refuses that one.
    ['*', 'br'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, *', 'gzip'],
    ['*;q=0', null],
    ['*;q=0, gzip', 'gzip'],
    ['*;q=0.5, br;q=0.1', 'gzip'],
    ['br;q=0.5, *', 'gzip'],
    ['*, identity;q=0', 'br'],
    // identity: preferred when it weighs more than any coding; a tie goes to compression.
    ['gzip;q=0.5, identity', null],
    ['gzip;q=0.5, identity;q=0.6', null],
    ['gzip;q=0.6, identity;q=0.6', 'gzip'],
    ['*;q=1, br;q=0.5, gzip;q=0.5', null],
    ['br;q=0.1', 'br'],
    // Nothing acceptable and identity refused: identity anyway (docs/decisions.md).
    ['identity;q=0', null],
    ['identity;q=0, br;q=0, gzip;q=0', null],
    // Invalid quality values void their member only.
    ['gzip;q=1.5', null],
    ['gzip;q=2', null],
    ['gzip;q=-1', null],
    ['gzip;q=abc', null],
    ['gzip;q=', null],
    ['gzip;q=.5', null],
    ['gzip;q=0.1234', null],
    ['gzip;q=1.001', null],
    ['br;q=0.0001, gzip', 'gzip'],
    ['br;q=x, gzip;q=0.2', 'gzip'],
    ['*;q=x, gzip;q=0', null],
    // Whitespace and empty list elements are tolerated; other parameters are ignored.
    ['  gzip  ;  q=0.5  ,br;q=0.4', 'gzip'],
    ['gzip ; q = 0.5 , br ; q = 0.4', 'gzip'],
    ['\tbr\t;\tq=0.3,\tgzip;q=0.2', 'br'],
    [', , gzip ,', 'gzip'],
    [',,,', null],
    ['gzip;level=9', 'gzip'],
    ['gzip;level=9;q=0', null],
    // A member that is not a token (garbage) is skipped, not the whole header.
    ['gz ip, br;q=0.5', 'br'],
    ['br gzip', null],
    // The same coding twice: the highest weight counts.
    ['gzip;q=0.2, gzip;q=0.9, br;q=0.5', 'gzip'],
  ] as const)('%j → %s', (header, expected) => {
    expect(negotiate(header)).toBe(expected);
  });
});

function decoded(res: LightMyRequestResponse): unknown {
  const encoding = res.headers['content-encoding'];
  const raw = res.rawPayload;
  const text = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
  return JSON.parse(text.toString('utf8')).data;
}

describe.each(sqliteOnly())('Content-Encoding over HTTP on $name', (backend) => {
  let h: Harness;
  let key: string;
  let plain: unknown;
  const URL = '/v1/rates/latest';

  beforeAll(async () => {
    h = await startHarness(backend);
    ({ key } = await h.newKey());
    const first = await h.get(URL, key);
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.length).toBeGreaterThan(1024);
    plain = first.json().data;
  });
  afterAll(() => h?.close());

  it.each([
    ['gzip;q=0, *', 'br'],
    ['br;q=0.1, gzip;q=1', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['GZIP', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['*;q=0', undefined],
    ['gzip;q=0.5, identity', undefined],
    ['identity;q=0', undefined],
  ] as const)('Accept-Encoding: %s → %s, with either credential header', async (accept, expected) => {
    const credentials = [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }];
    for (const credential of credentials) {
      const res = await h.app.inject({ url: URL, headers: { ...credential, 'accept-encoding': accept } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.headers.vary).toBe('accept-encoding');
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      expect(decoded(res)).toEqual(plain);
    }
  });
});
