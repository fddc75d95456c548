/**
 * The node:http references are held to the service's head as received
 * (bench/references.ts sameHead), run with the service's V8 settings, its
 * memory reducer off included (referenceArgs), are judged out of their steady state when
 * thirteen headers cost a quarter more than two (sameHeadersCheck), and the
 * load rounds change each target's neighbour (bench/load.ts roundOrder).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ScenarioReport } from '../../bench/load.js';
import { roundOrder } from '../../bench/load.js';
import { httpGet } from '../../bench/proc.js';
import { answerFor, answersOf, type ReferenceRoute } from '../../bench/reference-config.js';
import {
  freshIdProblem,
  headBytes,
  referenceArgs,
  SAME_HEADERS_CPU_MAX,
  sameHead,
  sameHeadersCheck,
} from '../../bench/references.js';
import { HEAP_GROWING_FLAG, NODE_FLAGS } from '../../src/runtime/heap.js';

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

describe('the same-headers reference’s request ids', () => {
  const serviceId = 'req_AbCd-_12_5x';
  const body = `{"data":[{"code":"EUR"}],"meta":{"requestId":"${serviceId}","count":1}}`;
  const route: ReferenceRoute = {
    url: '/v1/rates/latest',
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(body).toString('base64'),
    headers: ['x-request-id', serviceId, 'etag', 'W/"x"', 'content-type', 'application/json; charset=utf-8'],
    schema: {},
  };
  /** The service's head as the bench received it (Node's Date and Connection after the length). */
  const received = [
    ...route.headers,
    'content-length',
    String(Buffer.byteLength(body)),
    'Date',
    'Thu, 26 Nov 2026 02:00:25 GMT',
    'Connection',
    'close',
  ];
  const withId = (id: string) => Buffer.from(body.replace(serviceId, id));
  const answer = (id: string, text = withId(id)) => ({
    status: 200,
    headers: { 'x-request-id': id },
    rawHeaders: received.map((v, i) =>
      received[i - 1] === 'x-request-id'
        ? id
        : received[i - 1] === 'content-length'
          ? String(text.length)
          : v,
    ),
    body: text,
  });

  it('sends the service’s answer with a fresh id, made as the service makes them, in its header and body', async () => {
    const answers = answersOf({ host: '127.0.0.1', port: 0, routes: [route] }, true);
    const server = createServer((req, res) => answerFor(answers, req, res)?.send(res)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const first = await httpGet(`${origin}${route.url}`);
      const second = await httpGet(`${origin}${route.url}`);
      expect(freshIdProblem(route, received, first)).toBeUndefined();
      expect(freshIdProblem(route, received, second, first)).toBeUndefined();
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
      expect(JSON.parse(second.body.toString()).meta.requestId).toBe(second.headers['x-request-id']);
    } finally {
      server.close();
    }
  });

  it('names an id repeated, out of the service’s form, or not the body’s, and any other byte that differs', () => {
    const a = answer('req_ZZZZZZZZ_0');
    expect(freshIdProblem(route, received, a)).toBeUndefined();
    // The reference of old: the service's own bytes, its id on every answer.
    expect(freshIdProblem(route, received, answer(serviceId), answer(serviceId))).toMatch(/same request id/);
    expect(freshIdProblem(route, received, answer('1234'))).toMatch(/not in the service's form/);
    expect(freshIdProblem(route, received, answer('req_ZZZZZZZZ_0', withId('req_ZZZZZZZZ_1')))).toMatch(
      /not the service's with meta.requestId req_ZZZZZZZZ_0/,
    );
    const otherEtag = { ...a, rawHeaders: a.rawHeaders.map((v) => (v === 'W/"x"' ? 'W/"y"' : v)) };
    expect(freshIdProblem(route, received, otherEtag)).toMatch(/etag/);
    expect(freshIdProblem(route, received, { ...a, status: 404 })).toBe('status 404');
  });

  it('refuses a service answer whose body does not carry its X-Request-Id', () => {
    const other = { ...route, body: Buffer.from('{"data":[]}').toString('base64') };
    expect(() => answersOf({ host: '127.0.0.1', port: 0, routes: [other] }, true)).toThrow(
      /no X-Request-Id named in its body/,
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

describe('the references’ processes', () => {
  it('run with the service’s V8 flags (no memory reducer) and heap growth', () => {
    expect(NODE_FLAGS).toContain('--no-memory-reducer');
    const args = referenceArgs('reference-http', '/tmp/config.json');
    expect(args.slice(0, NODE_FLAGS.length)).toEqual([...NODE_FLAGS]);
    expect(args).toContain(HEAP_GROWING_FLAG);
    expect(args.at(-2)).toMatch(/dist\/bench\/reference-http\.js$/);
    expect(args.at(-1)).toBe('/tmp/config.json');
  });

  const rounds = (each: number[]) => each.map((serverUsPerRequest) => ({ serverUsPerRequest }));
  const report = (
    same: number | number[] | undefined,
    bare: number | number[] | undefined,
  ): ScenarioReport[] => [
    {
      id: 'latest',
      title: '/v1/rates/latest',
      url: '/v1/rates/latest',
      store: 'sqlite',
      bodyBytes: 1,
      targets: {
        'node:http': (Array.isArray(bare) ? { rounds: rounds(bare) } : { serverUsPerRequest: bare }) as never,
        'node:http, same headers': (Array.isArray(same)
          ? { rounds: rounds(same) }
          : { serverUsPerRequest: same }) as never,
      },
    },
  ];

  it('fail the steady-state check when the same-headers reference costs over the bound', () => {
    expect(sameHeadersCheck(report(30.6, 29.2)).ok).toBe(true);
    const degraded = sameHeadersCheck(report(45.8, 30.3));
    expect(degraded.ok).toBe(false);
    expect(degraded.detail).toBe('45.8 µs against 30.3 µs, 1.51×');
    expect(sameHeadersCheck(report(29.2 * SAME_HEADERS_CPU_MAX, 29.2)).ok).toBe(true);
  });

  it('judge each reference by its lowest round: the machine adds CPU to some rounds, a degraded V8 to all', () => {
    // As measured on one machine: a disturbed round among steady ones (docs/performance-notes.md).
    const disturbed = sameHeadersCheck(report([27.4, 16.4, 17.7], [14.1, 14.5, 13.7]));
    expect(disturbed).toMatchObject({ ok: true, detail: '16.4 µs against 13.7 µs, 1.20×' });
    const degraded = sameHeadersCheck(report([45.8, 44.1, 46.9], [30.3, 29.5, 31.2]));
    expect(degraded).toMatchObject({ ok: false, detail: '44.1 µs against 29.5 µs, 1.49×' });
  });

  it('pass the check, saying so, when the run did not measure both', () => {
    expect(sameHeadersCheck(report(undefined, 29.2))).toMatchObject({
      ok: true,
      detail: 'not measured in this run',
    });
    expect(sameHeadersCheck([]).ok).toBe(true);
  });
});
