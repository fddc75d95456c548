/**
 * The node:http references are held to the service's head as received
 * (bench/references.ts sameHead), and the same-headers one sends the
 * service's answer with a fresh request id of its own (freshIdProblem).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { httpGet } from '../../bench/proc.js';
import { answerOf, type ReferenceRoute } from '../../bench/reference-config.js';
import { freshIdProblem, sameHead } from '../../bench/references.js';

const id = 'req_AbCd-_12_5x';
const body = `{"data":[{"code":"EUR"}],"meta":{"requestId":"${id}","count":1}}`;
const route: ReferenceRoute = {
  url: '/v1/rates/latest',
  contentType: 'application/json; charset=utf-8',
  body: Buffer.from(body).toString('base64'),
  headers: ['x-request-id', id, 'etag', 'W/"x"', 'content-type', 'application/json; charset=utf-8'],
};
/** The service's head as the bench received it. */
const received = [
  ...route.headers,
  ...['content-length', String(body.length), 'Date', 'Thu, 26 Nov 2026 02:00:25 GMT', 'Connection', 'close'],
];
const answer = (rid: string, text = Buffer.from(body.replace(id, rid))) => ({
  status: 200,
  headers: { 'x-request-id': rid },
  rawHeaders: received.map((v, i) =>
    received[i - 1] === 'x-request-id' ? rid : received[i - 1] === 'content-length' ? String(text.length) : v,
  ),
  body: text,
});

describe('the references', () => {
  it('match the service’s head by names, order and values (Date by its length), and name what differs', () => {
    const later = received.map((v) => (v.endsWith('GMT') ? 'Thu, 26 Nov 2026 02:00:31 GMT' : v));
    expect(sameHead(later, received)).toBeUndefined();
    expect(sameHead([...received, 'Keep-Alive', 'timeout=5'], received)).toMatch(/Keep-Alive/);
    expect(sameHead(received.slice(2), received)).toMatch(/^headers etag/);
    expect(sameHead(['X-Request-Id', ...received.slice(1)], received)).toMatch(/X-Request-Id/);
    expect(
      sameHead(
        received.map((v) => (v === 'W/"x"' ? 'W/"y"' : v)),
        received,
      ),
    ).toMatch(/etag: "W\/\\"y\\""/);
  });

  it('send the service’s answer with a fresh id in its header and body, made as the service makes them', async () => {
    const send = answerOf(route, true);
    const server = createServer((_req, res) => send(res)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const first = await httpGet(`${origin}${route.url}`);
      const second = await httpGet(`${origin}${route.url}`);
      expect(freshIdProblem(route, received, first)).toBeUndefined();
      expect(freshIdProblem(route, received, second, first)).toBeUndefined();
      expect(JSON.parse(second.body.toString()).meta.requestId).toBe(second.headers['x-request-id']);
    } finally {
      server.close();
    }
  });

  it('name an id repeated, out of the service’s form or not the body’s, and refuse a body without the id', () => {
    expect(freshIdProblem(route, received, answer('req_ZZZZZZZZ_0'))).toBeUndefined();
    expect(freshIdProblem(route, received, answer(id), answer(id))).toMatch(/same request id/);
    expect(freshIdProblem(route, received, answer('1234'))).toMatch(/not in the service's form/);
    const other = answer('req_ZZZZZZZZ_0', Buffer.from(body.replace(id, 'req_ZZZZZZZZ_1')));
    expect(freshIdProblem(route, received, other)).toMatch(/not the service's with meta.requestId/);
    expect(freshIdProblem(route, received, { ...answer(id), status: 404 })).toBe('status 404');
    const bare = { ...route, body: Buffer.from('{"data":[]}').toString('base64') };
    expect(() => answerOf(bare, true)).toThrow(/no X-Request-Id named in its body/);
  });
});
