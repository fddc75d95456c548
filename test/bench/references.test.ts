/**
 * The node:http references are held to the service's head as received
 * (bench/references.ts sameHead), and the load rounds change each target's
 * neighbour (bench/load.ts roundOrder).
 */
import { describe, expect, it } from 'vitest';
import { roundOrder } from '../../bench/load.js';
import { headBytes, sameHead } from '../../bench/references.js';

const service = [
  'x-request-id',
  'req_a_1',
  'etag',
  'W/"x"',
  'content-type',
  'application/json; charset=utf-8',
  'content-length',
  '12',
  'Date',
  'Thu, 26 Nov 2026 02:00:25 GMT',
  'Connection',
  'keep-alive',
];

describe('the references’ heads', () => {
  it('match when names, order and values are the service’s (Date by its length)', () => {
    const later = [...service.slice(0, 9), 'Thu, 26 Nov 2026 02:00:31 GMT', 'Connection', 'keep-alive'];
    expect(sameHead(later, service)).toBeUndefined();
    expect(headBytes(service)).toBe(service.join('').length + (service.length / 2) * 4);
  });

  it('name an extra, a missing, a reordered or a re-spelled header, and a different value', () => {
    expect(sameHead([...service, 'Keep-Alive', 'timeout=5'], service)).toMatch(/Keep-Alive/);
    expect(sameHead(service.slice(2), service)).toMatch(/^headers etag/);
    expect(sameHead([...service.slice(2, 4), ...service.slice(0, 2), ...service.slice(4)], service)).toMatch(
      /^headers etag, x-request-id/,
    );
    expect(sameHead(['X-Request-Id', ...service.slice(1)], service)).toMatch(/X-Request-Id/);
    expect(sameHead([...service.slice(0, 7), '13', ...service.slice(8)], service)).toMatch(
      /content-length: "13"/,
    );
  });
});

describe('the rounds’ order', () => {
  it('puts a different target before each one in each of three rounds of four', () => {
    const targets = ['service', 'node:http', 'fastify', 'same headers'];
    const before = new Map<string, string[]>(targets.map((t) => [t, []]));
    for (let r = 0; r < 3; r++) {
      const order = roundOrder(targets, r);
      expect([...order].sort()).toEqual([...targets].sort());
      for (let i = 1; i < order.length; i++) before.get(order[i]!)!.push(order[i - 1]!);
    }
    for (const list of before.values()) expect(new Set(list).size).toBe(list.length);
  });

  it('keeps every target once a round for other counts', () => {
    for (const n of [1, 2, 3, 5])
      for (let r = 0; r < 4; r++) {
        const items = Array.from({ length: n }, (_, i) => i);
        expect([...roundOrder(items, r)].sort((a, b) => a - b)).toEqual(items);
      }
  });
});
